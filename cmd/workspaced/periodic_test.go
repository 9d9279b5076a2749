package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestPeriodicTaskRunsOncePerIntervalAcrossProcesses: two processes (each its own pool and
// loops) tick the same task every interval; between them it runs about once per interval,
// not once each, and the survivor keeps it running when the other stops.
func TestPeriodicTaskRunsOncePerIntervalAcrossProcesses(t *testing.T) {
	const every, window = 250 * time.Millisecond, 2 * time.Second
	dsn := storetest.DSN(t)
	var mu sync.Mutex
	var runs []time.Time
	task := func(context.Context, time.Time) error {
		mu.Lock()
		runs = append(runs, time.Now())
		mu.Unlock()
		return nil
	}
	process := func() *loops {
		s, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		srv := &server{store: s, log: discardLogger()}
		ls := newLoops(context.Background(), discardLogger())
		ls.Go(srv.periodic(t.Name(), every, task))
		return ls
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(runs)
	}
	a, b := process(), process()
	time.Sleep(window)
	a.Stop(time.Second)
	both := count()
	time.Sleep(window)
	b.Stop(time.Second)
	alone := count() - both

	// Once per interval: at most window / (0.9 * every) + 1 runs in a window (a claim needs
	// 90% of the interval to have passed), where two processes running on their own make
	// about twice window / every.
	most := int(window/(every*9/10)) + 1
	if both > most || both < 3 {
		t.Errorf("%d runs in %s with two processes ticking every %s, want 3 to %d", both, window, every, most)
	}
	if alone > most || alone < 3 {
		t.Errorf("%d runs in %s after one process stopped, want 3 to %d", alone, window, most)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(runs); i++ {
		if gap := runs[i].Sub(runs[i-1]); gap < every/2 {
			t.Errorf("runs %d and %d only %s apart: the task ran twice in one interval", i-1, i, gap)
		}
	}
}

// TestWebhookRetentionRunsPeriodically: the server runs webhook retention as one of its
// periodic tasks (store.ClaimRun), the first time at its start: an outbox event older than
// WEBHOOK_RETENTION_DAYS is deleted, a younger one kept.
func TestWebhookRetentionRunsPeriodically(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, "Retention "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	// Another server of this test binary may have claimed this hour's run already.
	if _, err := pool.Exec(ctx, `DELETE FROM periodic_runs WHERE name = 'webhook retention'`); err != nil {
		t.Fatal(err)
	}
	event := func(age string) string {
		var id string
		if err := pool.QueryRow(ctx, `INSERT INTO webhook_events (workspace_id, type, object, dispatched_at, created_at)
			VALUES ($1::text::uuid, 'labels.created', 'labels', now(), now() - $2::interval) RETURNING id::text`, ws, age).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	old, young := event("31 days"), event("29 days")
	count := func(id string) int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE id = $1::text::uuid`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	newTestServer(t, func(c *config) { c.WebhookRetentionDays = 30 })
	waitFor(t, 30*time.Second, func() bool { return count(old) == 0 }, "deletion of the event older than 30 days")
	if count(young) != 1 {
		t.Error("retention deleted the event younger than 30 days")
	}
}
