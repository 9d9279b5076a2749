package wellknown_test

import (
	"testing"

	"github.com/agencyos/workspaced/wellknown"
)

// TestNormalResource: the comparison of docs/decisions.md 7 and the values RFC 8707 section 2
// rules out.
func TestNormalResource(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "already normal", in: "https://ws.example.com/mcp", want: "https://ws.example.com/mcp"},
		{name: "scheme and host lowercased", in: "HTTPS://WS.Example.COM/mcp", want: "https://ws.example.com/mcp"},
		{name: "path keeps its case", in: "https://ws.example.com/MCP/X/Hr", want: "https://ws.example.com/MCP/X/Hr"},
		{name: "one trailing slash dropped", in: "https://ws.example.com/v1/", want: "https://ws.example.com/v1"},
		{name: "only one trailing slash dropped", in: "https://ws.example.com/v1//", want: "https://ws.example.com/v1/"},
		{name: "origin with slash is the origin", in: "https://ws.example.com/", want: "https://ws.example.com"},
		{name: "port kept", in: "http://127.0.0.1:8080/mcp", want: "http://127.0.0.1:8080/mcp"},
		// docs/decisions.md 7 normalises case and a trailing slash only: a default port
		// (RFC 3986 6.2.3) is kept, so :443 names another value than the bare host.
		{name: "default https port kept", in: "https://ws.example.com:443/mcp", want: "https://ws.example.com:443/mcp"},
		{name: "default http port kept", in: "HTTP://WS.example.com:80/v1/", want: "http://ws.example.com:80/v1"},
		{name: "percent-encoding kept", in: "https://ws.example.com/a%2Fb/", want: "https://ws.example.com/a%2Fb"},
		{name: "query kept", in: "https://ws.example.com/mcp?x=1", want: "https://ws.example.com/mcp?x=1"},
		{name: "fails because it has a fragment (RFC 8707 section 2)", in: "https://ws.example.com/mcp#top", wantErr: true},
		{name: "fails because of an empty fragment", in: "https://ws.example.com/mcp#", wantErr: true},
		{name: "fails because it is relative", in: "/mcp", wantErr: true},
		{name: "fails because it has no host", in: "urn:example:mcp", wantErr: true},
		{name: "fails because it is empty", in: "", wantErr: true},
		{name: "fails because it does not parse", in: "https://ws example.com/%zz", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := wellknown.NormalResource(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("NormalResource(%q) = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("NormalResource(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
