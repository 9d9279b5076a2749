package console_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// auditRow is one activity row as the database holds it.
type auditRow struct {
	EntityType, EntityID, Action, ActorID, Credential, Via, Changes string
}

// auditRows returns the workspace's activity rows made through via, oldest first.
func (e *env) auditRows(via string) []auditRow {
	e.t.Helper()
	rows, err := storetest.Pool(e.t).Query(context.Background(), `SELECT entity_type, coalesce(entity_id::text, ''), action,
			coalesce(actor_id::text, ''), coalesce(credential, ''), coalesce(via, ''), changes::text
		FROM activity WHERE workspace_id = $1 AND via = $2 ORDER BY created_at, id`, e.WorkspaceID, via)
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[auditRow])
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// findAudit returns the record made through via whose entity id and changes hold each of
// parts, failing the test when there is none.
func (e *env) findAudit(via string, parts ...string) auditRow {
	e.t.Helper()
	for _, r := range e.auditRows(via) {
		all := true
		for _, p := range parts {
			all = all && (strings.Contains(r.Changes, p) || r.EntityID == p)
		}
		if all {
			return r
		}
	}
	e.t.Fatalf("no %s record with %q", via, parts)
	return auditRow{}
}

var consoleCredential = regexp.MustCompile(`^console:[0-9a-f]{16}$`)

