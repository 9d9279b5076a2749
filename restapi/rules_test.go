package restapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// team is a fresh workspace with an admin and two members holding every grant.
type team struct {
	ws          string
	admin, a, b *auth.Principal
	none        *auth.Principal // a member without grants
}

func newTeam(t testing.TB, e *env) team {
	t.Helper()
	all := workspace.Scopes()
	f := storetest.Workspace(t, e.store, all)
	return team{ws: f.WorkspaceID, admin: f.Admin, none: f.Member,
		a: storetest.AddUser(t, e.store, f.WorkspaceID, "member", grantsAll("full"), all),
		b: storetest.AddUser(t, e.store, f.WorkspaceID, "member", grantsAll("full"), all)}
}

func create(t testing.TB, c client, path string, body map[string]any) map[string]any {
	t.Helper()
	return must(t, c.post(path, body), http.StatusCreated).data()
}

// newDeal makes a pipeline and a deal in it.
func newDeal(t testing.TB, c client) string {
	t.Helper()
	pl := create(t, c, "/pipelines", map[string]any{"name": "Sales"})
	return create(t, c, "/deals", map[string]any{"name": "Deal", "pipeline_id": pl["id"]})["id"].(string)
}

// TestPrivateTasks: private tasks and deal_tasks are visible to their creator, assignees
// and admins only; to anyone else they, their comments and their activity do not exist
// (docs/decisions.md 3).
func TestPrivateTasks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a, b, admin := e.as(t, tm.a), e.as(t, tm.b), e.as(t, tm.admin)
	deal := newDeal(t, a)
	for _, res := range []string{"tasks", "deal_tasks"} {
		t.Run(res, func(t *testing.T) {
			body := map[string]any{"name": "Secret", "is_private": true}
			if res == "deal_tasks" {
				body["deal_id"] = deal
			}
			task := create(t, a, "/"+res, body)["id"].(string)
			comment := create(t, a, "/comments", map[string]any{"entity_type": "task", "entity_id": task, "content": "hush"})["id"].(string)
			must(t, a.patch("/"+res+"/"+task, map[string]any{"description": "still secret"}), http.StatusOK)

			if ids(b.listAll("/" + res))[task] {
				t.Fatal("another member lists the private task")
			}
			if ids(b.listAll("/" + res + "?is_private=true"))[task] {
				t.Fatal("another member finds the private task by filter")
			}
			wantError(t, b.get("/"+res+"/"+task), http.StatusNotFound, "not_found")
			wantError(t, b.patch("/"+res+"/"+task, map[string]any{"name": "mine now"}), http.StatusNotFound, "not_found")
			if got := b.listAll("/comments?entity_id=" + task); len(got) != 0 {
				t.Fatalf("another member sees %d comments of the private task", len(got))
			}
			wantError(t, b.get("/comments/"+comment), http.StatusNotFound, "not_found")
			if got := b.listAll("/activity?entity_id=" + task); len(got) != 0 {
				t.Fatalf("another member sees %d activity rows of the private task", len(got))
			}
			wantError(t, b.post("/comments", map[string]any{"entity_type": "task", "entity_id": task, "content": "x"}),
				http.StatusBadRequest, "create_failed")

			for _, who := range []client{a, admin} {
				must(t, who.get("/"+res+"/"+task), http.StatusOK)
				if len(who.listAll("/comments?entity_id="+task)) != 1 || len(who.listAll("/activity?entity_id="+task)) < 2 {
					t.Fatal("creator or admin does not see the task's comment and activity")
				}
			}
			// Assigning b makes the task visible to b.
			must(t, a.patch("/"+res+"/"+task, map[string]any{"assignee_ids": []string{tm.b.UserID}}), http.StatusOK)
			must(t, b.get("/"+res+"/"+task), http.StatusOK)
		})
	}
}

