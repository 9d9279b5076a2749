package restapi

import "testing"

// TestAudience: which RFC 8707 resource bindings the REST API accepts. The comparison is
// wellknown.NormalResource's, the one the OAuth provider binds with and MCP checks with
// (docs/decisions.md 7: scheme and host case and one trailing slash are normalised, nothing
// else; RFC 8707 section 2: a fragment is refused). A copy of the normalisation that
// drifted from it fails one of these rows.
func TestAudience(t *testing.T) {
	a := &API{cfg: Config{PublicURL: "https://ws.example.com"}}
	for _, tc := range []struct {
		name, resource string
		want           bool
	}{
		{"the REST base URL", "https://ws.example.com/v1", true},
		{"the origin names the whole service", "https://ws.example.com", true},
		{"the origin with a trailing slash", "https://ws.example.com/", true},
		{"one trailing slash is dropped", "https://ws.example.com/v1/", true},
		{"scheme and host are case-insensitive (RFC 3986 6.2.2.1)", "HTTPS://WS.Example.COM/v1", true},
		{"fails because the path keeps its case", "https://ws.example.com/V1", false},
		{"fails because only one trailing slash is dropped", "https://ws.example.com/v1//", false},
		{"fails because of a fragment (RFC 8707 section 2)", "https://ws.example.com/v1#x", false},
		{"fails because of an empty fragment (RFC 8707 section 2)", "https://ws.example.com/v1#", false},
		{"fails because a default port is not dropped (docs/decisions.md 7)", "https://ws.example.com:443/v1", false},
		{"fails because the scheme differs", "http://ws.example.com/v1", false},
		{"fails because it is the MCP URL", "https://ws.example.com/mcp", false},
		{"fails because it is under /v1, not /v1", "https://ws.example.com/v1/deals", false},
		{"fails because it has a query", "https://ws.example.com/v1?x=1", false},
		{"fails because it is relative", "/v1", false},
		{"fails because it is another host", "https://evil.example/v1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := a.audience(tc.resource); got != tc.want {
				t.Errorf("audience(%q) = %v, want %v", tc.resource, got, tc.want)
			}
		})
	}
}
