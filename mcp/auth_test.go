package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func mcpHeaders(bearer string) []string {
	h := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	if bearer != "" {
		h = append(h, "Authorization", "Bearer "+bearer)
	}
	return h
}

// TestChallenge: MCP authorization ("Protected Resource Metadata Discovery") and RFC 6750
// section 3: a 401 names the RFC 9728 document; an error code only when a token was sent.
func TestChallenge(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	other := *f.Admin
	other.Scopes = workspace.Scopes()
	other.Credential.Resource = e.srv.URL + "/v1"
	otherTok := e.token(&other)
	meta := e.srv.URL + "/.well-known/oauth-protected-resource/mcp"
	cases := []struct {
		name, bearer string
		wantErr      string
	}{
		{name: "no credential", bearer: ""},
		{name: "unknown agent key", bearer: "kagt_nope", wantErr: "invalid_token"},
		{name: "unknown token", bearer: tokenPrefix + "nope", wantErr: "invalid_token"},
		{name: "token bound to the REST API", bearer: otherTok, wantErr: "invalid_token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, h, body := e.post(t, "POST", mcp.Path, initialize, mcpHeaders(c.bearer)...)
			if status != http.StatusUnauthorized {
				t.Fatalf("status %d %s, want 401", status, body)
			}
			ch := h.Get("WWW-Authenticate")
			if !strings.HasPrefix(ch, `Bearer resource_metadata="`+meta+`"`) {
				t.Fatalf("challenge %q does not start with the resource_metadata URL", ch)
			}
			if !strings.Contains(ch, `scope="deals:read deals:write `) || strings.Contains(ch, "enrich:write") {
				t.Fatalf("challenge %q: want every scope but enrich:write", ch)
			}
			if got := strings.Contains(ch, `error="invalid_token"`); got != (c.wantErr != "") {
				t.Fatalf("challenge %q: error=invalid_token present %v, want %v", ch, got, c.wantErr != "")
			}
			var env map[string]any
			if err := json.Unmarshal(body, &env); err != nil || env["error"] != "unauthorized" || env["request_id"] != h.Get("X-Request-Id") {
				t.Fatalf("body %s: want the REST envelope with the request id", body)
			}
			if h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
				t.Fatalf("a browser client must be able to read the challenge: %v", h)
			}
		})
	}
	t.Run("token bound to the MCP URL, spelled differently", func(t *testing.T) {
		bound := *f.Admin
		bound.Credential.Resource = strings.Replace(e.srv.URL, "http://", "HTTP://", 1) + "/mcp/"
		c := e.client(t, e.token(&bound), "")
		wantOK(t, call(t, c, "me", nil))
	})
	t.Run("no apikey needed", func(t *testing.T) {
		status, _, body := e.post(t, "POST", mcp.Path, initialize, mcpHeaders(f.Agent.Key)...)
		if status != http.StatusOK {
			t.Fatalf("status %d %s", status, body)
		}
	})
}

// TestProtectedResourceMetadata: RFC 9728 section 3 for every MCP path at the path derived
// from it, naming that path's URL as resource (section 3.3), and the root document naming
// the origin.
func TestProtectedResourceMetadata(t *testing.T) {
	e := newEnv(t)
	var scopes, readScopes []any
	for _, s := range workspace.Scopes() {
		scopes = append(scopes, s)
		if strings.HasSuffix(s, ":read") {
			readScopes = append(readScopes, s)
		}
	}
	if len(scopes) != 35 {
		t.Fatalf("%d scopes, want the catalogue's 35", len(scopes))
	}
	cases := []struct{ path, resource, name string }{
		{"/.well-known/oauth-protected-resource", e.srv.URL, "workspaced"},
		{"/.well-known/oauth-protected-resource/mcp", e.srv.URL + "/mcp", "workspaced MCP tools"},
		{"/.well-known/oauth-protected-resource/mcp/readonly", e.srv.URL + "/mcp/readonly", "workspaced MCP tools"},
		{"/.well-known/oauth-protected-resource/mcp/x/hr", e.srv.URL + "/mcp/x/hr", "workspaced MCP tools"},
		{"/.well-known/oauth-protected-resource/mcp/x/all/readonly", e.srv.URL + "/mcp/x/all/readonly", "workspaced MCP tools"},
		{"/.well-known/oauth-protected-resource/mcp/x/default", e.srv.URL + "/mcp/x/default", "workspaced MCP tools"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			want := map[string]any{
				"resource":                 c.resource,
				"authorization_servers":    []any{e.srv.URL},
				"bearer_methods_supported": []any{"header"},
				"resource_name":            c.name,
				"scopes_supported":         scopes,
			}
			if strings.HasSuffix(c.path, "/readonly") { // read scopes only
				want["scopes_supported"] = readScopes
			}
			status, h, body := e.post(t, "GET", c.path, "", "Origin", "https://app.example")
			if status != http.StatusOK || h.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s %s", status, h.Get("Content-Type"), body)
			}
			if h.Get("Access-Control-Allow-Origin") != "*" {
				t.Fatal("metadata must be readable cross-origin")
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("metadata (-want +got):\n%s", diff)
			}
			status, h, _ = e.post(t, "OPTIONS", c.path, "", "Origin", "https://app.example", "Access-Control-Request-Method", "GET")
			if status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("preflight: %d %v", status, h)
			}
		})
	}
	status, _, _ := e.post(t, "GET", "/.well-known/oauth-protected-resource/mcp/x/nope", "")
	if status != http.StatusNotFound {
		t.Fatalf("metadata of a path that is no MCP view: %d, want 404", status)
	}
}

