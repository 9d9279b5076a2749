package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestQueryAtFields: every committed change to a workspace's custom field definitions
// (insert, update) moves its version up, a change rolled back and another workspace's
// change do not, and QueryAtFields runs its statement only at the current version: at
// another it returns ErrFieldsChanged, scan is not called and nothing of the batch
// commits, not even a write.
func TestQueryAtFields(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	a := storetest.Workspace(t, s, nil)
	b := storetest.Workspace(t, s, nil)
	version := func(p *auth.Principal) int64 {
		t.Helper()
		var v int64
		if err := s.Query(ctx, p.Actor(), "SELECT "+store.FieldsVersion, nil, func(rows pgx.Rows) error {
			rows.Next()
			return rows.Scan(&v)
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	write := func(p *auth.Principal, sql string, rollback bool) {
		t.Helper()
		errRollback := errors.New("rollback")
		err := s.InTx(ctx, p.Actor(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return err
			}
			if rollback {
				return errRollback
			}
			return nil
		})
		if err != nil && !(rollback && errors.Is(err, errRollback)) {
			t.Fatal(err)
		}
	}
	if v := version(a.Admin); v != 0 {
		t.Fatalf("a workspace without definitions is at version %d, want 0", v)
	}
	add := `INSERT INTO custom_fields (resource, key, label, type) VALUES ('tasks', 'effort', 'Effort', 'number')`
	write(a.Admin, add, true)
	if v := version(a.Admin); v != 0 {
		t.Fatalf("after a rolled back insert: version %d, want 0", v)
	}
	write(a.Admin, add, false)
	if v := version(a.Admin); v != 1 {
		t.Fatalf("after an insert: version %d, want 1", v)
	}
	write(a.Admin, `UPDATE custom_fields SET label = 'Effort (days)' WHERE key = 'effort'`, false)
	if v := version(a.Admin); v != 2 {
		t.Fatalf("after an update: version %d, want 2", v)
	}
	if v := version(a.Member); v != 2 {
		t.Fatalf("a member reads version %d, want the workspace's 2", v)
	}
	if v := version(b.Admin); v != 0 {
		t.Fatalf("another workspace's change moved b to version %d", v)
	}

	rename := `UPDATE custom_fields SET label = 'ran' WHERE key = 'effort' RETURNING label`
	var got string
	scan := func(rows pgx.Rows) error {
		for rows.Next() {
			if err := rows.Scan(&got); err != nil {
				return err
			}
		}
		return nil
	}
	for _, sync := range []bool{false, true} {
		got = ""
		if err := s.QueryAtFields(ctx, a.Admin.Actor(), 1, sync, rename, nil, scan); !errors.Is(err, store.ErrFieldsChanged) {
			t.Fatalf("sync %v: at an old version: %v, want ErrFieldsChanged", sync, err)
		}
		var label string
		if err := store.PoolOf(s).QueryRow(ctx, `SELECT label FROM custom_fields WHERE workspace_id = $1`, a.WorkspaceID).Scan(&label); err != nil {
			t.Fatal(err)
		}
		if got != "" || label != "Effort (days)" {
			t.Fatalf("sync %v: the statement ran at an old version: scanned %q, label now %q", sync, got, label)
		}
	}
	if err := s.QueryAtFields(ctx, a.Admin.Actor(), 2, true, `SELECT label FROM custom_fields WHERE updated_at < `+store.SyncHorizon, nil, scan); err != nil || got != "Effort (days)" {
		t.Fatalf("at the current version, with the sync horizon: %q, %v", got, err)
	}
	if err := s.QueryAtFields(ctx, a.Admin.Actor(), 2, false, rename, nil, scan); err != nil || got != "ran" {
		t.Fatalf("at the current version: %q, %v", got, err)
	}
	if v := version(a.Admin); v != 3 {
		t.Fatalf("after the write at the current version: %d, want 3", v)
	}
}
