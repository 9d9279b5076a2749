package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestMetaToolArgumentsBounded: find_tools' query and call_tool's name are free text a
// model (or anyone with any token) sends; over their bounds they are a tool error naming
// the bound, answered before any ranking (unbounded, a 1 MB query cost 0.3-1.1 s of
// CPU per call). The bounds are in the tools' input schemas too.
func TestMetaToolArgumentsBounded(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.client(t, f.Agent.Key, "")
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"a 1 MB query", "find_tools", map[string]any{"query": strings.Repeat("deal ", 200_000)}},
		{"a query over 300 characters", "find_tools", map[string]any{"query": strings.Repeat("x", 301)}},
		{"a query over 300 characters, not bytes", "find_tools", map[string]any{"query": strings.Repeat("é", 301)}},
		{"a query of more than 30 words", "find_tools", map[string]any{"query": strings.TrimSpace(strings.Repeat("a ", 31))}},
		{"a tool name over 100 characters", "call_tool", map[string]any{"name": strings.Repeat("list_deals", 11)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := wantToolError(t, call(t, c, tc.tool, tc.args), "bad_request")
			if msg := body["message"].(string); !strings.Contains(msg, "at most") {
				t.Fatalf("the message does not name the bound: %s", msg)
			}
		})
	}
	// At the bounds, the query is ranked.
	ok := strings.TrimSpace(strings.Repeat("deal ", 30))
	if n := utf8.RuneCountInString(ok); n > 300 {
		t.Fatalf("%d characters", n)
	}
	wantOK(t, call(t, c, "find_tools", map[string]any{"query": ok}))
	wantOK(t, call(t, c, "find_tools", map[string]any{"query": strings.Repeat("é", 300)}))

	// The schemas say so.
	status, _, raw := e.post(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		append(mcpHeaders(f.Agent.Key), "MCP-Protocol-Version", "2025-06-18")...)
	if status != http.StatusOK {
		t.Fatalf("tools/list: %d %s", status, raw)
	}
	var list struct {
		Result struct {
			Tools []struct {
				Name        string `json:"name"`
				InputSchema struct {
					Properties map[string]struct {
						MaxLength *int `json:"maxLength"`
					} `json:"properties"`
				} `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"find_tools.query": 300, "call_tool.name": 100}
	for _, tl := range list.Result.Tools {
		for arg, p := range tl.InputSchema.Properties {
			if bound, ok := want[tl.Name+"."+arg]; ok {
				if p.MaxLength == nil || *p.MaxLength != bound {
					t.Errorf("%s.%s: maxLength %v, want %d", tl.Name, arg, p.MaxLength, bound)
				}
				delete(want, tl.Name+"."+arg)
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("tools/list lacks %v", fmt.Sprint(want))
	}
}

// FuzzMetaToolArguments sends generated find_tools and call_tool arguments through the
// HTTP handler (the fuzz run covers the MCP meta tools'
// arguments): every answer is a 200 with a JSON-RPC result, never a protocol error or a
// 5xx, and a query over its bounds is a tool error.
func FuzzMetaToolArguments(f *testing.F) {
	e := newEnv(f)
	fx := storetest.Workspace(f, e.store, workspace.Scopes())
	headers := append(mcpHeaders(fx.Agent.Key), "MCP-Protocol-Version", "2025-06-18")
	for _, seed := range []struct {
		query, name string
		limit       int
	}{
		{"log a leave request", "list_deals", 5}, {"", "", 0}, {"\x00", "\x00", -1}, {strings.Repeat("x", 301), strings.Repeat("y", 101), 21},
		{strings.Repeat("a ", 40), "call_tool", 20}, {"\xff\xfe", "find_tools", 1}, {"é", "get_me", 99999999}, {"deal's", "list_deals\u202e", 3},
	} {
		f.Add(seed.query, seed.name, seed.limit)
	}
	f.Fuzz(func(t *testing.T, query, name string, limit int) {
		for _, params := range []map[string]any{
			{"name": "find_tools", "arguments": map[string]any{"query": query, "limit": limit}},
			{"name": "call_tool", "arguments": map[string]any{"name": name, "arguments": map[string]any{"query": query}}},
		} {
			body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
			if err != nil {
				return // not valid UTF-8 JSON the client could send
			}
			status, _, raw := e.post(t, "POST", "/mcp", string(body), headers...)
			var res struct {
				Result *struct {
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			if status != http.StatusOK || json.Unmarshal(raw, &res) != nil || res.Result == nil {
				t.Fatalf("%s: %d %.300s", body, status, raw)
			}
			if params["name"] == "find_tools" && (utf8.RuneCountInString(query) > 300 || len(strings.Fields(query)) > 30) && !res.Result.IsError {
				t.Fatalf("query of %d characters, %d words was ranked", utf8.RuneCountInString(query), len(strings.Fields(query)))
			}
		}
	})
}