// TestChallengeNamesThePathMetadata: a 401 on a toolset path names that path's RFC 9728
// document; a token bound to the origin works on every MCP path, one bound to /mcp on
// /mcp and every path under it.
func TestChallengeNamesThePathMetadata(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	status, h, _ := e.post(t, "POST", "/mcp/x/hr/readonly", initialize, mcpHeaders("")...)
	want := `Bearer resource_metadata="` + e.srv.URL + `/.well-known/oauth-protected-resource/mcp/x/hr/readonly"`
	if status != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), want) {
		t.Fatalf("%d %q, want 401 starting %s", status, h.Get("WWW-Authenticate"), want)
	}
	for _, resource := range []string{e.srv.URL + "/mcp", e.srv.URL} {
		bound := *f.Admin
		bound.Credential.Resource = resource
		tok := e.token(&bound)
		for _, path := range []string{"/mcp", "/mcp/x/hr", "/mcp/readonly", "/mcp/x/deals/readonly"} {
			if status, _, body := e.post(t, "POST", path, initialize, mcpHeaders(tok)...); status != http.StatusOK {
				t.Errorf("token bound to %s on %s: %d %s", resource, path, status, body)
			}
		}
	}
}

// TestBoundTokenStaysOnItsPath: RFC 8707: a token bound to an MCP view
// is accepted on that path and the paths under it only; one bound to /mcp/readonly
// creates nothing through /mcp or /mcp/x/companies.
func TestBoundTokenStaysOnItsPath(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	create := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_companies","arguments":{"name":"Bound Ltd"}}}`
	cases := []struct {
		bound   string
		path    string
		allowed bool
	}{
		{"/mcp/readonly", "/mcp/readonly", true},
		{"/mcp/readonly", "/mcp", false},
		{"/mcp/readonly", "/mcp/x/companies", false},
		{"/mcp/readonly", "/mcp/x/companies/readonly", false},
		{"/mcp/x/companies", "/mcp/x/companies", true},
		{"/mcp/x/companies", "/mcp/x/companies/readonly", true},
		{"/mcp/x/companies", "/mcp/x/deals", false},
		{"/mcp/x/companies", "/mcp", false},
		{"/mcp", "/mcp/x/companies", true},
	}
	for _, c := range cases {
		t.Run(c.bound+" on "+c.path, func(t *testing.T) {
			p := *f.Admin
			p.Scopes = workspace.Scopes()
			p.Credential.Resource = e.srv.URL + c.bound
			tok := e.token(&p)
			status, h, body := e.post(t, "POST", c.path, create, append(mcpHeaders(tok), "MCP-Protocol-Version", "2025-06-18")...)
			if !c.allowed {
				if status != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) {
					t.Fatalf("want 401 invalid_token, got %d %q %s", status, h.Get("WWW-Authenticate"), body)
				}
				return
			}
			if status != http.StatusOK {
				t.Fatalf("want 200, got %d %s", status, body)
			}
		})
	}
	admin := *f.Admin
	admin.Scopes = workspace.Scopes()
	_, list := e.rest(t, "GET", "/companies?limit=100", e.token(&admin), "")
	n := strings.Count(fmt.Sprint(list["data"]), "Bound Ltd")
	if n != 2 { // the two allowed calls on write paths
		t.Fatalf("%d companies created, want 2", n)
	}
}

// TestReadonlyViewsAdvertiseReadScopes: a read-only view's RFC 9728 document and 401
// challenge name read scopes only: a client authorizing for it asks for
// no write scope.
func TestReadonlyViewsAdvertiseReadScopes(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/mcp/readonly", "/mcp/x/deals/readonly"} {
		status, _, body := e.post(t, "GET", "/.well-known/oauth-protected-resource"+path, "")
		var doc struct {
			Scopes []string `json:"scopes_supported"`
		}
		if err := json.Unmarshal(body, &doc); status != http.StatusOK || err != nil || len(doc.Scopes) == 0 {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		for _, sc := range doc.Scopes {
			if !strings.HasSuffix(sc, ":read") {
				t.Errorf("%s advertises %s", path, sc)
			}
		}
		_, h, _ := e.post(t, "POST", path, initialize, mcpHeaders("")...)
		ch := h.Get("WWW-Authenticate")
		if !strings.Contains(ch, `scope="deals:read `) || strings.Contains(ch, ":write") {
			t.Errorf("%s challenge %q: want read scopes only", path, ch)
		}
	}
}
