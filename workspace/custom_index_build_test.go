package workspace_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// Two processes building custom indexes of one table at the same time both succeed:
// CREATE INDEX CONCURRENTLY waits for the transactions older than its snapshot, among them
// another build of the same table waiting for the table's lock, which PostgreSQL ends as a
// deadlock (workspace/sortindex.go, buildCustomIndex).
func TestCustomIndexBuildsOfOneTableAcrossProcesses(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	run := runKey("bp")
	// Deals carrying every key of the run, so each build reads rows.
	if _, err := pool.Exec(ctx, `WITH p AS (INSERT INTO pipelines (workspace_id, name) VALUES ($1, 'Builds') RETURNING id)
		INSERT INTO deals (workspace_id, name, pipeline_id, custom_fields)
		SELECT $1, 'Deal ' || g, p.id, (SELECT jsonb_object_agg($2::text || '_' || k, g) FROM unnest('{a0,b0,a1,b1,a2,b2}'::text[]) k)
		FROM p, generate_series(1, 20000) g`, f.WorkspaceID, run); err != nil {
		t.Fatal(err)
	}
	for round := range 3 { // each round two new processes, two new keys
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, key := range []string{fmt.Sprintf("%s_a%d", run, round), fmt.Sprintf("%s_b%d", run, round)} {
			ops := workspace.NewOps(workspace.Config{Store: s})
			wg.Go(func() { errs[i] = ops.BuildCustomSortIndex(ctx, "deals", key, "n") })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, process %d: %v", round, i, err)
			}
		}
	}
	var valid int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE starts_with(c.relname, $1) AND i.indisvalid`, "deals_cf_"+run).Scan(&valid); err != nil {
		t.Fatal(err)
	}
	if valid != 6 {
		t.Errorf("%d valid indexes, want 6", valid)
	}
}