// TestDetach unlinks join records (docs/decisions.md 4).
func TestDetach(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	deal := newDeal(t, a)
	person := create(t, a, "/people", map[string]any{"name": "Grace"})["id"].(string)
	label := create(t, a, "/labels", map[string]any{"name": "Warm"})["id"].(string)
	space := create(t, a, "/spaces", map[string]any{"name": "Client"})["id"].(string)

	cases := []struct {
		res        string
		keys       [2]string
		ids        [2]string
		scope      string
		flagInBody bool
	}{
		{"deal_people", [2]string{"deal_id", "person_id"}, [2]string{deal, person}, "deals", false},
		{"deal_labels", [2]string{"deal_id", "label_id"}, [2]string{deal, label}, "deals", true},
		{"space_members", [2]string{"space_id", "user_id"}, [2]string{space, tm.b.UserID}, "spaces", false},
	}
	for _, tc := range cases {
		t.Run(tc.res, func(t *testing.T) {
			link := map[string]any{tc.keys[0]: tc.ids[0], tc.keys[1]: tc.ids[1]}
			rec := create(t, a, "/"+tc.res, link)
			detachPath, detachBody := "/"+tc.res+"?detach=true", clone(link)
			if tc.flagInBody {
				detachPath, detachBody["_detach"] = "/"+tc.res, true
			}

			readOnly := e.as(t, withScopes(tm.a, scopesWithout(tc.scope, tc.scope+":read")))
			r := readOnly.post(detachPath, detachBody)
			wantError(t, r, http.StatusForbidden, "insufficient_scope")
			wantMessage(t, r, tc.scope+":write")

			r = must(t, a.post(detachPath, detachBody), http.StatusOK)
			want := map[string]any{tc.keys[0]: tc.ids[0], tc.keys[1]: tc.ids[1], "detached": true}
			if got := r.data(); len(got) != 3 || got[tc.keys[0]] != want[tc.keys[0]] || got[tc.keys[1]] != want[tc.keys[1]] || got["detached"] != true {
				t.Fatalf("detach answered %s, want %v", r.Raw, want)
			}
			if bytes.Contains(r.Raw, []byte(`" : `)) {
				t.Errorf("detach's answer is not compact JSON: %s", r.Raw)
			}
			if got := a.listAll("/" + tc.res + "?" + tc.keys[0] + "=" + tc.ids[0]); ids(got)[rec["id"].(string)] {
				t.Fatal("the link is still listed")
			}
			wantError(t, a.post(detachPath, detachBody), http.StatusNotFound, "not_found")

			acts := a.listAll("/activity?entity_id=" + rec["id"].(string))
			if len(acts) != 2 || acts[0]["action"] != "detached" || acts[1]["action"] != "created" {
				t.Fatalf("activity of the link: %v", acts)
			}

			missing := clone(detachBody)
			delete(missing, tc.keys[0])
			delete(missing, tc.keys[1])
			r = a.post(detachPath, missing)
			wantFieldError(t, r, tc.keys[0])
			wantFieldError(t, r, tc.keys[1])
			bad := clone(detachBody)
			bad[tc.keys[1]] = "nope"
			wantFieldError(t, a.post(detachPath, bad), tc.keys[1])
		})
	}
	t.Run("_detach must be a boolean", func(t *testing.T) {
		wantFieldError(t, a.post("/deal_people", map[string]any{"_detach": "yes"}), "_detach")
	})
	t.Run("only join resources detach", func(t *testing.T) {
		r := a.post("/deals?detach=true", map[string]any{"name": "x"})
		wantError(t, r, http.StatusBadRequest, "bad_request")
		wantMessage(t, r, "deal_people, deal_labels and space_members")
	})
	t.Run("no /{id} form", func(t *testing.T) {
		wantError(t, a.get("/deal_people/"+deal), http.StatusMethodNotAllowed, "method_not_allowed")
	})
}

