package mcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestStepUpAuthorization: MCP authorization, "Scope Challenge Handling".
// An OAuth token lacking the scope a tool call needs gets HTTP 403 with
// WWW-Authenticate: Bearer error="insufficient_scope", the scopes to authorize for (its own
// and the missing one, so re-authorizing loses nothing) and the resource_metadata URL, as
// GitHub's MCP server answers, so clients step up. Agent keys cannot re-authorize: they keep
// the tool error. find_tools still finds such tools for a token, marked as needing the scope.
//
// Checked over raw HTTP, not with the TypeScript SDK pinned in mcp/testdata/sdk-client
// (1.32.2): it reads this 403 and re-runs auth with the challenge's scope, but auth()
// refreshes first when it holds a refresh token, which keeps the old scopes, so its
// step-up ends in "Server returned 403 after trying upscoping" whatever the server does;
// the SDK's v2 is not pinned here.
func TestStepUpAuthorization(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	p := *f.Admin
	p.Credential.Type = "oauth"
	p.Scopes = []string{"deals:read", "companies:read"}
	tok := e.token(&p)
	headers := append(mcpHeaders(tok), "MCP-Protocol-Version", "2025-06-18")
	meta := e.srv.URL + "/.well-known/oauth-protected-resource/mcp"
	calls := map[string]string{
		"direct":    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_companies","arguments":{"name":"Up Ltd"}}}`,
		"call_tool": `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"create_companies","arguments":{"name":"Up Ltd"}}}}`,
	}
	for name, body := range calls {
		for _, version := range []string{"2025-06-18", "2025-03-26"} {
			t.Run(name+" "+version, func(t *testing.T) {
				h := append(mcpHeaders(tok), "MCP-Protocol-Version", version)
				status, rh, raw := e.post(t, "POST", "/mcp", body, h...)
				if status != http.StatusForbidden {
					t.Fatalf("want 403, got %d %s", status, raw)
				}
				ch := rh.Get("WWW-Authenticate")
				for _, want := range []string{`Bearer `, `error="insufficient_scope"`, `scope="deals:read companies:read companies:write"`,
					`resource_metadata="` + meta + `"`} {
					if !strings.Contains(ch, want) {
						t.Fatalf("challenge %q lacks %s", ch, want)
					}
				}
				var env map[string]any
				if json.Unmarshal(raw, &env) != nil || env["error"] != "insufficient_scope" || env["request_id"] == "" {
					t.Fatalf("body %s: want the envelope", raw)
				}
			})
		}
	}
	t.Run("a call the token's scopes allow", func(t *testing.T) {
		status, _, raw := e.post(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_deals","arguments":{}}}`, headers...)
		if status != http.StatusOK || strings.Contains(string(raw), `"isError":true`) {
			t.Fatalf("%d %s", status, raw)
		}
	})
	t.Run("on a read-only view a write stays a read_only tool error", func(t *testing.T) {
		status, _, raw := e.post(t, "POST", "/mcp/readonly", calls["direct"], headers...)
		if status != http.StatusOK || !strings.Contains(string(raw), `read_only`) {
			t.Fatalf("%d %s", status, raw)
		}
	})
	t.Run("an agent key keeps the tool error", func(t *testing.T) {
		key := *f.Admin // an agent key's principal
		key.Scopes = p.Scopes
		status, _, raw := e.post(t, "POST", "/mcp", calls["direct"], append(mcpHeaders(e.token(&key)), "MCP-Protocol-Version", "2025-06-18")...)
		if status != http.StatusOK || !strings.Contains(string(raw), `insufficient_scope`) || !strings.Contains(string(raw), `"isError":true`) {
			t.Fatalf("%d %s", status, raw)
		}
	})
	t.Run("find_tools finds it, marked as needing the scope", func(t *testing.T) {
		c := e.client(t, tok, "")
		res := wantOK(t, call(t, c, "find_tools", map[string]any{"query": "create a company", "limit": 20}))
		var found bool
		for _, tl := range res["tools"].([]any) {
			m := tl.(map[string]any)
			switch m["name"] {
			case "create_companies":
				found = m["needs_scope"] == "companies:write"
			case "list_companies":
				if _, ok := m["needs_scope"]; ok {
					t.Fatalf("list_companies marked: %v", m)
				}
			}
		}
		if !found {
			t.Fatalf("create_companies not found with needs_scope companies:write: %v", res)
		}
	})
}
