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
