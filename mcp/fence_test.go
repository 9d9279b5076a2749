package mcp_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// rpcAnswer is a JSON-RPC answer: a tool's result or a protocol error.
type rpcAnswer struct {
	Result struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// callOn posts one tools/call on path (2025-06-18, so a catalogue tool takes the direct
// path) and decodes the answer.
func (e *env) callOn(t testing.TB, path, bearer, tool, args string, headers ...string) rpcAnswer {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	h := append(mcpHeaders(bearer), "MCP-Protocol-Version", mcpgo.ProtocolVersion20250618)
	status, _, raw := e.post(t, "POST", path, body, append(h, headers...)...)
	var a rpcAnswer
	if err := json.Unmarshal(raw, &a); status != http.StatusOK || err != nil {
		t.Fatalf("%s on %s: %d %s", tool, path, status, raw)
	}
	return a
}

// TestBoundTokenGetsExactlyItsView: a token bound to an MCP view (RFC 8707) gets that
// view and no more: X-MCP-Toolsets and X-MCP-Readonly narrow
// it but never widen it; a tool outside it, called directly or through call_tool,
// answers as a tool that does not exist; find_tools and search stay inside it. An
// unbound token on the same path keeps reaching every tool it may use.
func TestBoundTokenGetsExactlyItsView(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	bound := func(path string) string {
		p := *f.Admin
		p.Scopes = workspace.Scopes()
		p.Credential.Resource = e.srv.URL + path
		return e.token(&p)
	}
	companies, readonly, whole := bound("/mcp/x/companies"), bound("/mcp/readonly"), bound("/mcp")
	unbound := func() string { p := *f.Admin; p.Scopes = workspace.Scopes(); return e.token(&p) }()
	pipeline := e.mustCreate(t, unbound, "pipelines", `{"name":"Sales"}`)["id"].(string)
	e.mustCreate(t, unbound, "deals", `{"name":"Fenceline deal","pipeline_id":"`+pipeline+`"}`)
	e.mustCreate(t, unbound, "companies", `{"name":"Fenceline Ltd"}`)

	// Listing: headers cannot add toolsets or lift read-only; they can narrow.
	lists := []struct {
		path, bearer string
		headers      []string
		want, absent string
	}{
		{"/mcp/x/companies", companies, []string{"X-MCP-Toolsets", "deals,hr"}, "create_companies", "list_deals"},
		{"/mcp/x/companies", companies, []string{"X-MCP-Toolsets", "all"}, "create_companies", "list_deals"},
		{"/mcp/readonly", readonly, []string{"X-MCP-Readonly", "false"}, "list_deals", "create_deals"},
		{"/mcp/readonly", readonly, []string{"X-MCP-Toolsets", "all"}, "list_departments", "create_departments"},
		{"/mcp", whole, []string{"X-MCP-Toolsets", "all"}, "list_departments", "no such tool"},
		{"/mcp", whole, []string{"X-MCP-Toolsets", "companies"}, "create_companies", "list_deals"},
		{"/mcp", whole, []string{"X-MCP-Readonly", "true"}, "list_deals", "create_deals"},
	}
	for _, c := range lists {
		names, _ := e.listTools(t, c.path, c.bearer, c.headers...)
		if !slices.Contains(names, c.want) || slices.Contains(names, c.absent) {
			t.Errorf("%s %v: tools %v; want %s, not %s", c.path, c.headers, names, c.want, c.absent)
		}
	}

	// Calling outside the view answers as an unknown tool does, directly and through
	// call_tool; the same call with an unbound token on the same path runs.
	unknown := e.callOn(t, "/mcp/x/companies", companies, "get_nothing", `{}`)
	if unknown.Error == nil {
		t.Fatalf("unknown tool answered %+v", unknown)
	}
	for _, c := range []struct{ path, bearer, tool, args string }{
		{"/mcp/x/companies", companies, "list_deals", `{}`},
		{"/mcp/x/companies", companies, "create_deals", `{"name":"Widened","pipeline_id":"` + pipeline + `"}`},
		{"/mcp/readonly", readonly, "create_companies", `{"name":"Widened"}`},
	} {
		for _, headers := range [][]string{nil, {"X-MCP-Toolsets", "all", "X-MCP-Readonly", "false"}} {
			got := e.callOn(t, c.path, c.bearer, c.tool, c.args, headers...)
			want := strings.Replace(unknown.Error.Message, "get_nothing", c.tool, 1)
			if got.Error == nil || got.Error.Code != unknown.Error.Code || got.Error.Message != want {
				t.Errorf("%s on %s %v: %+v, want error %d %q", c.tool, c.path, headers, got, unknown.Error.Code, want)
			}
			args, _ := json.Marshal(map[string]any{"name": c.tool, "arguments": json.RawMessage(c.args)})
			viaCall := e.callOn(t, c.path, c.bearer, "call_tool", string(args), headers...)
			if !viaCall.Result.IsError || !strings.Contains(viaCall.Result.Content[0].Text, `"error":"unknown_tool"`) {
				t.Errorf("call_tool %s on %s %v: %+v, want unknown_tool", c.tool, c.path, headers, viaCall)
			}
		}
	}
	if got := e.callOn(t, "/mcp/x/companies", unbound, "list_deals", `{}`); got.Error != nil || got.Result.IsError {
		t.Errorf("unbound token calling list_deals on /mcp/x/companies: %+v", got)
	}
	_, list := e.rest(t, "GET", "/companies?limit=100", unbound, "")
	_, deals := e.rest(t, "GET", "/deals?limit=100", unbound, "")
	if n := strings.Count(jsonText(list)+jsonText(deals), "Widened"); n != 0 {
		t.Errorf("%d records written outside a bound view", n)
	}

	// find_tools finds nothing outside the view; search reads nothing outside it.
	found := e.callOn(t, "/mcp/x/companies", companies, "find_tools", `{"query":"create a deal or a company","limit":20}`)
	if text := found.Result.Content[0].Text; found.Result.IsError || strings.Contains(text, "_deals") || !strings.Contains(text, "_companies") {
		t.Errorf("find_tools on a companies-bound token: %s", text)
	}
	for _, args := range []string{`{"q":"fenceline"}`, `{"q":"fenceline","types":["deals","companies"]}`} {
		got := e.callOn(t, "/mcp/x/companies", companies, "search", args)
		hits := string(got.Result.StructuredContent)
		if got.Result.IsError || strings.Contains(hits, `"type":"deals"`) || !strings.Contains(hits, `"type":"companies"`) {
			t.Errorf("search %s on a companies-bound token: %s", args, hits)
		}
		if got := e.callOn(t, "/mcp/x/companies", unbound, "search", args); !strings.Contains(string(got.Result.StructuredContent), `"type":"deals"`) {
			t.Errorf("search %s unbound: %s", args, got.Result.StructuredContent)
		}
	}
}

// jsonText is a decoded REST body as JSON text.
func jsonText(v map[string]any) string { b, _ := json.Marshal(v); return string(b) }
