package webhooks_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

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
	e.serviceRow(f.WorkspaceID, `INSERT INTO webhook_events (workspace_id, type, object, object_id, endpoint_id)
		VALUES ($1::text::uuid, 'ping', 'webhook_endpoints', $2::text::uuid, $2::text::uuid) RETURNING id::text`,
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
