package oauth_test

import (
	"net/http/httptest"
	"testing"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/workspace"
)

// TestRouteClass: the token endpoint's requests, its CORS preflight included, take the
// token class's bound; the provider's pages need none.
func TestRouteClass(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         workspace.Class
	}{
		{"POST", "/oauth/token", workspace.ClassToken},
		{"OPTIONS", "/oauth/token", workspace.ClassToken},
		{"POST", "/oauth/revoke", ""},
		{"POST", "/oauth/register", ""},
		{"GET", "/oauth/authorize", ""},
		{"POST", "/oauth/login", ""},
	} {
		if got := oauth.RouteClass(httptest.NewRequest(c.method, c.path, nil)); got != c.want {
			t.Errorf("%s %s: class %q, want %q", c.method, c.path, got, c.want)
		}
	}
}
