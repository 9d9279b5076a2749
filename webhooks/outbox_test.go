package webhooks_test

import (
	"context"
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
			FROM webhook_outbox WHERE workspace_id = $1::text::uuid`, []any{f.WorkspaceID}, &types)
		return types
	}
	check := func(step string, want ...string) {
		t.Helper()
		if got := outbox(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: outbox %v, want %v", step, got, want)
		}
	}

	endpoint, _ := e.createEndpoint(f.Admin, "http://127.0.0.1:9/hook", "labels.created")
	label := e.write(f.Admin, "POST", "/labels", map[string]any{"name": "Hot"})
	e.write(f.Admin, "PATCH", "/labels/"+label, map[string]any{"name": "Warm"})
	e.write(f.Admin, "POST", "/companies", map[string]any{"name": "Acme"})
	check("subscribed to labels.created", "labels.created")

	e.write(f.Admin, "PATCH", "/webhook_endpoints/"+endpoint, map[string]any{"events": []string{"labels.*", "companies.updated"}})
	e.write(f.Admin, "PATCH", "/labels/"+label, map[string]any{"name": "Cold"})
	company := e.write(f.Admin, "POST", "/companies", map[string]any{"name": "Initech", "industry": "software"})
	e.write(f.Admin, "PATCH", "/companies/"+company, map[string]any{"name": "Initech", "industry": "hardware", "size": "10"})
	check("after subscribing to labels.* and companies.updated",
		"labels.created", "labels.updated:name", "companies.updated:industry,size")

	e.write(f.Admin, "PATCH", "/webhook_endpoints/"+endpoint, map[string]any{"enabled": false})
	e.write(f.Admin, "PATCH", "/labels/"+label, map[string]any{"name": "Off"})
	check("after disabling the endpoint", "labels.created", "labels.updated:name", "companies.updated:industry,size")

	e.createEndpoint(f.Admin, "http://127.0.0.1:9/other", "*")
	e.write(f.Admin, "POST", "/companies", map[string]any{"name": "Globex"})
	check("with a second endpoint taking everything (its own creation among them)",
		"labels.created", "labels.updated:name", "companies.updated:industry,size", "webhook_endpoints.created", "companies.created")

	// The outbox stores records without the stored search document (migration 00029), a
	// column that is no field.
	var withDoc int
	e.serviceRow(f.WorkspaceID, `SELECT count(*)::int FROM webhook_outbox WHERE workspace_id = $1::text::uuid AND record ? 'search_doc'`,
		[]any{f.WorkspaceID}, &withDoc)
	if withDoc != 0 {
		t.Fatalf("%d outbox records hold search_doc", withDoc)
	}
}

// TestEndpointEventsNameEventsThatHappen: an endpoint's events (docs/webhooks.md) are *,
// <resource>.* or an action its resource's writes produce (created, updated, detached
// for a join resource, merged for people and companies); create and update refuse with a 422 on events, saying what the
// field takes, an empty list, an unknown resource or action, a resource whose writes send
// no event, and an action its resource never has.
func TestEndpointEventsNameEventsThatHappen(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	id, _ := e.createEndpoint(f.Admin, "http://127.0.0.1:9/hook", "labels.created")
	const takes = "use *, <resource>.*, <resource>.created, <resource>.updated, for a join resource <resource>.detached or, for people and companies, <resource>.merged"
	for _, c := range []struct {
		events []string
		says   string
	}{
		{[]string{}, "must name at least one event type: " + takes},
		{[]string{"deals.detached"}, `has "deals.detached", but deals sends only deals.created and deals.updated`},
		{[]string{"deals.merged"}, `has "deals.merged", but deals sends only deals.created and deals.updated`},
		{[]string{"*", "users.created"}, `has "users.created", but users sends only users.updated`},
		{[]string{"deal_people.updated"}, `has "deal_people.updated", but deal_people sends only deal_people.created and deal_people.detached`},
		{[]string{"webhook_deliveries.*"}, `has "webhook_deliveries.*", but no write of webhook_deliveries sends an event: ` + takes},
		{[]string{"activity.created"}, `has "activity.created", but no write of activity sends an event: ` + takes},
		{[]string{"nosuch.*"}, `has "nosuch.*", but no write of nosuch sends an event: ` + takes},
		{[]string{"deals.moved"}, `has "deals.moved", which is not an event type: ` + takes},
		{[]string{"deals"}, `has "deals", which is not an event type: ` + takes},
		{[]string{""}, `has "", which is not an event type: ` + takes},
	} {
		for _, r := range []response{
			e.do(f.Admin, "POST", "/webhook_endpoints", map[string]any{"url": "http://127.0.0.1:9/hook", "events": c.events}),
			e.do(f.Admin, "PATCH", "/webhook_endpoints/"+id, map[string]any{"events": c.events}),
		} {
			if r.Status != http.StatusUnprocessableEntity || fmt.Sprint(r.Body["fields"]) != fmt.Sprint([]any{map[string]any{"field": "events", "problem": c.says}}) {
				t.Errorf("events %q: %d %s, want 422 on events: %s", c.events, r.Status, r.Raw, c.says)
			}
		}
	}
	for _, good := range [][]string{{"*"}, {"deals.*"}, {"deals.created", "deals.updated"}, {"deal_people.detached"},
		{"space_members.*", "deal_labels.created"}, {"users.updated", "workspace.updated"}, {"webhook_endpoints.updated"},
		{"people.merged", "companies.merged"}} {
		if r := e.do(f.Admin, "POST", "/webhook_endpoints", map[string]any{"url": "http://127.0.0.1:9/hook", "events": good}); r.Status != http.StatusCreated {
			t.Errorf("create with events %q: %d %s, want 201", good, r.Status, r.Raw)
		}
		if r := e.do(f.Admin, "PATCH", "/webhook_endpoints/"+id, map[string]any{"events": good}); r.Status != http.StatusOK {
			t.Errorf("update to events %q: %d %s, want 200", good, r.Status, r.Raw)
		}
	}
}

// TestEventsGoToTheEndpointsOfTheirWrite: an event goes to the endpoints that subscribed to
// it at the write (docs/webhooks.md): an endpoint created, widened or enabled after the
// write, even before the dispatcher ran, gets none of the earlier events. An event inserted
// into the event log as pending, as a write whose trigger ran while migration 00034 moved
// the outbox could, goes to the outbox and so to the endpoints it names.
func TestEventsGoToTheEndpointsOfTheirWrite(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	a, _ := e.createEndpoint(f.Admin, "http://127.0.0.1:9/a", "*")
	widened, _ := e.createEndpoint(f.Admin, "http://127.0.0.1:9/widened", "companies.*")
	enabled, _ := e.createEndpoint(f.Admin, "http://127.0.0.1:9/enabled", "*")
	e.write(f.Admin, "PATCH", "/webhook_endpoints/"+enabled, map[string]any{"enabled": false})

	label := e.write(f.Admin, "POST", "/labels", map[string]any{"name": "Hot"})
	e.write(f.Admin, "PATCH", "/labels/"+label, map[string]any{"name": "Warm"})
	e.write(f.Admin, "POST", "/companies", map[string]any{"name": "Acme"})

	b, _ := e.createEndpoint(f.Admin, "http://127.0.0.1:9/b", "*")
	e.write(f.Admin, "PATCH", "/webhook_endpoints/"+widened, map[string]any{"events": []string{"*"}})
	e.write(f.Admin, "PATCH", "/webhook_endpoints/"+enabled, map[string]any{"enabled": true})

	dispatch := func() {
		t.Helper()
		for { // the outbox is shared with the package's other tests
			n, err := e.svc.Dispatch(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if n < 500 {
				return
			}
		}
	}
	// The types of the records' events each endpoint has a delivery of, in order (the
	// endpoints' own events aside).
	received := func() map[string]string {
		t.Helper()
		got := map[string]string{}
		for _, ep := range []string{a, widened, enabled, b} {
			var types []string
			e.serviceRow(f.WorkspaceID, `SELECT coalesce(array_agg(ev.type ORDER BY ev.seq), '{}')
				FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
				WHERE d.workspace_id = $1::text::uuid AND d.endpoint_id = $2::text::uuid AND ev.object <> 'webhook_endpoints'`,
				[]any{f.WorkspaceID, ep}, &types)
			got[ep] = fmt.Sprint(types)
		}
		return got
	}
	dispatch()
	want := map[string]string{a: "[labels.created labels.updated companies.created]", widened: "[companies.created]",
		enabled: "[]", b: "[]"}
	if got := received(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("deliveries of the writes' events by endpoint %v, want %v (a %s, widened %s, enabled %s, b %s)",
			got, want, a, widened, enabled, b)
	}

	e.serviceRow(f.WorkspaceID, `WITH x AS (INSERT INTO webhook_events (workspace_id, type, object, object_id, endpoint_ids)
		VALUES ($1::text::uuid, 'labels.updated', 'labels', $2::text::uuid, ARRAY[$3, $4]::uuid[]) RETURNING 1) SELECT count(*) FROM x`,
		[]any{f.WorkspaceID, label, widened, b}, new(int))
	dispatch()
	want = map[string]string{a: "[labels.created labels.updated companies.created]", widened: "[companies.created labels.updated]",
		enabled: "[]", b: "[labels.updated]"}
	if got := received(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after an event inserted into the log as pending: %v, want %v", got, want)
	}
}
