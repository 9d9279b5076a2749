package imports

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// chunksAtOnce runs the import id to its end and returns the most chunk statements of
// people (the batch's INSERT) that pg_stat_activity showed running at once, sampled every
// millisecond or so.
func (f *resumeFixture) chunksAtOnce(t *testing.T, id string) int {
	t.Helper()
	stop := make(chan struct{})
	most := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			var n int
			if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND state = 'active' AND query LIKE 'WITH x AS (INSERT INTO "people"%'`).Scan(&n); err != nil {
				t.Error(err)
				return
			}
			most = max(most, n)
			time.Sleep(time.Millisecond)
		}
	})
	status, _, created, _, _ := f.finish(t, id)
	close(stop)
	wg.Wait()
	if status != "completed" || created != 6000 {
		t.Fatalf("import %s, %d created, want completed with 6000", status, created)
	}
	return most
}

// An import writes its chunks on its Writers' connections at once while the API is quiet,
// and one at a time while API operations keep arriving: the API's requests then find a
// core free (docs/rest.md, "Imports").
func TestImportYieldsToTheAPI(t *testing.T) {
	f := newResumeFixture(t)
	csv := func(run string) string {
		return peopleCSV(6000, func(i int) string { return fmt.Sprintf("%s%d@writers.example", run, i) })
	}
	if most := f.chunksAtOnce(t, f.create(t, "create", "", csv("quiet"))); most != 2 {
		t.Errorf("quiet API: at most %d chunks written at once, want 2 (Writers)", most)
	}

	var person string
	f.query(t, `SELECT id::text FROM people LIMIT 1`, nil, &person)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	gets := 0
	wg.Go(func() { // reads by id, one after another, as the API's requests
		for ctx.Err() == nil {
			if _, err := f.svc.ops.Get(ctx, f.p, workspace.Lookup("people"), person); err != nil && ctx.Err() == nil {
				t.Error(err)
				return
			}
			gets++
		}
	})
	time.Sleep(100 * time.Millisecond)
	most := f.chunksAtOnce(t, f.create(t, "create", "", csv("busy")))
	cancel()
	wg.Wait()
	if most != 1 {
		t.Errorf("busy API (%d reads): at most %d chunks written at once, want 1", gets, most)
	}
}