// TestUsersProfile: members update only their own profile; role, grants, status and
// email in a body are ignored (docs/contract.md section 2.2 rule 2, 5.7).
func TestUsersProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a, admin := e.as(t, tm.a), e.as(t, tm.admin)
	r := must(t, a.patch("/users/"+tm.a.UserID, map[string]any{"display_name": "Ada", "timezone": "Europe/Vienna",
		"role": "admin", "grants": map[string]string{"hr": "full"}, "status": "suspended", "email": "evil@example.test",
		"is_agent": true, "workspace_id": tm.ws}), http.StatusOK)
	if got := r.data(); got["display_name"] != "Ada" || got["role"] != "member" || got["email"] != tm.a.Email {
		t.Fatalf("profile update answered %v", got)
	}
	var role, status, email string
	var grants []byte
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT role, status, email, grants FROM users WHERE id = $1`,
		tm.a.UserID).Scan(&role, &status, &email, &grants); err != nil {
		t.Fatal(err)
	}
	if role != "member" || status != "active" || email != tm.a.Email {
		t.Fatalf("protected columns changed: role %s status %s email %s", role, status, email)
	}
	var g map[string]string
	_ = json.Unmarshal(grants, &g)
	if len(g) != len(store.Features) || g["hr"] != "full" { // as made by newTeam
		t.Fatalf("grants changed: %v", g)
	}
	r = a.patch("/users/"+tm.b.UserID, map[string]any{"display_name": "Not you"})
	wantError(t, r, http.StatusForbidden, "insufficient_permission")
	wantMessage(t, r, tm.a.UserID)
	wantFieldError(t, a.patch("/users/"+tm.a.UserID, map[string]any{"display_name": 7}), "display_name")
	wantError(t, a.patch("/users/"+tm.a.UserID, map[string]any{"role": "admin"}), http.StatusUnprocessableEntity, "validation_error")
	must(t, admin.patch("/users/"+tm.b.UserID, map[string]any{"department": "Sales"}), http.StatusOK)
	wantError(t, a.post("/users", map[string]any{"email": "new@example.test"}), http.StatusMethodNotAllowed, "method_not_allowed")
}

// TestWorkspaceSingleton: GET /workspace lists the one row, GET and PATCH by id or none,
// admins only write, billing is never writable (docs/decisions.md 4).
func TestWorkspaceSingleton(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm, other := newTeam(t, e), newTeam(t, e)
	a, admin := e.as(t, tm.a), e.as(t, tm.admin)
	list := must(t, a.get("/workspace"), http.StatusOK)
	if rows := list.list(); len(rows) != 1 || rows[0]["id"] != tm.ws || list.Body["next_cursor"] != nil {
		t.Fatalf("GET /workspace: %s", list.Raw)
	}
	must(t, a.get("/workspace/"+tm.ws), http.StatusOK)
	wantError(t, a.get("/workspace/"+other.ws), http.StatusNotFound, "not_found")

	r := a.patch("/workspace", map[string]any{"name": "Mine"})
	wantError(t, r, http.StatusForbidden, "insufficient_permission")
	wantMessage(t, r, "admin")
	wantError(t, a.patch("/workspace/"+tm.ws, map[string]any{"name": "Mine"}), http.StatusForbidden, "insufficient_permission")

	got := must(t, admin.patch("/workspace", map[string]any{"name": "Renamed", "plan": "enterprise", "okr_enabled": true}), http.StatusOK).data()
	if got["name"] != "Renamed" || got["okr_enabled"] != true || got["plan"] != nil {
		t.Fatalf("PATCH /workspace answered %v", got)
	}
	must(t, admin.patch("/workspace/"+tm.ws, map[string]any{"timezone": "Europe/Berlin"}), http.StatusOK)
	wantError(t, admin.patch("/workspace/"+other.ws, map[string]any{"name": "Theirs"}), http.StatusNotFound, "not_found")
	var plan string
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT plan FROM workspaces WHERE id = $1`, tm.ws).Scan(&plan); err != nil || plan != "free" {
		t.Fatalf("plan %q (%v): billing must not be writable", plan, err)
	}
	wantFieldError(t, admin.patch("/workspace", map[string]any{"okr_enabled": nil}), "okr_enabled")
}

// TestAutomationsNeedAdmin: automations:write is not enough; writes need the admin role.
func TestAutomationsNeedAdmin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	r := e.as(t, tm.a).post("/automations", map[string]any{"name": "Nightly"})
	wantError(t, r, http.StatusForbidden, "insufficient_permission")
	wantMessage(t, r, "admin")
	auto := create(t, e.as(t, tm.admin), "/automations", map[string]any{"name": "Nightly", "enabled": true,
		"trigger": map[string]any{"on": "deal.created"}, "actions": []any{map[string]any{"do": "email"}}})
	if auto["enabled"] != true || auto["trigger"].(map[string]any)["on"] != "deal.created" {
		t.Fatalf("automation %v", auto)
	}
	wantError(t, e.as(t, tm.a).patch("/automations/"+auto["id"].(string), map[string]any{"enabled": false}),
		http.StatusForbidden, "insufficient_permission")
	must(t, e.as(t, tm.a).get("/automations/"+auto["id"].(string)), http.StatusOK)
}

