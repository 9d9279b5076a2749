package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// syncIndexed lists the tables with an index on exactly (workspace_id, updated_at, id).
const syncIndexed = `SELECT DISTINCT i.indrelid::regclass::text FROM pg_index i
	WHERE (SELECT array_agg(a.attname::text ORDER BY k.n) FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
	       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) = ARRAY['workspace_id', 'updated_at', 'id']`

// TestEveryWorkspaceTableHasTheSyncIndex: incremental sync (order=updated_at) walks
// (workspace_id, updated_at, id) on every table ws_protect protects, the ones the
// migrations made and any made later (migration 00012).
func TestEveryWorkspaceTableHasTheSyncIndex(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	indexed := map[string]bool{}
	rows, err := store.PoolOf(s).Query(ctx, syncIndexed)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		indexed[name] = true
	}
	for table, selectable := range workspaceTables(t, s) {
		// Credential tables; keys are looked up by their own key; custom_values and
		// custom_absent are read only inside the filters and sorts of their records
		// (workspace/customquery.go), custom_field_versions only by its key (store/fields.go);
		// an import and its parts, chunks and errors are read by the import's id (imports/),
		// never synced.
		if !selectable || table == "idempotency_keys" || table == "custom_values" || table == "custom_absent" ||
			table == "custom_field_versions" ||
			table == "imports" || table == "import_parts" || table == "import_chunks" || table == "import_errors" {
			continue
		}
		if !indexed[table] {
			t.Errorf("%s has no (workspace_id, updated_at, id) index", table)
		}
	}

	t.Run("ws_protect indexes tables made later", func(t *testing.T) {
		err := pgx.BeginFunc(ctx, store.PoolOf(s), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT ws_resource_table('later_things', 'name text'); SELECT ws_protect('later_things', 'later_things', '', 'write')`); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM (`+syncIndexed+`) x WHERE indrelid = 'later_things'`).Scan(&n); err != nil {
				return err
			}
			if n != 1 {
				t.Errorf("a table protected after migration 00012 has %d sync indexes, want 1", n)
			}
			return errRollback
		})
		if err != errRollback {
			t.Fatal(err)
		}
	})
}

var errRollback = rollback{}

type rollback struct{}

func (rollback) Error() string { return "rollback" }

// TestUpdatesMoveUpdatedAtForward: updated_at is a record's version (ETag, If-Match,
// sync cursors), so every update moves it strictly forward, even several in one
// transaction, where now() would not move.
func TestUpdatesMoveUpdatedAtForward(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, "versions", store.By{})
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, store.PoolOf(s), func(tx pgx.Tx) error {
		var id string
		var v0 time.Time
		if err := tx.QueryRow(ctx, `INSERT INTO labels (workspace_id, name) VALUES ($1, 'v') RETURNING id, updated_at`, ws).Scan(&id, &v0); err != nil {
			return err
		}
		last := v0
		for i := range 5 {
			var v time.Time
			if err := tx.QueryRow(ctx, `UPDATE labels SET name = $2 WHERE id = $1 RETURNING updated_at`, id, fmt.Sprint(i)).Scan(&v); err != nil {
				return err
			}
			if !v.After(last) {
				t.Errorf("update %d: updated_at %v does not move past %v", i, v, last)
			}
			last = v
		}
		// A clock that steps back still moves the version forward: a version an hour
		// ahead (written with triggers off, as a replica would) is followed, not undercut.
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE labels SET updated_at = now() + interval '1 hour' WHERE id = $1`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = origin`); err != nil {
			return err
		}
		var ahead, after time.Time
		if err := tx.QueryRow(ctx, `SELECT updated_at FROM labels WHERE id = $1`, id).Scan(&ahead); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `UPDATE labels SET name = 'w' WHERE id = $1 RETURNING updated_at`, id).Scan(&after); err != nil {
			return err
		}
		if !after.After(ahead) {
			t.Errorf("updated_at %v after %v: a later version must be greater", after, ahead)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
