package webhooks_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// syncBuffer is a log sink the service's goroutines may write while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// counter reads a counter (without labels) from reg; -1 when it is not registered.
func counter(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return -1
}

// TestABadEventDoesNotHoldBackTheOthers: an outbox event that cannot become a delivery
// (here a ping naming another workspace's endpoint, which the deliveries' foreign key
// refuses) is set aside with its reason, logged without secrets and counted; the events
// after it, in the same batch, are delivered.
func TestABadEventDoesNotHoldBackTheOthers(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	other := storetest.Workspace(t, e.store, workspace.Scopes())
	_, secret := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	foreign, foreignSecret := e.createEndpoint(other.Admin, rc.URL+"/other", "deals.*")

	var bad string
	e.serviceRow(f.WorkspaceID, `INSERT INTO webhook_outbox (id, workspace_id, type, object, object_id, endpoint_id)
		VALUES (gen_random_uuid(), $1::text::uuid, 'ping', 'webhook_endpoints', $2::text::uuid, $2::text::uuid) RETURNING id::text`,
		[]any{f.WorkspaceID, foreign}, &bad)
	for _, name := range []string{"After the bad one", "Also after it"} {
		if r := e.do(f.Admin, "POST", "/labels", map[string]any{"name": name}); r.Status != http.StatusCreated {
			t.Fatalf("create label: %d %s", r.Status, r.Raw)
		}
	}

	reg := prometheus.NewRegistry()
	var logs syncBuffer
	svc := e.newService(func(c *webhooks.Config) {
		c.Registerer = reg
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	e.start(svc)

	for _, d := range rc.waitFor(t, 2) {
		if d.Event["type"] != "labels.created" || verify(t, secret, d) != nil {
			t.Errorf("delivery %s", d.Body)
		}
	}
	var reason string
	e.serviceRow("", `SELECT coalesce(dispatch_error, '') FROM webhook_events WHERE id = $1::text::uuid AND dispatched_at IS NOT NULL`,
		[]any{bad}, &reason)
	if !strings.Contains(reason, "23503") {
		t.Errorf("the bad event's dispatch_error is %q, want its SQLSTATE 23503", reason)
	}
	var deliveries int
	e.serviceRow("", `SELECT count(*) FROM webhook_deliveries WHERE event_id = $1::text::uuid`, []any{bad}, &deliveries)
	if deliveries != 0 {
		t.Errorf("the bad event has %d deliveries", deliveries)
	}
	if n := counter(t, reg, "workspaced_webhook_dispatch_failures_total"); n != 1 {
		t.Errorf("workspaced_webhook_dispatch_failures_total = %v, want 1", n)
	}
	out := logs.String()
	if !strings.Contains(out, bad) || !strings.Contains(out, "23503") {
		t.Errorf("the log does not name the event and its SQLSTATE:\n%s", out)
	}
	for _, s := range []string{secret, foreignSecret, "whsec_", rc.URL} {
		if strings.Contains(out, s) {
			t.Errorf("the log shows %q:\n%s", s, out)
		}
	}
}

// TestRetentionDeletesOldDeliveriesAndEvents: Prune (which cmd/workspaced runs as a
// periodic task: TestWebhookRetentionRunsPeriodically there) deletes deliveries and events
// older than the retention; it keeps pending deliveries, the events they refer to and
// events not yet dispatched, and deletes in batches until nothing old is left.
func TestRetentionDeletesOldDeliveriesAndEvents(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	ok, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	first := e.newService()
	e.start(first)
	e.do(f.Admin, "POST", "/labels", map[string]any{"name": "Old"})
	delivered := rc.waitFor(t, 1)[0].Event["id"].(string)
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		e.serviceRow("", sql, args, &n)
		return n
	}
	eventually(t, "the delivery to be recorded", func() bool {
		return count(`SELECT count(*) FROM webhook_deliveries WHERE event_id = $1::text::uuid AND status = 'succeeded'`, delivered) == 1
	})
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := first.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}

	// A month later (by the injected clock), Prune deletes them.
	e.clock.Add(webhooks.DefaultRetention + 24*time.Hour)
	if _, _, err := first.Prune(context.Background()); err != nil {
		t.Fatal(err)
	}
	if count(`SELECT count(*) FROM webhook_deliveries WHERE event_id = $1::text::uuid`, delivered) != 0 ||
		count(`SELECT count(*) FROM webhook_events WHERE id = $1::text::uuid`, delivered) != 0 {
		t.Error("the old delivery or its event is left")
	}

	// What Prune keeps: a pending delivery and its event, and an event not yet dispatched;
	// and it deletes more than one batch of old events.
	failing := newReceiver(t)
	failing.setStatus(http.StatusInternalServerError)
	pendingEndpoint, _ := e.createEndpoint(f.Admin, failing.URL+"/hook", "labels.created")
	e.do(f.Admin, "POST", "/labels", map[string]any{"name": "Kept"})
	idle := e.newService() // not started: dispatched by hand, no attempts
	if _, err := idle.Dispatch(context.Background()); err != nil {
		t.Fatal(err)
	}
	var kept string
	e.serviceRow("", `SELECT event_id::text FROM webhook_deliveries WHERE endpoint_id = $1::text::uuid`, []any{pendingEndpoint}, &kept)
	e.serviceRow("", `UPDATE webhook_deliveries SET status = 'succeeded' WHERE endpoint_id = $1::text::uuid RETURNING 0`,
		[]any{ok}, new(int))
	e.do(f.Admin, "POST", "/labels", map[string]any{"name": "Undispatched"})
	e.serviceRow("", `WITH x AS (INSERT INTO webhook_events (workspace_id, type, object, dispatched_at)
		SELECT $1::text::uuid, 'labels.created', 'labels', now() FROM generate_series(1, 2500) RETURNING 1) SELECT count(*) FROM x`,
		[]any{f.WorkspaceID}, new(int))

	deliveries, events, err := idle.Prune(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if deliveries < 1 || events < 2500 {
		t.Errorf("Prune deleted %d deliveries and %d events, want at least 1 and 2500", deliveries, events)
	}
	if n := count(`SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1::text::uuid AND status = 'pending'`, pendingEndpoint); n != 1 {
		t.Errorf("%d pending deliveries left, want 1", n)
	}
	if n := count(`SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1::text::uuid`, ok); n != 0 {
		t.Errorf("%d finished deliveries left, want 0", n)
	}
	if n := count(`SELECT count(*) FROM webhook_events WHERE id = $1::text::uuid`, kept); n != 1 {
		t.Error("the event of a pending delivery was deleted")
	}
	if n := count(`SELECT count(*) FROM webhook_outbox WHERE workspace_id = $1::text::uuid
		AND record->>'name' = 'Undispatched'`, f.WorkspaceID); n != 1 {
		t.Error("an event not yet dispatched was deleted")
	}
	if n := count(`SELECT count(*) FROM webhook_events WHERE workspace_id = $1::text::uuid AND dispatched_at IS NOT NULL
		AND id <> $2::text::uuid`, f.WorkspaceID, kept); n != 0 {
		t.Errorf("%d old dispatched events left", n)
	}
}