// TestBodies covers docs/decisions.md 4 for request bodies.
func TestBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	c := e.as(t, tm.a)
	label := create(t, c, "/labels", map[string]any{"name": "x"})["id"].(string)
	big := `{"name": "` + strings.Repeat("a", 2<<20) + `"}`
	for _, tc := range []struct{ name, method, path, body string }{
		{"malformed JSON", "POST", "/labels", `{"name": `},
		{"an array", "POST", "/labels", `[{"name": "x"}]`},
		{"a string", "POST", "/labels", `"x"`},
		{"null", "POST", "/labels", `null`},
		{"empty", "POST", "/labels", ``},
		{"trailing data", "POST", "/labels", `{"name": "x"} {}`},
		{"2 MiB", "POST", "/labels", big},
		{"malformed PATCH", "PATCH", "/labels/" + label, `{`},
		{"2 MiB PATCH", "PATCH", "/labels/" + label, big},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, c.req(tc.method, tc.path, tc.body), http.StatusBadRequest, "bad_request")
		})
	}
	t.Run("PATCH with only unknown keys", func(t *testing.T) {
		r := c.patch("/labels/"+label, map[string]any{"colour": "red", "id": "x"})
		wantError(t, r, http.StatusUnprocessableEntity, "validation_error")
		wantMessage(t, r, "name")
	})
	t.Run("unknown keys are ignored on create", func(t *testing.T) {
		got := create(t, c, "/labels", map[string]any{"name": "y", "colour": "red", "workspace_id": "x", "created_by": "x"})
		if got["workspace_id"] != tm.ws || got["created_by"] != tm.a.UserID {
			t.Fatalf("server-owned columns came from the body: %v", got)
		}
	})
	t.Run("every bad field is named at once", func(t *testing.T) {
		r := c.post("/deal_tasks", map[string]any{"priority": 7, "due_date": "tomorrow", "assignee_ids": []string{"x"}, "completed": "yes"})
		for _, f := range []string{"deal_id", "name", "priority", "due_date", "assignee_ids", "completed"} {
			wantFieldError(t, r, f)
		}
		wantMessage(t, r, "0 to 4")
	})
	t.Run("a reference into nowhere", func(t *testing.T) {
		r := c.post("/deals", map[string]any{"name": "x", "pipeline_id": tm.ws})
		wantError(t, r, http.StatusBadRequest, "create_failed")
		wantMessage(t, r, "pipeline_id")
	})
	t.Run("native JSON types come back", func(t *testing.T) {
		deal := newDeal(t, c)
		got := must(t, c.patch("/deals/"+deal, map[string]any{"value": 12000.50, "confidence": 0.6}), http.StatusOK).data()
		if got["value"] != 12000.5 || got["confidence"] != 0.6 {
			t.Fatalf("numeric not a JSON number: %v %v", got["value"], got["confidence"])
		}
		task := create(t, c, "/deal_tasks", map[string]any{"deal_id": deal, "name": "t", "due_date": "2026-01-31", "priority": 0, "completed": false})
		if task["due_date"] != "2026-01-31" || task["priority"] != float64(0) || task["completed"] != false {
			t.Fatalf("task %v", task)
		}
	})
	t.Run("unknown resource", func(t *testing.T) {
		r := c.get("/invoices")
		wantError(t, r, http.StatusNotFound, "unknown_resource")
		wantMessage(t, r, "deals")
	})
}

// TestActivityRecordsWrites: creates and updates leave an activity row in the same
// transaction (detach is covered by TestDetach); an update records exactly the fields it
// changed, and neither records a column that is not a field (the stored search document,
// migration 00029).
func TestActivityRecordsWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	c := e.as(t, tm.a)
	deal := newDeal(t, c)
	must(t, c.patch("/deals/"+deal, map[string]any{"notes": "called"}), http.StatusOK)
	acts := c.listAll("/activity?entity_id=" + deal)
	if len(acts) != 2 || acts[0]["action"] != "updated" || acts[1]["action"] != "created" {
		t.Fatalf("activity: %v", acts)
	}
	if ch := acts[0]["changes"].(map[string]any); len(ch) != 1 || ch["notes"] != "called" || acts[0]["actor_id"] != tm.a.UserID ||
		acts[0]["entity_type"] != "deals" {
		t.Fatalf("update activity: %v", acts[0])
	}
	fields := workspace.Columns(workspace.Lookup("deals"))
	for k := range acts[1]["changes"].(map[string]any) {
		if !slices.Contains(fields, k) {
			t.Errorf("create activity records %q, not a field of deals: %v", k, acts[1]["changes"])
		}
	}
	// An update's changes name exactly the fields whose value changed, with their new
	// values: a field sent with the value it had is not one (ws_record_activity, migration
	// 00031).
	must(t, c.patch("/deals/"+deal, map[string]any{"notes": "called", "name": "Renamed", "value": 250}), http.StatusOK)
	acts = c.listAll("/activity?entity_id=" + deal)
	if len(acts) != 3 || acts[0]["action"] != "updated" {
		t.Fatalf("activity after the second update: %v", acts)
	}
	if ch := acts[0]["changes"].(map[string]any); len(ch) != 2 || ch["name"] != "Renamed" || ch["value"] != float64(250) {
		t.Fatalf("second update's changes: %v", ch)
	}
	// Activity of CRM records needs crm, like the records.
	none := e.as(t, tm.none)
	if got := none.listAll("/activity?entity_id=" + deal); len(got) != 0 {
		t.Fatalf("a member without crm sees deal activity: %v", got)
	}
	wantError(t, none.get("/activity?entity_type=deals"), http.StatusForbidden, "insufficient_permission")

	// The workspace's settings are a write like any other (migration 00016).
	admin := e.as(t, tm.admin)
	must(t, admin.patch("/workspace", map[string]any{"timezone": "Europe/Lisbon"}), http.StatusOK)
	ws := c.listAll("/activity?entity_id=" + tm.ws)
	if len(ws) != 1 || ws[0]["entity_type"] != "workspace" || ws[0]["action"] != "updated" ||
		ws[0]["changes"].(map[string]any)["timezone"] != "Europe/Lisbon" || ws[0]["actor_id"] != tm.admin.UserID {
		t.Fatalf("workspace activity: %v", ws)
	}
}

