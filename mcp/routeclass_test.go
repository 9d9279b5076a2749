package mcp_test

import (
	"net/http/httptest"
	"testing"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/workspace"
)

// TestRouteClass: every MCP request counts as a write before authentication (a POST
// whether its tool reads or writes), but a CORS preflight, which needs no database.
func TestRouteClass(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         workspace.Class
	}{
		{"POST", mcp.Path, workspace.ClassWrite},
		{"POST", mcp.Path + "/x/crm", workspace.ClassWrite},
		{"GET", mcp.Path, workspace.ClassWrite},
		{"DELETE", mcp.Path, workspace.ClassWrite},
		{"OPTIONS", mcp.Path, ""},
	} {
		if got := mcp.RouteClass(httptest.NewRequest(c.method, c.path, nil)); got != c.want {
			t.Errorf("%s %s: class %q, want %q", c.method, c.path, got, c.want)
		}
	}
}
