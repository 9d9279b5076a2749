package restapi_test

import (
	"net/http/httptest"
	"testing"

	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/workspace"
)

// TestRouteClass: before authentication, the API's safe methods are reads and the others
// writes; the OpenAPI document needs no database, so the circuit breaker never refuses it.
func TestRouteClass(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         workspace.Class
	}{
		{"GET", "/v1/deals", workspace.ClassRead},
		{"HEAD", "/v1/deals/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f", workspace.ClassRead},
		{"OPTIONS", "/v1/deals", workspace.ClassRead},
		{"GET", "/v1", workspace.ClassRead},
		{"POST", "/v1/deals", workspace.ClassWrite},
		{"PATCH", "/v1/deals/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f", workspace.ClassWrite},
		{"DELETE", "/v1/deal_people", workspace.ClassWrite},
		{"GET", "/v1/openapi.json", ""},
	} {
		if got := restapi.RouteClass(httptest.NewRequest(c.method, c.path, nil)); got != c.want {
			t.Errorf("%s %s: class %q, want %q", c.method, c.path, got, c.want)
		}
	}
}
