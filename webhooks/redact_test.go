package webhooks_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestEndpointEventsCarryNoEndpointSecret: an event about an endpoint, delivered to the
// workspace's other endpoints (a "*" subscriber), carries its URL as scheme, host and port
// only (docs/webhooks.md, "Endpoints"): the path and query of a chat service's hook URL are
// its credential. Neither the delivered body nor the stored event holds them; the update
// event still names url among the changed fields.
func TestEndpointEventsCarryNoEndpointSecret(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	all, other := newReceiver(t), newReceiver(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	e.createEndpoint(f.Admin, all.URL+"/zap", "*")
	e.start(e.svc)
	const created, updated = "/services/T01/B02/createdPathSecret?token=createdQuerySecret", "/services/T01/B02/updatedPathSecret?token=updatedQuerySecret#frag"
	id, _ := e.createEndpoint(f.Admin, other.URL+created, "deals.*")
	if r := e.do(f.Admin, "PATCH", "/webhook_endpoints/"+id, map[string]any{"url": other.URL + updated}); r.Status != http.StatusOK {
		t.Fatalf("update endpoint: %d %s", r.Status, r.Raw)
	}
	about := func() []delivery {
		var got []delivery
		for _, d := range all.deliveries() {
			if data, _ := d.Event["data"].(map[string]any); data["id"] == id {
				got = append(got, d)
			}
		}
		return got
	}
	eventually(t, "the created and updated events of the second endpoint", func() bool { return len(about()) >= 2 })
	got := about()
	slices.SortFunc(got, func(a, b delivery) int { return int(a.Event["sequence"].(float64) - b.Event["sequence"].(float64)) })
	want := other.URL + "/[redacted]"
	for i, typ := range []string{"webhook_endpoints.created", "webhook_endpoints.updated"} {
		body := string(got[i].Body)
		for _, secret := range []string{"PathSecret", "QuerySecret", "services", "frag"} {
			if strings.Contains(body, secret) {
				t.Errorf("%s delivered to a * endpoint holds %q: %s", typ, secret, body)
			}
		}
		data := got[i].Event["data"].(map[string]any)
		if got[i].Event["type"] != typ || data["record"].(map[string]any)["url"] != want {
			t.Errorf("event %d: %s, want %s with url %s", i, body, typ, want)
		}
	}
	if changed, _ := got[1].Event["data"].(map[string]any)["changed"].([]any); !slices.Contains(changed, any("url")) {
		t.Errorf("the update's changed fields %v do not name url", changed)
	}

	var leaks int
	err := e.store.ServiceTx(context.Background(), f.WorkspaceID, func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM webhook_events WHERE record::text ~ 'Secret|services')
			+ (SELECT count(*) FROM webhook_outbox WHERE record::text ~ 'Secret|services')`).Scan(&leaks)
	})
	if err != nil {
		t.Fatal(err)
	}
	if leaks != 0 {
		t.Errorf("%d stored events hold the endpoint's path or query", leaks)
	}
}
