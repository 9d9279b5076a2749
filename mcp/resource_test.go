package mcp

import "testing"

// TestSameResource: decisions.md 7 compares resource values after normalising the case of
// scheme and host and a trailing slash; anything else differs.
func TestSameResource(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"https://api.example.com/mcp", "https://api.example.com/mcp", true},
		{"HTTPS://API.Example.com/mcp/", "https://api.example.com/mcp", true},
		{"https://api.example.com/MCP", "https://api.example.com/mcp", false},
		{"https://api.example.com/v1", "https://api.example.com/mcp", false},
		{"http://api.example.com/mcp", "https://api.example.com/mcp", false},
		{"/mcp", "/mcp", false},
	}
	for _, c := range cases {
		if got := sameResource(c.a, c.b); got != c.want {
			t.Errorf("sameResource(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
