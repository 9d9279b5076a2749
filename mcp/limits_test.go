package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestTokenAudience: RFC 8707. A token bound to the origin works on /v1 and /mcp; one bound
// to /mcp works on /mcp and is refused by REST, as is one bound to an MCP view, which /mcp
// refuses too (TestBoundTokenStaysOnItsPath); one bound to /v1 is refused by /mcp
// (TestChallenge).
func TestTokenAudience(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	cases := []struct {
		resource       string
		wantREST, want int
	}{
		{e.srv.URL, http.StatusOK, http.StatusOK},
		{e.srv.URL + "/", http.StatusOK, http.StatusOK},
		{e.srv.URL + "/v1", http.StatusOK, http.StatusUnauthorized},
		{e.srv.URL + "/mcp", http.StatusUnauthorized, http.StatusOK},
		{e.srv.URL + "/mcp/x/hr", http.StatusUnauthorized, http.StatusUnauthorized},
		{"https://elsewhere.example/v1", http.StatusUnauthorized, http.StatusUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.resource, func(t *testing.T) {
			bound := *f.Admin
			bound.Credential.Resource = c.resource
			tok := e.token(&bound)
			if status, body := e.rest(t, "GET", "/me", tok, ""); status != c.wantREST {
				t.Errorf("REST: %d %v, want %d", status, body, c.wantREST)
			}
			if status, _, body := e.post(t, "POST", mcp.Path, initialize, mcpHeaders(tok)...); status != c.want {
				t.Errorf("MCP: %d %s, want %d", status, body, c.want)
			}
		})
	}
}

// TestBodyLimit: like REST, /mcp refuses bodies over 1 MiB without reading them whole:
// a declared length at once (413), a chunked one once 1 MiB has been read.
func TestBodyLimit(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_documents","arguments":{"name":"` +
		strings.Repeat("x", 2<<20) + `"}}}`
	status, _, body := e.post(t, "POST", mcp.Path, big, mcpHeaders(f.Agent.Key)...)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "exceeds 1 MiB") {
		t.Fatalf("declared 2 MiB body: %d %s", status, body)
	}
	// Chunked: no Content-Length, so the limit is met while reading.
	req, _ := http.NewRequest("POST", e.srv.URL+mcp.Path, io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	for i := 0; i+1 < len(mcpHeaders(f.Agent.Key)); i += 2 {
		req.Header.Set(mcpHeaders(f.Agent.Key)[i], mcpHeaders(f.Agent.Key)[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var rpc struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if res.StatusCode < 400 || json.Unmarshal(raw, &rpc) != nil || !strings.Contains(rpc.Error.Message, "too large") {
		t.Fatalf("chunked 2 MiB body: %d %s", res.StatusCode, raw)
	}
	// Nothing was stored.
	status, out := e.rest(t, "GET", "/documents", f.Agent.Key, "")
	if status != http.StatusOK || len(out["data"].([]any)) != 0 {
		t.Fatalf("documents after refused bodies: %d %v", status, out)
	}
	// A body just under the limit still works.
	small := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"pad":"` + strings.Repeat("x", 1<<19) + `"}}}`
	if status, _, body := e.post(t, "POST", mcp.Path, small, mcpHeaders(f.Agent.Key)...); status != http.StatusOK {
		t.Fatalf("512 KiB body: %d %s", status, body)
	}
}

// TestOriginCheck: PUBLIC_URL is loopback in tests, so a browser Origin that is not
// loopback is refused (DNS rebinding) unless MCP_ALLOWED_ORIGINS lists it.
func TestOriginCheck(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.allowedOrigins = []string{"https://App.Example"} })
	f := storetest.Workspace(t, e.store, nil)
	cases := []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"http://localhost:6274", http.StatusOK},
		{"http://127.0.0.1:3000", http.StatusOK},
		{"http://[::1]:3000", http.StatusOK},
		{"https://app.example", http.StatusOK},
		{"http://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.origin, func(t *testing.T) {
			h := mcpHeaders(f.Agent.Key)
			if c.origin != "" {
				h = append(h, "Origin", c.origin)
			}
			status, _, body := e.post(t, "POST", mcp.Path, initialize, h...)
			if status != c.want {
				t.Fatalf("%d %s, want %d", status, body, c.want)
			}
			if c.origin == "" {
				return
			}
			status, _, _ = e.post(t, "OPTIONS", mcp.Path, "", "Origin", c.origin, "Access-Control-Request-Method", "POST")
			if (status == http.StatusForbidden) != (c.want == http.StatusForbidden) {
				t.Fatalf("preflight from %s: %d", c.origin, status)
			}
		})
	}
}