// TestCommentsOnDealsNeedCRM: comments are their own scope, but those on deals need the
// crm grant (docs/decisions.md 3 step 4).
func TestCommentsOnDealsNeedCRM(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a, none := e.as(t, tm.a), e.as(t, tm.none)
	deal := newDeal(t, a)
	dc := create(t, a, "/comments", map[string]any{"entity_type": "deal", "entity_id": deal, "content": "x"})["id"].(string)
	task := create(t, none, "/tasks", map[string]any{"name": "t"})["id"].(string)
	tc := create(t, none, "/comments", map[string]any{"entity_type": "task", "entity_id": task, "content": "y"})["id"].(string)

	wantError(t, none.get("/comments?entity_type=deal"), http.StatusForbidden, "insufficient_permission")
	wantError(t, none.post("/comments", map[string]any{"entity_type": "deal", "entity_id": deal, "content": "z"}),
		http.StatusForbidden, "insufficient_permission")
	got := ids(none.listAll("/comments"))
	if got[dc] || !got[tc] {
		t.Fatalf("member without crm: deal comment visible %v, task comment visible %v", got[dc], got[tc])
	}
	wantError(t, none.get("/comments/"+dc), http.StatusNotFound, "not_found")
	must(t, a.get("/comments/"+dc), http.StatusOK)
}

type fakeEnricher struct{}

func (fakeEnricher) Enrich(ctx context.Context, p *auth.Principal, domain string) (*workspace.EnrichResult, error) {
	if domain == "broke.example" {
		return nil, &apierr.Error{Code: apierr.CodeInsufficientCredits, Message: "top up"}
	}
	return &workspace.EnrichResult{EnrichCompany: workspace.EnrichCompany{Domain: domain, Name: "Acme"},
		CreditsSpent: 1, CreditsRemaining: 9}, nil
}

// TestEnrichHook: POST /enrich runs the gates and the body rules, then the configured
// Enricher; with none it answers 503.
func TestEnrichHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	c := e.as(t, tm.a)
	r := c.post("/enrich", map[string]any{"domain": "acme.example"})
	wantError(t, r, http.StatusServiceUnavailable, "internal_error")
	wantMessage(t, r, "enrichment is not configured")
	wantFieldError(t, c.post("/enrich", map[string]any{}), "domain")
	noScope := e.as(t, withScopes(tm.a, scopesWithout("enrich")))
	wantError(t, noScope.post("/enrich", map[string]any{"domain": "acme.example"}), http.StatusForbidden, "insufficient_scope")
	wantError(t, c.get("/enrich"), http.StatusMethodNotAllowed, "method_not_allowed")

	ops := workspace.NewOps(workspace.Config{Store: e.store, Enricher: fakeEnricher{}})
	enrich := workspace.Lookup("enrich")
	posted, err := ops.Post(context.Background(), tm.a, workspace.OpCreate, enrich, workspace.NewBody([]byte(`{"domain": "acme.example"}`)), "")
	if err != nil || !strings.Contains(string(posted.Data), `"name":"Acme"`) || posted.Status != http.StatusOK {
		t.Fatalf("enrich: %+v %v", posted, err)
	}
	_, err = ops.Post(context.Background(), tm.a, workspace.OpCreate, enrich, workspace.NewBody([]byte(`{"domain": "broke.example"}`)), "")
	var se *apierr.Error
	if !errors.As(err, &se) || se.Code != "insufficient_credits" {
		t.Fatalf("enricher errors must pass through: %v", err)
	}
}
