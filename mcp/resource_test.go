package mcp

import "testing"

// TestAcceptsResource: RFC 8707 audience of /mcp. docs/decisions.md 7 compares resource values
// after normalising the case of scheme and host and a trailing slash; a token bound to the
// origin or to /mcp is accepted on /mcp, one bound to the REST API or elsewhere is not
// (paths under a bound view: TestBoundTokenStaysOnItsPath).
func TestAcceptsResource(t *testing.T) {
	s := &Server{cfg: Config{PublicURL: "https://api.example.com"}, resource: "https://api.example.com/mcp"}
	cases := []struct {
		resource string
		want     bool
	}{
		{"https://api.example.com/mcp", true},
		{"HTTPS://API.Example.com/mcp/", true},
		{"https://api.example.com/mcp/x/hr", false},
		{"https://api.example.com/mcp/readonly", false},
		{"https://api.example.com", true},
		{"https://api.example.com/", true},
		{"https://api.example.com/MCP", false},
		{"https://api.example.com/mcpx", false},
		{"https://api.example.com/v1", false},
		{"http://api.example.com/mcp", false},
		{"https://other.example.com/mcp", false},
		{"/mcp", false},
		{"https://api.example.com/mcp#tools", false}, // RFC 8707 section 2: no fragment
	}
	for _, c := range cases {
		if got := s.accepts(c.resource, "/mcp"); got != c.want {
			t.Errorf("accepts(%q) = %v, want %v", c.resource, got, c.want)
		}
	}
}
