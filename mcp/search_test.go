package mcp_test

import (
	"slices"
	"testing"

	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store/storetest"
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
	f := storetest.Workspace(t, e.store, restapi.Scopes())
	admin := *f.Admin
	admin.Scopes = restapi.Scopes()
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
