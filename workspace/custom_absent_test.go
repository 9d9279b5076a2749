package workspace_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestCustomAbsentRows: every record has, for each custom field of its resource, either
// custom_values rows or one custom_absent row (store/migrations/00059_custom_absent.sql),
// which [null]=true and the end of a custom sort read: after inserts with and without
// values, updates that set and clear one, a field added after the records, and a record
// written while a field is being added, whichever of the two transactions commits first
// (each waits for the other, so neither misses the other's row).
func TestCustomAbsentRows(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	addField := func(db execer, key, typ, options string) error {
		_, err := db.Exec(ctx, `INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type, options)
			VALUES ($1, $2, 'tasks', $3, $3, $4, $5::jsonb)`, f.WorkspaceID, f.Admin.UserID, key, typ, options)
		return err
	}
	addTask := func(db execer, name, values string) error {
		_, err := db.Exec(ctx, `INSERT INTO tasks (workspace_id, created_by, name, custom_fields) VALUES ($1, $2, $3, $4::jsonb)`,
			f.WorkspaceID, f.Admin.UserID, name, values)
		return err
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// broken lists each (task, field) without exactly one of the two.
	broken := func() []string {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT t.name || '/' || f.key FROM tasks t JOIN custom_fields f ON f.workspace_id = t.workspace_id AND f.resource = 'tasks'
			WHERE t.workspace_id = $1
			  AND (EXISTS (SELECT 1 FROM custom_values v WHERE v.record_id = t.id AND v.field_id = f.id))::int
			      + (SELECT count(*) FROM custom_absent a WHERE a.record_id = t.id AND a.field_id = f.id) <> 1
			ORDER BY 1`, f.WorkspaceID)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	absent := func(name, key string) bool {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM custom_absent a JOIN tasks t ON t.id = a.record_id JOIN custom_fields f ON f.id = a.field_id
			WHERE t.workspace_id = $1 AND t.name = $2 AND f.key = $3`, f.WorkspaceID, name, key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	must(addField(pool, "n", "number", "[]"))
	must(addField(pool, "m", "multi_select", `[{"key":"o0","label":"O0"}]`))
	must(addTask(pool, "full", `{"n": 1, "m": ["o0"]}`))
	must(addTask(pool, "empty", `{"m": []}`))
	must(addTask(pool, "none", `{}`))
	// Updates through the record trigger: none gains n, empty swaps n's absence for m's.
	for _, sql := range []string{
		`UPDATE tasks SET custom_fields = '{"n": 2}' WHERE workspace_id = $1 AND name = 'none'`,
		`UPDATE tasks SET custom_fields = '{"n": null, "m": ["o0"]}' WHERE workspace_id = $1 AND name = 'empty'`,
	} {
		_, err := pool.Exec(ctx, sql, f.WorkspaceID)
		must(err)
	}
	must(addField(pool, "late", "text", "[]"))
	for _, c := range []struct {
		task, key string
		absent    bool
	}{
		{"full", "n", false}, {"full", "m", false}, {"full", "late", true},
		{"empty", "n", true}, {"empty", "m", false}, {"none", "n", false}, {"none", "m", true},
	} {
		if got := absent(c.task, c.key); got != c.absent {
			t.Errorf("%s/%s: absent %v, want %v", c.task, c.key, got, c.absent)
		}
	}

	// waiting returns once a statement of the test's database waits for an advisory lock.
	waiting := func() {
		t.Helper()
		for range 200 {
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("no statement waits for the fields' lock")
	}
	concurrently := func(first, second func(db execer) error) {
		t.Helper()
		tx, err := pool.Begin(ctx)
		must(err)
		defer func() { _ = tx.Rollback(ctx) }()
		must(first(tx))
		done := make(chan error)
		go func() { done <- second(pool) }()
		waiting()
		must(tx.Commit(ctx))
		must(<-done)
	}
	// A task inserted, not yet committed, when a field is added; then a field added, not
	// yet committed, when a task is inserted.
	concurrently(func(db execer) error { return addTask(db, "before", `{}`) },
		func(db execer) error { return addField(db, "meanwhile", "number", "[]") })
	concurrently(func(db execer) error { return addField(db, "after", "number", "[]") },
		func(db execer) error { return addTask(db, "later", `{"n": 3}`) })
	if !absent("before", "meanwhile") || !absent("later", "after") {
		t.Errorf("before/meanwhile absent %v, later/after absent %v: want both", absent("before", "meanwhile"), absent("later", "after"))
	}
	if b := broken(); len(b) > 0 {
		t.Errorf("tasks and fields without exactly one of values or an absent row: %v", b)
	}
}

// execer is a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}
