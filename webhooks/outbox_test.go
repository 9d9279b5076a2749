package webhooks_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestOutboxHoldsOnlySubscribedEvents: a write leaves an outbox row only when an enabled
// endpoint of its workspace subscribes to its type, judged at the write, so changing or
// disabling an endpoint takes effect from the next write; an update names exactly the
// fields it changed, and no record holds a column that is not a field.
func TestOutboxHoldsOnlySubscribedEvents(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	outbox := func() []string {
		t.Helper()
		var types []string
		e.serviceRow(f.WorkspaceID, `SELECT coalesce(array_agg(type || coalesce(':' || array_to_string(changed, ','), '') ORDER BY seq), '{}')
			FROM webhook_events WHERE workspace_id = $1::text::uuid`, []any{f.WorkspaceID}, &types)
		return types
	}
	write := func(method, path string, body map[string]any) string {
		t.Helper()
		r := e.do(f.Admin, method, path, body)
		if r.Status != http.StatusCreated && r.Status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Raw)
		}
		id, _ := r.data()["id"].(string)
		return id
	}
	check := func(step string, want ...string) {
		t.Helper()
		if got := outbox(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: outbox %v, want %v", step, got, want)
		}
	}

	endpoint, _ := e.createEndpoint(f.Admin, "http://127.0.0.1:9/hook", "labels.created")
	label := write("POST", "/labels", map[string]any{"name": "Hot"})
	write("PATCH", "/labels/"+label, map[string]any{"name": "Warm"})
	write("POST", "/companies", map[string]any{"name": "Acme"})
	check("subscribed to labels.created", "labels.created")

	write("PATCH", "/webhook_endpoints/"+endpoint, map[string]any{"events": []string{"labels.*", "companies.updated"}})
	write("PATCH", "/labels/"+label, map[string]any{"name": "Cold"})
	company := write("POST", "/companies", map[string]any{"name": "Initech", "industry": "software"})
	write("PATCH", "/companies/"+company, map[string]any{"name": "Initech", "industry": "hardware", "size": "10"})
	check("after subscribing to labels.* and companies.updated",
		"labels.created", "labels.updated:name", "companies.updated:industry,size")

	write("PATCH", "/webhook_endpoints/"+endpoint, map[string]any{"enabled": false})
	write("PATCH", "/labels/"+label, map[string]any{"name": "Off"})
	check("after disabling the endpoint", "labels.created", "labels.updated:name", "companies.updated:industry,size")

	e.createEndpoint(f.Admin, "http://127.0.0.1:9/other", "*")
	write("POST", "/companies", map[string]any{"name": "Globex"})
	check("with a second endpoint taking everything (its own creation among them)",
		"labels.created", "labels.updated:name", "companies.updated:industry,size", "webhook_endpoints.created", "companies.created")

	// The outbox stores records without the stored search document (migration 00029), a
	// column that is no field.
	var withDoc int
	e.serviceRow(f.WorkspaceID, `SELECT count(*)::int FROM webhook_events WHERE workspace_id = $1::text::uuid AND record ? 'search_doc'`,
		[]any{f.WorkspaceID}, &withDoc)
	if withDoc != 0 {
		t.Fatalf("%d outbox records hold search_doc", withDoc)
	}
}
