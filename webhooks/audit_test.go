package webhooks_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestActionsAudited: the three webhook actions (test ping, secret rotation, delivery
// retry) each leave an activity record, as the endpoint's create and update do: who
// (actor, credential, channel), on what, and what was done, never the secret; a refused
// action (another workspace's id) leaves none (docs/console.md, "Audit log").
func TestActionsAudited(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	rc := newReceiver(t)
	id, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	// Delivery runs, so the ping and its retry are delivered within the test, leaving no
	// job for the package's later tests.
	e.start(e.svc)

	r := e.do(f.Admin, "POST", "/webhook_endpoints/"+id+"/test", nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.Status, r.Raw)
	}
	eventID := r.data()["event_id"].(string)
	r = e.do(f.Admin, "POST", "/webhook_endpoints/"+id+"/rotate_secret", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("rotate_secret: %d %s", r.Status, r.Raw)
	}
	secret := r.data()["secret"].(string)
	rc.waitFor(t, 1)
	var delivery string
	eventually(t, "the ping's delivery to succeed", func() bool {
		e.serviceRow(f.WorkspaceID, `SELECT coalesce(max(id::text), '') FROM webhook_deliveries
			WHERE event_id = $1::text::uuid AND status = 'succeeded'`, []any{eventID}, &delivery)
		return delivery != ""
	})
	if r := e.do(f.Admin, "POST", "/webhook_deliveries/"+delivery+"/retry", nil); r.Status != http.StatusAccepted {
		t.Fatalf("retry: %d %s", r.Status, r.Raw)
	}
	rc.waitFor(t, 2)
	eventually(t, "the retry to succeed", func() bool {
		var status string
		e.serviceRow(f.WorkspaceID, `SELECT status FROM webhook_deliveries WHERE id = $1::text::uuid`, []any{delivery}, &status)
		return status == "succeeded"
	})

	// Another workspace's admin is refused each action, and leaves no record.
	g := storetest.Workspace(t, e.store, workspace.Scopes())
	for _, path := range []string{"/webhook_endpoints/" + id + "/test", "/webhook_endpoints/" + id + "/rotate_secret",
		"/webhook_deliveries/" + delivery + "/retry"} {
		if r := e.do(g.Admin, "POST", path, nil); r.Status != http.StatusNotFound {
			t.Errorf("another workspace's admin: POST %s: %d %s, want 404", path, r.Status, r.Raw)
		}
	}

	records := func(entityID string) []map[string]any {
		t.Helper()
		r := e.do(f.Admin, "GET", "/activity?entity_id="+entityID, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("activity: %d %s", r.Status, r.Raw)
		}
		if strings.Contains(string(r.Raw), secret) {
			t.Errorf("activity shows the secret: %s", r.Raw)
		}
		var out []map[string]any
		for _, v := range r.Body["data"].([]any) {
			out = append(out, v.(map[string]any))
		}
		return out
	}
	want := func(recs []map[string]any, entityType, action, key string, value any) {
		t.Helper()
		for _, rec := range recs {
			if rec["action"] != action {
				continue
			}
			changes, _ := rec["changes"].(map[string]any)
			if rec["entity_type"] != entityType || rec["actor_id"] != f.Admin.UserID || rec["via"] != store.ViaREST ||
				rec["credential"] != "agent_key:test-"+f.Admin.UserID || changes[key] != value {
				t.Errorf("%s record: %v, want %s by the admin over REST with %s = %v", action, rec, entityType, key, value)
			}
			return
		}
		t.Errorf("no %s record of %s among %v", action, entityType, recs)
	}
	endpoint := records(id)
	want(endpoint, "webhook_endpoints", "test", "event_id", eventID)
	want(endpoint, "webhook_endpoints", "rotate_secret", "secret", "rotated")
	want(records(delivery), "webhook_deliveries", "retry", "status", "pending")
	if n := len(endpoint); n != 3 {
		t.Errorf("%d records of the endpoint, want 3 (created, test, rotate_secret): %v", n, endpoint)
	}
}
