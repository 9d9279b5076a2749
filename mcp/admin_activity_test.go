package mcp_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestAdminOnlyActivityHiddenFromMembers: the activity records about every resource the
// catalogue makes admin-only, and about the administration entities only admins may see
// (docs/console.md, "Audit log"), are admins' alone, through REST and MCP; a member with
// activity:read sees none of them. Each entity type gets a record as its writes leave one
// (the activity trigger's columns); the admin seeing them keeps the test from passing on
// an empty log.
func TestAdminOnlyActivityHiddenFromMembers(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	member := storetest.AddUser(t, e.store, f.WorkspaceID, "member", map[string]string{"crm": "full", "agents": "full"},
		workspace.Scopes())
	var entities []string
	for _, r := range workspace.Catalog() {
		if r.AdminOnly {
			entities = append(entities, r.Name)
		}
	}
	if len(entities) == 0 {
		t.Fatal("the catalogue has no admin-only resource")
	}
	entities = append(entities, store.AdminOnlyEntities()...)
	ctx := context.Background()
	for _, et := range entities {
		if _, err := storetest.Pool(t).Exec(ctx, `INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes)
			VALUES ($1, $2, gen_random_uuid(), 'created', $3, '{"note": "admin only"}')`, f.WorkspaceID, et, f.Admin.UserID); err != nil {
			t.Fatal(err)
		}
	}
	// And the records a real webhook endpoint's create and update leave.
	endpointActivity(t, e, f.Admin)

	adminREST, memberREST := e.token(f.Admin), e.token(member)
	adminMCP, memberMCP := e.client(t, e.token(f.Admin), ""), e.client(t, e.token(member), "")
	restRows := func(bearer, et string) int {
		t.Helper()
		status, out := e.rest(t, "GET", "/activity?limit=200&"+url.Values{"entity_type": {et}}.Encode(), bearer, "")
		if status != http.StatusOK {
			t.Fatalf("GET /activity?entity_type=%s: %d %v", et, status, out)
		}
		return len(out["data"].([]any))
	}
	for _, et := range entities {
		t.Run(et, func(t *testing.T) {
			if n := restRows(adminREST, et); n == 0 {
				t.Fatalf("the admin sees no %s activity over REST", et)
			}
			if n := restRows(memberREST, et); n != 0 {
				t.Errorf("a member sees %d %s activity records over REST", n, et)
			}
			if n := len(wantOK(t, call(t, adminMCP, "list_activity", map[string]any{"entity_type": et}))["data"].([]any)); n == 0 {
				t.Fatalf("the admin sees no %s activity over MCP", et)
			}
			if n := len(wantOK(t, call(t, memberMCP, "list_activity", map[string]any{"entity_type": et}))["data"].([]any)); n != 0 {
				t.Errorf("a member sees %d %s activity records over MCP", n, et)
			}
		})
	}
	// Unfiltered, too: a member's whole log names none of them.
	status, out := e.rest(t, "GET", "/activity?limit=200", memberREST, "")
	if status != http.StatusOK {
		t.Fatalf("GET /activity: %d %v", status, out)
	}
	for _, row := range out["data"].([]any) {
		if et := row.(map[string]any)["entity_type"].(string); slices.Contains(entities, et) {
			t.Errorf("a member's unfiltered log shows a %s record", et)
		}
	}
}

// endpointActivity creates and updates a webhook endpoint as admin, with secrets in the
// URL's path and query as chat services' hook URLs carry them, and returns its id.
func endpointActivity(t *testing.T, e *env, admin *auth.Principal) string {
	t.Helper()
	endpoint := e.mustCreate(t, e.token(admin), "webhook_endpoints", `{"url": "https://93.184.216.34:8443/services/T0/B0/secret1"}`)
	id := endpoint["id"].(string)
	if status, out := e.rest(t, "PATCH", "/webhook_endpoints/"+id, e.token(admin),
		`{"url": "https://93.184.216.34/hook?token=secret2#frag"}`); status != http.StatusOK {
		t.Fatalf("update endpoint: %d %v", status, out)
	}
	return id
}

// TestActivityRedactsEndpointURLs: a webhook endpoint's URL is its credential (chat
// services put the token in the path or the query), so activity keeps only its scheme,
// host and port, even for admins: over REST, over MCP, and for a record written directly
// with credentials in the URL.
func TestActivityRedactsEndpointURLs(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	id := endpointActivity(t, e, f.Admin)
	if _, err := storetest.Pool(t).Exec(context.Background(), `INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes)
		VALUES ($1, 'webhook_endpoints', $2, 'updated', $3, '{"url": "https://user:secret3@93.184.216.34/"}')`,
		f.WorkspaceID, id, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"https://93.184.216.34:8443/[redacted]": true, "https://93.184.216.34/[redacted]": true,
		"https://93.184.216.34/": true}
	check := func(how string, rows []any) {
		t.Helper()
		got := map[string]bool{}
		for _, row := range rows {
			changes := row.(map[string]any)["changes"].(map[string]any)
			if u, ok := changes["url"].(string); ok {
				got[u] = true
			}
		}
		for u := range got {
			if strings.Contains(u, "secret") || !want[u] {
				t.Errorf("%s: activity shows the URL %q", how, u)
			}
		}
		for u := range want {
			if !got[u] {
				t.Errorf("%s: no activity record shows %q; got %v", how, u, got)
			}
		}
	}
	status, out := e.rest(t, "GET", "/activity?entity_type=webhook_endpoints&entity_id="+id, e.token(f.Admin), "")
	if status != http.StatusOK {
		t.Fatalf("GET /activity: %d %v", status, out)
	}
	check("REST", out["data"].([]any))
	c := e.client(t, e.token(f.Admin), "")
	check("MCP", wantOK(t, call(t, c, "list_activity", map[string]any{"entity_type": "webhook_endpoints", "entity_id": id}))["data"].([]any))
}
