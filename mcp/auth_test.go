package mcp_test

import (
	"encoding/json"
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
	var scopes []any
	for _, s := range workspace.Scopes() {
		scopes = append(scopes, s)
	}
	if len(scopes) != 33 {
		t.Fatalf("%d scopes, want the catalogue's 33", len(scopes))
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
// document; a token bound to /mcp or to the origin works on every MCP path.
func TestChallengeNamesThePathMetadata(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	status, h, _ := e.post(t, "POST", "/mcp/x/hr/readonly", initialize, mcpHeaders("")...)
	want := `Bearer resource_metadata="` + e.srv.URL + `/.well-known/oauth-protected-resource/mcp/x/hr/readonly"`
	if status != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), want) {
		t.Fatalf("%d %q, want 401 starting %s", status, h.Get("WWW-Authenticate"), want)
	}
	for _, resource := range []string{e.srv.URL + "/mcp", e.srv.URL, e.srv.URL + "/mcp/x/deals"} {
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

func TestCORSPreflight(t *testing.T) {
	e := newEnv(t)
	status, h, body := e.post(t, "OPTIONS", mcp.Path, "", "Origin", "http://localhost:6274",
		"Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version, mcp-session-id")
	if status != http.StatusNoContent {
		t.Fatalf("preflight without credentials: %d %s", status, body)
	}
	if h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("headers %v", h)
	}
	allowed := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
	for _, want := range []string{"authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name",
		"last-event-id", "x-mcp-toolsets", "x-mcp-readonly"} {
		if !strings.Contains(allowed, want) {
			t.Fatalf("Access-Control-Allow-Headers %q lacks %s", allowed, want)
		}
	}
	exposed := h.Get("Access-Control-Expose-Headers")
	for _, want := range []string{"WWW-Authenticate", "Mcp-Session-Id"} {
		if !strings.Contains(exposed, want) {
			t.Fatalf("Access-Control-Expose-Headers %q lacks %s", exposed, want)
		}
	}
}
