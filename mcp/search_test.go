package mcp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// foundNames runs find_tools and returns the names it answers, best first.
func foundNames(t testing.TB, res map[string]any) []string {
	t.Helper()
	var names []string
	for _, tl := range res["tools"].([]any) {
		m := tl.(map[string]any)
		if m["description"] == "" || m["inputSchema"] == nil {
			t.Fatalf("find_tools answer without description or input schema: %v", m)
		}
		names = append(names, m["name"].(string))
	}
	return names
}

// TestFindToolsRanking: plain-language requests find the right tool in the top three,
// deterministically, for an admin who may use every tool.
func TestFindToolsRanking(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := *f.Admin
	admin.Scopes = workspace.Scopes()
	c := e.client(t, e.token(&admin), "")
	cases := []struct{ query, want string }{
		{"log a leave request", "create_leave_requests"},
		{"move a deal to another stage", "update_deals"},
		{"who is on the team", "list_users"},
		{"add a label to a deal", "create_deal_labels"},
		{"record an invoice", "create_income"},
		{"mark a task as done", "update_tasks"},
		{"find a contact's phone number", "list_people"},
		{"how many credits are left", "list_credits"},
		{"unlink a person from a deal", "detach_deal_people"},
		{"look up a company by its domain", "enrich_company"},
		{"pay off part of a debt", "create_debt_payments"},
		{"post a status update in a client space", "create_space_updates"},
		{"comment on a task", "create_comments"},
		{"what changed on this deal recently", "list_activity"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			got := foundNames(t, wantOK(t, call(t, c, "find_tools", map[string]any{"query": tc.query})))
			again := foundNames(t, wantOK(t, call(t, c, "find_tools", map[string]any{"query": tc.query})))
			if !slices.Equal(got, again) {
				t.Fatalf("not deterministic: %v then %v", got, again)
			}
			if i := slices.Index(got, tc.want); i < 0 || i > 2 {
				t.Fatalf("%s not in the top 3 of %v", tc.want, got)
			}
		})
	}
}

// TestFindToolsFilters: find_tools offers only what the caller may use: nothing its grants
// refuse, and no writes on a readonly view; every toolset is searched.
func TestFindToolsFilters(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	find := func(c *client.Client, query string) []string {
		return foundNames(t, wantOK(t, call(t, c, "find_tools", map[string]any{"query": query, "limit": 20})))
	}
	member := e.client(t, e.token(f.Member), "")
	for _, n := range find(member, "list the deals in the pipeline") {
		if strings.Contains(n, "deal") {
			t.Fatalf("a member without the crm grant is offered %s", n)
		}
	}
	if got := find(member, "show the spaces"); !slices.Contains(got, "list_spaces") {
		t.Fatalf("find_tools searches outside the listed toolsets: %v", got)
	}
	ro := e.client(t, f.Agent.Key, "", mcp.HeaderReadonly, "true")
	got := find(ro, "add a label to a deal")
	for _, n := range got {
		if !strings.HasPrefix(n, "list_") && !strings.HasPrefix(n, "get_") && n != "me" {
			t.Fatalf("a readonly view is offered %s", n)
		}
	}
	if len(got) == 0 {
		t.Fatal("a readonly view should still find the reads")
	}
	wantToolError(t, call(t, ro, "find_tools", map[string]any{"query": " "}), "bad_request")
}

// TestCallToolParity: call_tool answers exactly what the direct tool answers: the same
// read, the same write (recorded in activity the same way), the same gate refusal and the
// same readonly refusal; unknown names and the meta tools are refused.
func TestCallToolParity(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.client(t, f.Agent.Key, "")
	label := e.mustCreate(t, f.Agent.Key, "labels", `{"name":"VIP"}`)["id"].(string)
	via := func(c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
		return call(t, c, "call_tool", map[string]any{"name": name, "arguments": args})
	}

	// A read.
	direct := wantOK(t, call(t, c, "get_labels", map[string]any{"id": label}))
	if diff := cmp.Diff(direct, wantOK(t, via(c, "get_labels", map[string]any{"id": label}))); diff != "" {
		t.Fatalf("get_labels through call_tool (-direct +call_tool):\n%s", diff)
	}
	// A write, and its activity.
	a := wantOK(t, call(t, c, "create_labels", map[string]any{"name": "Direct"}))
	b := wantOK(t, via(c, "create_labels", map[string]any{"name": "Relayed"}))
	for _, k := range []string{"id", "name", "created_at", "updated_at"} {
		delete(a, k)
		delete(b, k)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("create_labels through call_tool (-direct +call_tool):\n%s", diff)
	}
	acts := wantOK(t, call(t, c, "list_activity", map[string]any{"entity_type": "labels"}))["data"].([]any)
	if len(acts) != 3 || acts[0].(map[string]any)["action"] != "created" ||
		acts[0].(map[string]any)["changes"].(map[string]any)["name"] != "Relayed" {
		t.Fatalf("want an activity row for each create (REST, direct, relayed), got %v", acts)
	}
	// Errors: validation, a scope the credential lacks, a feature grant the member lacks.
	sameError := func(c *client.Client, code, name string, args map[string]any) {
		t.Helper()
		d := wantToolError(t, call(t, c, name, args), code)
		r := wantToolError(t, via(c, name, args), code)
		if d["message"] != r["message"] {
			t.Fatalf("%s: direct says %q, call_tool says %q", name, d["message"], r["message"])
		}
	}
	sameError(c, "validation_error", "get_labels", map[string]any{})
	narrow := storetest.AddUser(t, e.store, f.WorkspaceID, "member", map[string]string{"crm": "full"}, []string{"labels:read"})
	sameError(e.client(t, e.token(narrow), ""), "insufficient_scope", "create_labels", map[string]any{"name": "x"})
	sameError(e.client(t, e.token(f.Member), ""), "insufficient_permission", "list_deals", nil)
	// Readonly: the direct write and the relayed one are refused alike, reads still work.
	ro := e.client(t, f.Agent.Key, "", mcp.HeaderReadonly, "true")
	sameError(ro, "read_only", "create_labels", map[string]any{"name": "x"})
	wantOK(t, via(ro, "get_labels", map[string]any{"id": label}))
	// Only catalogue tools and me can be called.
	for _, name := range []string{"no_such_tool", "call_tool", "find_tools"} {
		wantToolError(t, via(c, name, nil), "unknown_tool")
	}
	wantOK(t, via(c, "me", nil))
}
