package webhooks_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// slowReceiver answers 200 after delay and counts the requests in flight at once and the
// requests per event; check, when set, runs at each request's arrival.
type slowReceiver struct {
	*httptest.Server
	mu             sync.Mutex
	inFlight, most int
	got            map[string]int
	check          func()
}

func newSlowReceiver(t *testing.T, delay time.Duration) *slowReceiver {
	rc := &slowReceiver{got: map[string]int{}}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.inFlight++
		rc.most = max(rc.most, rc.inFlight)
		rc.got[r.Header.Get("webhook-id")]++
		check := rc.check
		rc.mu.Unlock()
		if check != nil {
			check()
		}
		time.Sleep(delay)
		rc.mu.Lock()
		rc.inFlight--
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	return rc
}

// events is how many distinct events arrived.
func (rc *slowReceiver) events() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

// checkOnce reports an event that arrived more than once.
func (rc *slowReceiver) checkOnce(t *testing.T) {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for id, n := range rc.got {
		if n != 1 {
			t.Errorf("event %s arrived %d times", id, n)
		}
	}
}

// createLabels makes n labels as f's admin, so n events.
func (e *env) createLabels(f storetest.Fixture, n int) {
	e.t.Helper()
	for i := range n {
		if r := e.do(f.Admin, "POST", "/labels", map[string]any{"name": fmt.Sprint("L", i)}); r.Status != http.StatusCreated {
			e.t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
	}
}

// slotCount counts the endpoint's rows of webhook_slots matching cond.
func (e *env) slotCount(endpoint, cond string) int {
	e.t.Helper()
	var n int
	e.serviceRow("", `SELECT count(*) FROM webhook_slots WHERE endpoint_id = $1::text::uuid AND `+cond, []any{endpoint}, &n)
	return n
}

// TestPerEndpointBoundHoldsAcrossProcesses: two delivery services, each with more workers
// than the bound, send one slow receiver at most PerEndpoint requests at a time between
// them, and every event still arrives once.
func TestPerEndpointBoundHoldsAcrossProcesses(t *testing.T) {
	const bound, events = 3, 24
	e := newEnv(t, loopbackPolicy)
	rc := newSlowReceiver(t, 150*time.Millisecond)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	endpoint, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	e.createLabels(f, events)
	bounded := func(c *webhooks.Config) { c.Workers, c.PerEndpoint = 2*bound, bound }
	e.start(e.newService(bounded))
	e.start(e.newService(bounded))
	eventually(t, "every event delivered", func() bool { return rc.events() == events })
	time.Sleep(300 * time.Millisecond) // room for a wrong extra delivery to arrive
	rc.mu.Lock()
	if rc.most > bound || rc.most < 2 {
		t.Errorf("at most %d requests at once reached the receiver, want between 2 and %d", rc.most, bound)
	}
	rc.mu.Unlock()
	rc.checkOnce(t)
	// The slots the processes held are released once they idle: given back
	// ('-infinity'), not left for their lease to run out.
	eventually(t, "every slot released", func() bool { return e.slotCount(endpoint, `held_until = '-infinity' AND holder IS NULL`) == bound })
}

// TestIdleSlotsGoToAnotherProcess: a running service that has delivered to an endpoint
// and then idles releases its slots, without being stopped and before their lease would
// run out, so another process can take every one of them.
func TestIdleSlotsGoToAnotherProcess(t *testing.T) {
	const bound = 4
	e := newEnv(t, loopbackPolicy)
	rc := newSlowReceiver(t, 50*time.Millisecond)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	endpoint, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	e.createLabels(f, 12)
	e.start(e.newService(func(c *webhooks.Config) { c.PerEndpoint = bound }))
	eventually(t, "every event delivered", func() bool { return rc.events() == 12 })
	if n := e.slotCount(endpoint, `holder IS NOT NULL`); n == 0 {
		t.Fatal("no slot held right after the deliveries")
	}
	eventually(t, "the idle service to release its slots", func() bool {
		return e.slotCount(endpoint, `held_until = '-infinity' AND holder IS NULL`) == bound
	})
	// Another process, by the rule every process takes slots with: free once held_until
	// has passed.
	var taken int
	e.serviceRow("", `WITH t AS (UPDATE webhook_slots SET holder = gen_random_uuid(), held_until = now() + interval '1 minute'
		WHERE endpoint_id = $1::text::uuid AND held_until <= now() RETURNING 1) SELECT count(*) FROM t`, []any{endpoint}, &taken)
	if taken != bound {
		t.Errorf("another process took %d slots, want all %d", taken, bound)
	}
}

// TestDeadProcessSlotsWaitForTheirLease: the slots a killed process left held (rows of
// another holder, as a SIGKILL leaves them) are taken only once their lease has passed by
// the database's clock, and those whose lease has not passed are never taken: with half of
// them held for an hour, at most the other half of the bound reaches the receiver at once.
// Waiting spends no attempt.
func TestDeadProcessSlotsWaitForTheirLease(t *testing.T) {
	const bound, events = 4, 12
	e := newEnv(t, loopbackPolicy)
	rc := newSlowReceiver(t, 100*time.Millisecond)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	endpoint, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	var expires time.Time
	e.serviceRow("", `WITH dead AS (INSERT INTO webhook_slots (endpoint_id, slot, holder, held_until)
			SELECT $1::text::uuid, g, gen_random_uuid(), now() + CASE WHEN g < $2 THEN interval '2 seconds' ELSE interval '1 hour' END
			FROM generate_series(0, $3 - 1) g RETURNING held_until)
		SELECT min(held_until) FROM dead`, []any{endpoint, bound / 2, bound}, &expires)
	var mu sync.Mutex
	early := 0
	rc.check = func() {
		var expired bool
		e.serviceRow("", `SELECT now() >= $1`, []any{expires}, &expired)
		if !expired {
			mu.Lock()
			early++
			mu.Unlock()
		}
	}
	e.createLabels(f, events)
	e.start(e.newService(func(c *webhooks.Config) { c.Workers, c.PerEndpoint = 2*bound, bound }))
	eventually(t, "every event delivered", func() bool { return rc.events() == events })
	mu.Lock()
	if early > 0 {
		t.Errorf("%d requests were sent while the dead process's leases still ran", early)
	}
	mu.Unlock()
	rc.mu.Lock()
	if rc.most > bound/2 {
		t.Errorf("%d requests at once reached the receiver, want at most the %d slots whose lease passed", rc.most, bound/2)
	}
	rc.mu.Unlock()
	rc.checkOnce(t)
	e.waitFirstAttempts(endpoint, events)
	if n := e.slotCount(endpoint, fmt.Sprintf(`slot >= %d AND held_until > now() + interval '50 minutes'`, bound/2)); n != bound/2 {
		t.Errorf("%d of the slots held for an hour are still held, want %d", n, bound/2)
	}
}

// TestBusySlotsAreRenewed: a service kept busy longer than one lease keeps its slots,
// renewed, while another service waits for them; and the bound holds between the two.
func TestBusySlotsAreRenewed(t *testing.T) {
	const bound = 2
	e := newEnv(t, loopbackPolicy)
	rc := newSlowReceiver(t, 250*time.Millisecond)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	endpoint, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	// Two slots, 8 requests a second: 14 seconds of work, more than a lease of 11 s
	// (Timeout 1 s, + 5 s for the job, + 5 s).
	const events = 112
	e.createLabels(f, events)
	bounded := func(c *webhooks.Config) { c.Workers, c.PerEndpoint, c.Timeout = 2*bound, bound, time.Second }
	e.start(e.newService(bounded))
	var holder string
	var first time.Time
	eventually(t, "one service to hold both slots", func() bool {
		var holders int
		e.serviceRow("", `SELECT count(DISTINCT holder), coalesce(min(holder::text), ''), coalesce(min(held_until), 'epoch')
			FROM webhook_slots WHERE endpoint_id = $1::text::uuid AND held_until > now()`, []any{endpoint}, &holders, &holder, &first)
		return holders == 1 && e.slotCount(endpoint, `held_until > now()`) == bound
	})
	e.start(e.newService(bounded))
	var renewed time.Time
	for rc.events() < events-bound*4 { // busy until the last second or so
		if n := e.slotCount(endpoint, fmt.Sprintf(`holder = '%s' AND held_until > now()`, holder)); n != bound {
			t.Fatalf("the busy service holds %d slots, want %d", n, bound)
		}
		e.serviceRow("", `SELECT min(held_until) FROM webhook_slots WHERE endpoint_id = $1::text::uuid`, []any{endpoint}, &renewed)
		time.Sleep(100 * time.Millisecond)
	}
	var past bool
	e.serviceRow("", `SELECT now() > $1`, []any{first}, &past)
	if !past {
		t.Fatalf("the service was busy less than one lease (until %s): the test proves nothing", first)
	}
	if !renewed.After(first) {
		t.Errorf("the slots' lease ended at %s, as first leased: never renewed", renewed)
	}
	eventually(t, "every event delivered", func() bool { return rc.events() == events })
	rc.mu.Lock()
	if rc.most > bound {
		t.Errorf("%d requests at once reached the receiver, want at most %d", rc.most, bound)
	}
	rc.mu.Unlock()
	rc.checkOnce(t)
}

// TestLongWaitForASlotSpendsNoAttempt: deliveries queued in one process behind a single
// slow slot wait longer than a job may run. Each is sent once, on its first attempt: a
// job whose wait for the slot runs too long goes back on the queue instead of starting an
// attempt its timeout would cut off (which the receiver would see, and see again on the
// retry).
func TestLongWaitForASlotSpendsNoAttempt(t *testing.T) {
	const events = 12
	e := newEnv(t, loopbackPolicy)
	rc := newSlowReceiver(t, 700*time.Millisecond) // 12 in a row: 8.4 s, past a job's 6 s
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	endpoint, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	e.createLabels(f, events)
	e.start(e.newService(func(c *webhooks.Config) { c.Workers, c.PerEndpoint, c.Timeout = events, 1, time.Second }))
	e.waitFirstAttempts(endpoint, events)
	rc.checkOnce(t)
	var errored int
	e.serviceRow("", `SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery' AND cardinality(errors) > 0`, nil, &errored)
	if errored != 0 {
		t.Errorf("%d delivery jobs failed a run (their timeout ran out), want 0", errored)
	}
}

// waitFirstAttempts waits for n deliveries to the endpoint to succeed and reports any that
// took more than one attempt: waiting for a slot spends none.
func (e *env) waitFirstAttempts(endpoint string, n int) {
	e.t.Helper()
	eventually(e.t, "every delivery recorded", func() bool {
		var done int
		e.serviceRow("", `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1::text::uuid AND status = 'succeeded'`,
			[]any{endpoint}, &done)
		return done == n
	})
	var spent int
	e.serviceRow("", `SELECT max(attempts) FROM webhook_deliveries WHERE endpoint_id = $1::text::uuid`, []any{endpoint}, &spent)
	if spent != 1 {
		e.t.Errorf("a delivery took %d attempts, want 1: waiting for a slot spends none", spent)
	}
}
