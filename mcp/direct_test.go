package mcp_test

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestDirectCallAnswersAsMCPGo: a plain tools/call is answered by the direct path
// (mcp/direct.go) with the response mcp-go gives for the same request (status, headers,
// JSON-RPC body), and everything the direct path does not handle reaches mcp-go.
func TestDirectCallAnswersAsMCPGo(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	key := f.Agent.Key
	deal := e.mustCreate(t, key, "deals", `{"name":"Acme <&>","pipeline_id":"`+
		e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)+`","value":1200.5}`)["id"].(string)

	fellBack := false
	direct := mcp.DirectHandler(e.mcp, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fellBack = true
		mcp.MCPGoHandler(e.mcp).ServeHTTP(w, r)
	}))
	reference := mcp.MCPGoHandler(e.mcp)

	call := func(id, name, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	cases := []struct {
		name, body, version string
		direct              bool
	}{
		{"read", call(`1`, "get_deals", `{"id":"`+deal+`"}`), "2025-06-18", true},
		{"read, names escaped", `{"jsonrpc":"2.0","id":13,"method":"tools\/call","params":{"name":"get\u005fdeals","arguments":{"id":"` + deal + `"}}}`, "2025-06-18", true},
		{"read without a version header, string id", call(`"a-1"`, "get_deals", `{"id":"`+deal+`"}`), "", true},
		{"list", call(`2`, "list_deals", `{"limit":1}`), "2025-11-25", true},
		{"write", call(`3`, "update_deals", `{"id":"`+deal+`","notes":"line\nbreak \u00e9"}`), "2025-06-18", true},
		{"tool error", call(`4`, "get_deals", `{"id":"00000000-0000-0000-0000-000000000000"}`), "2025-06-18", true},
		{"bad arguments", call(`5`, "get_deals", `{"id":5}`), "2025-06-18", true},
		{"arguments not an object", call(`6`, "get_deals", `[1]`), "2025-06-18", true},
		{"unknown tool", call(`7`, "get_nothing", `{}`), "2025-06-18", false},
		{"bad params", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":5}}`, "2025-06-18", false},
		{"call_tool", call(`9`, "call_tool", `{"name":"get_deals","arguments":{"id":"`+deal+`"}}`), "2025-06-18", false},
		{"fractional id", call(`1.5`, "get_deals", `{"id":"`+deal+`"}`), "2025-06-18", false},
		{"batch", "[" + call(`10`, "get_deals", `{"id":"`+deal+`"}`) + "]", "2025-06-18", false},
		{"unsupported version", call(`11`, "get_deals", `{"id":"`+deal+`"}`), "1999-01-01", false},
		{"modern version", call(`12`, "get_deals", `{"id":"`+deal+`"}`), "2026-07-28", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fellBack = false
			got := serve(t, direct, c.body, key, c.version)
			if fellBack == c.direct {
				t.Fatalf("direct path taken: %v, want %v", !fellBack, c.direct)
			}
			want := serve(t, reference, c.body, key, c.version)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("direct path and mcp-go disagree (-mcp-go +direct):\n%s", diff)
			}
		})
	}
}

// answer is what a client sees of a response: status, the headers that carry meaning and
// the decoded body.
type answer struct {
	Status                 int
	ContentType, SessionID string
	RequestID              string
	Body                   any
}

// serve posts body to h as a client on version would and reads the answer, with
// updated_at (which a second update moves) blanked.
func serve(t *testing.T, h http.Handler, body, bearer, version string) answer {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+mcp.Path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+bearer)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Session-Id", "client-session")
	r.Header.Set("X-Request-Id", "req-direct-test")
	if version != "" {
		r.Header.Set("MCP-Protocol-Version", version)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	a := answer{Status: w.Code, ContentType: w.Header().Get("Content-Type"), SessionID: w.Header().Get("Mcp-Session-Id"),
		RequestID: w.Header().Get("X-Request-Id")}
	if err := json.Unmarshal(w.Body.Bytes(), &a.Body); err != nil {
		a.Body = w.Body.String()
	}
	blankUpdatedAt(a.Body)
	return a
}

// blankUpdatedAt removes updated_at from every object, including the JSON held in
// content text, and its line from the text's compact rendering (render.go).
func blankUpdatedAt(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "updated_at")
		for k, x := range v {
			if s, ok := x.(string); ok && k == "text" && strings.HasPrefix(s, "{") {
				var inner any
				if json.Unmarshal([]byte(s), &inner) == nil {
					blankUpdatedAt(inner)
					v[k] = inner
				}
				continue
			}
			if s, ok := x.(string); ok && k == "text" {
				lines := strings.Split(s, "\n")
				lines = slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "updated_at: ") })
				v[k] = strings.Join(lines, "\n")
				continue
			}
			blankUpdatedAt(x)
		}
	case []any:
		for _, x := range v {
			blankUpdatedAt(x)
		}
	}
}

// TestIsMediaTypeAsMIME: the direct path's Content-Type and Accept check reads a header
// value as mime.ParseMediaType does, its fast path for bare types included.
func TestIsMediaTypeAsMIME(t *testing.T) {
	for _, v := range []string{"application/json", " APPLICATION/Json ", "application/json; charset=utf-8",
		"application/json;charset=\"utf-8\"", "application/json;", "application/json; =x", "application/jſon",
		"application/jsonx", "text/event-stream", "application/*", "*/*", "", "application/json\"", "application/ json"} {
		for _, want := range []string{"application/json", "application/*", "*/*"} {
			mt, _, err := mime.ParseMediaType(v)
			if got, ref := mcp.IsMediaType(v, want), err == nil && mt == want; got != ref {
				t.Errorf("isMediaType(%q, %q) = %v, mime.ParseMediaType reads %q (%v)", v, want, got, mt, err)
			}
		}
	}
}
