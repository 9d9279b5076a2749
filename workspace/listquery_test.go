package workspace_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestConditionPagesFollowTheWalk pages through tasks filtered by operator conditions in
// the list's own order, as a member, and compares every page with the rows SQL of the
// test's own selects as the owner: the same tasks in the same order (created_at ties
// broken by id), each once, none of the private tasks of another member. A condition
// matching more than fewMatches rows (workspace/listquery.go) is answered by the keyset
// walk on its first pages and by the probe's few rows once fewer remain past the cursor,
// so the pages cross from one way to the other.
func TestConditionPagesFollowTheWalk(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	ops := workspace.NewOps(workspace.Config{Store: s})
	// 600 tasks: half created at the same instant, priority g % 5, one in eight without a
	// due date, one in seven private to the admin who made them.
	if _, err := pool.Exec(ctx, `INSERT INTO tasks (workspace_id, created_by, name, priority, due_date, is_private, created_at)
		SELECT $1, $2, 'task ' || (g % 50), g % 5, CASE WHEN g % 8 = 0 THEN NULL ELSE current_date END, g % 7 = 0,
		       CASE WHEN g <= 300 THEN now() ELSE now() - g * interval '1 ms' END
		  FROM generate_series(1, 600) g`, f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op    workspace.Condition
		where string // the same condition in SQL
	}{
		{workspace.Condition{Field: "priority", Op: workspace.OpEq, Value: "1"}, "priority = 1"},
		{workspace.Condition{Field: "priority", Op: workspace.OpGte, Value: "1"}, "priority >= 1"},
		{workspace.Condition{Field: "priority", Op: workspace.OpNe, Value: "3"}, "priority <> 3"},
		{workspace.Condition{Field: "priority", Op: workspace.OpIn, Value: "0,4"}, "priority IN (0, 4)"},
		{workspace.Condition{Field: "name", Op: workspace.OpPrefix, Value: "task 1"}, "name LIKE 'task 1%'"},
		{workspace.Condition{Field: "due_date", Op: workspace.OpNull, Value: "true"}, "due_date IS NULL"},
		{workspace.Condition{Field: "due_date", Op: workspace.OpNull, Value: "false"}, "due_date IS NOT NULL"},
	} {
		t.Run(c.where, func(t *testing.T) {
			rows, err := pool.Query(ctx, `SELECT id::text FROM tasks WHERE workspace_id = $1 AND NOT is_private AND `+c.where+
				` ORDER BY created_at DESC, id DESC`, f.WorkspaceID)
			if err != nil {
				t.Fatal(err)
			}
			want, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			params := workspace.ListParams{Where: []workspace.Condition{c.op}, Limit: 50}
			for pages := 0; ; pages++ {
				if pages > 20 {
					t.Fatal("paging does not end")
				}
				page, err := ops.List(ctx, reader, workspace.Lookup("tasks"), params)
				if err != nil {
					t.Fatal(err)
				}
				var recs []struct{ ID string }
				if err := json.Unmarshal(page.Data, &recs); err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					got = append(got, r.ID)
				}
				if page.NextCursor == nil {
					break
				}
				params.Cursor = *page.NextCursor
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d tasks, want %d in the walk's order\ngot  %v\nwant %v", len(got), len(want), got, want)
			}
		})
	}
}