// TestConsoleActionsAudited: every console action writes its audit records in its own
// transaction, naming the signed-in admin, the console session and via=console; a refused
// action (bad input, another workspace's ids) writes none.
func TestConsoleActionsAudited(t *testing.T) {
	e := newEnv(t)
	a := e.agent().signIn(e.Admin)
	post := func(from, path string, form url.Values, want int) page {
		t.Helper()
		p := a.form(from, path, form)
		if p.Status != want {
			t.Fatalf("POST %s: %d, want %d: %.300s", path, p.Status, want, p.Body)
		}
		return p
	}
	expect := func(what string, want ...string) {
		t.Helper()
		got := e.auditRows(store.ViaConsole)
		var kinds []string
		for _, r := range got {
			kinds = append(kinds, r.Action+" "+r.EntityType)
			if r.ActorID != e.Admin.ID && r.EntityType != store.EntityOAuthConnected || !consoleCredential.MatchString(r.Credential) {
				t.Fatalf("%s: record without the admin or the session: %+v", what, r)
			}
		}
		// Records of one transaction share their time: compare them as a set.
		slices.Sort(kinds)
		want = slices.Sorted(slices.Values(want))
		if strings.Join(kinds, ", ") != strings.Join(want, ", ") {
			t.Fatalf("%s: console records\n got %q\nwant %q", what, kinds, want)
		}
	}

	post("/console/members", "/console/members/invite", url.Values{"email": {"new.person@" + e.WorkspaceID + ".test"}, "role": {"member"},
		"grant_crm": {"read"}}, 200)
	want := []string{"created users", "created member_links"}
	expect("invite", want...)
	// Refused: a malformed email, a member of another workspace, an unknown key.
	post("/console/members", "/console/members/invite", url.Values{"email": {"not an email"}}, http.StatusBadRequest)
	other, err := e.store.CreateWorkspace(t.Context(), "Other "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	stranger := e.addUser(other, "member", "active", nil)
	post("/console/members", "/console/members/suspend", url.Values{"confirm": {"yes"}, "user_id": {stranger.ID}}, http.StatusNotFound)
	post("/console/members", "/console/members/reset-link", url.Values{"user_id": {stranger.ID}}, http.StatusNotFound)
	post("/console/agents", "/console/agents/revoke", url.Values{"confirm": {"yes"}, "key_id": {stranger.ID}}, http.StatusNotFound)
	post("/console/apps", "/console/apps/unblock", url.Values{"client_id": {"never-blocked"}}, http.StatusNotFound)
	expect("refused actions", want...)

	post("/console/members", "/console/members/update", url.Values{"user_id": {e.Member.ID}, "role": {"admin"}, "grant_hr": {"read"}}, 200)
	post("/console/members", "/console/members/suspend", url.Values{"confirm": {"yes"}, "user_id": {e.Member.ID}}, 200)
	post("/console/members", "/console/members/reactivate", url.Values{"user_id": {e.Member.ID}}, 200)
	post("/console/members", "/console/members/reset-link", url.Values{"user_id": {e.Member.ID}}, 200)
	want = append(want, "updated users", "updated users", "updated users", "created member_links")
	expect("member changes", want...)
	e.findAudit(store.ViaConsole, `"role": "admin"`, `"hr": "read"`, e.Member.ID)
	e.findAudit(store.ViaConsole, `"status": "suspended"`, e.Member.ID)

	created := post("/console/agents", "/console/agents/create", url.Values{"name": {"Scout"}, "grant_crm": {"full"}}, 200)
	var agentID, keyID string
	if err := storetest.Pool(t).QueryRow(t.Context(), `SELECT a.id::text, k.id::text FROM agents a JOIN agent_keys k ON k.agent_id = a.id
		WHERE a.workspace_id = $1`, e.WorkspaceID).Scan(&agentID, &keyID); err != nil || !strings.Contains(created.Body, "new-key") {
		t.Fatalf("agent: %v", err)
	}
	post("/console/agents", "/console/agents/key", url.Values{"agent_id": {agentID}}, 200)
	post("/console/agents", "/console/agents/rotate", url.Values{"key_id": {keyID}}, 200)
	post("/console/agents", "/console/agents/rotate", url.Values{"key_id": {keyID}}, http.StatusNotFound) // revoked already
	post("/console/agents", "/console/agents/revoke", url.Values{"confirm": {"yes"}, "key_id": {keyID}}, 200)
	want = append(want, "created agents", "created agent_keys", "created agent_keys", "updated agent_keys", "created agent_keys",
		"updated agent_keys")
	expect("agents and keys", want...)

	clientID := e.registerClient("Audited App")
	member := e.agent().signIn(e.Member)
	member.authorize(clientID, "companies:read")
	post("/console/apps", "/console/apps/block", url.Values{"confirm": {"yes"}, "client_id": {clientID}}, 200)
	post("/console/apps", "/console/apps/unblock", url.Values{"client_id": {clientID}}, 200)
	post("/console/apps", "/console/apps/setting", url.Values{"admin_apps_only": {"on"}}, 200)
	want = append(want, "updated oauth_clients", "updated oauth_clients", "updated workspace_oauth_settings")
	expect("apps", want...)
	e.findAudit(store.ViaConsole, `"client_id": "`+clientID+`"`, `"blocked": true`)

	// The member's own page: revoking a connected app is recorded as theirs.
	post("/console/apps", "/console/apps/setting", url.Values{}, 200)
	member.authorize(clientID, "companies:read")
	if p := member.form("/console/account", "/console/account/revoke", url.Values{"confirm": {"yes"}, "client_id": {clientID}}); p.Status != 200 {
		t.Fatalf("revoke: %d", p.Status)
	}
	last := e.auditRows(store.ViaConsole)
	if r := last[len(last)-1]; r.EntityType != store.EntityOAuthConnected || r.ActorID != e.Member.ID ||
		r.EntityID != e.Member.ID || !strings.Contains(r.Changes, clientID) {
		t.Fatalf("revoke record: %+v", r)
	}
}

// TestAdminRecordsVisibility: through the API's row-level security, an admin sees every
// administration record; a member sees those about members (as the users resource is
// visible to everyone), a workspace's creation and, with the agents feature, about agents,
// never the admin-only ones (keys, links, apps, settings, credits).
func TestAdminRecordsVisibility(t *testing.T) {
	e := newEnv(t)
	by := store.By{UserID: e.Admin.ID, Credential: "console:0123456789abcdef", Via: store.ViaConsole}
	if _, err := e.ops.Invite(t.Context(), admin.Invite{WorkspaceID: e.WorkspaceID, Email: "seen@" + e.WorkspaceID + ".test", By: by}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ops.CreateAgent(t.Context(), e.WorkspaceID, "Scout", nil, by); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ops.GrantCredits(t.Context(), e.WorkspaceID, 5, by); err != nil {
		t.Fatal(err)
	}
	if err := e.ops.SetAdminAppsOnly(t.Context(), e.WorkspaceID, true, by); err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.CreateApp(t.Context(), e.store, oauth.NewApp{WorkspaceID: e.WorkspaceID, Name: "Sync",
		RedirectURIs: []string{loopbackRedirect}, By: by}, time.Now()); err != nil {
		t.Fatal(err)
	}
	// A workspace made from the CLI: its creation is the first record of its log.
	made, err := e.store.CreateWorkspace(t.Context(), "Made "+t.Name(), store.By{Credential: "cli:operator", Via: store.ViaCLI})
	if err != nil {
		t.Fatal(err)
	}
	seenIn := func(ws, role string, grants map[string]string) string {
		t.Helper()
		p := &auth.Principal{Identity: store.Identity{WorkspaceID: ws, UserID: e.Member.ID, Role: role, Grants: grants}}
		var types []string
		err := e.store.Query(t.Context(), p.Actor(), `SELECT entity_type FROM activity WHERE via IN ('console', 'cli') ORDER BY entity_type`, nil,
			func(rows pgx.Rows) error {
				for rows.Next() {
					var s string
					if err := rows.Scan(&s); err != nil {
						return err
					}
					types = append(types, s)
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(types, " ")
	}
	seen := func(role string, grants map[string]string) string { return seenIn(e.WorkspaceID, role, grants) }
	if got, want := seen("admin", nil), "agent_keys agents credits member_links oauth_clients users workspace_oauth_settings"; got != want {
		t.Fatalf("an admin sees %q, want %q", got, want)
	}
	if got, want := seen("member", map[string]string{"agents": "read"}), "agents users"; got != want {
		t.Fatalf("a member with agents=read sees %q, want %q", got, want)
	}
	if got, want := seen("member", nil), "users"; got != want {
		t.Fatalf("a member without grants sees %q, want %q", got, want)
	}
	if got, want := seenIn(made, "member", nil), "workspaces"; got != want {
		t.Fatalf("a member of a workspace made from the CLI sees %q, want %q", got, want)
	}
}
