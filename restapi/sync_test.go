package restapi_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestSyncNeverPassesATransactionInFlight (docs/rest.md, "Incremental sync"). A write
// stamps updated_at when its transaction starts and is seen when it commits, so a change
// can commit after a later one was read; following docs/rest.md's recipe (keep the last
// updated_at seen, pass it as updated_since next run), such a change was never returned.
// Now a sync page stops short of the oldest transaction in flight, so every committed
// change comes in some run.
func TestSyncNeverPassesATransactionInFlight(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	ctx := context.Background()
	early := create(t, c, "/labels", map[string]any{"name": "early"})["id"].(string)
	since := time.Now().UTC()

	// A writer starts, stamps "early" and holds its transaction open...
	stamped, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- e.store.InTx(ctx, f.Admin.Actor(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE labels SET name = 'late commit' WHERE id = $1`, early); err != nil {
				close(stamped)
				return err
			}
			close(stamped)
			<-release
			return nil
		})
	}()
	<-stamped
	// ...while another change is made and committed after it started.
	time.Sleep(5 * time.Millisecond)
	later := create(t, c, "/labels", map[string]any{"name": "later"})["id"].(string)

	seen := map[string]string{}
	sync := func() {
		t.Helper()
		for next := "/labels?order=updated_at&limit=50&updated_since=" + url.QueryEscape(since.Format(time.RFC3339Nano)); next != ""; {
			r := must(t, c.get(next), http.StatusOK)
			for _, rec := range r.list() {
				seen[rec["id"].(string)] = rec["name"].(string)
				at, _ := time.Parse(time.RFC3339Nano, rec["updated_at"].(string))
				since = at // the recipe: the last updated_at seen is the next run's updated_since
			}
			next = ""
			if cur, _ := r.Body["next_cursor"].(string); cur != "" {
				next = "/labels?order=updated_at&limit=50&updated_since=" + url.QueryEscape(since.Format(time.RFC3339Nano)) + "&cursor=" + cur
			}
		}
	}
	sync()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sync()
	if seen[early] != "late commit" || seen[later] != "later" {
		t.Fatalf("after two runs the sync saw %v; want %s as \"late commit\" and %s as \"later\"", seen, early, later)
	}
}
