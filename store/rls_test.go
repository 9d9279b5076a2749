package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

func plainHash(s string) (string, error) { return "test:" + s, nil }

// seeded makes two demo workspaces with a record in every table and returns their admins.
func seeded(t *testing.T, s *store.Store) (a, b *auth.Principal) {
	t.Helper()
	ctx := context.Background()
	da, err := s.SeedDemo(ctx, plainHash)
	if err != nil {
		t.Fatal(err)
	}
	db, err := s.SeedDemo(ctx, plainHash)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []store.Demo{da, db} {
		if err := s.SeedEmptyTables(ctx, d.WorkspaceID, d.AdminUserID, workspace.RecordTables()); err != nil {
			t.Fatal(err)
		}
	}
	pa, err := auth.Resolved(s.AgentKeyIdentity(ctx, da.AgentKey, nil))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := auth.Resolved(s.AgentKeyIdentity(ctx, db.AgentKey, nil))
	if err != nil {
		t.Fatal(err)
	}
	// Transient rows the demo seed does not make.
	for _, ws := range []string{da.WorkspaceID, db.WorkspaceID} {
		if _, err := store.PoolOf(s).Exec(ctx, `INSERT INTO credit_holds (workspace_id, amount, domain, expires_at)
			VALUES ($1, 1, 'held.example', now() + interval '1 minute')`, ws); err != nil {
			t.Fatal(err)
		}
		if _, err := store.PoolOf(s).Exec(ctx, `INSERT INTO idempotency_keys (workspace_id, credential, key, fingerprint, locked_until, expires_at)
			VALUES ($1, 'agent_key:seed', 'seed-key', '\x00', now(), now() + interval '1 day')`, ws); err != nil {
			t.Fatal(err)
		}
	}
	// An import of each admin's, with a stored part, a committed chunk and a failed row: an import is visible
	// only to the member who started it (store/migrations/00057_imports.sql).
	for _, d := range []struct{ ws, user string }{{da.WorkspaceID, da.AdminUserID}, {db.WorkspaceID, db.AdminUserID}} {
		if _, err := store.PoolOf(s).Exec(ctx, `WITH i AS (INSERT INTO imports (workspace_id, user_id, resource, operation, mapping, format)
				VALUES ($1, $2, 'people', 'create', '{}', 'csv') RETURNING id, workspace_id),
			p AS (INSERT INTO import_parts (import_id, seq, workspace_id, data) SELECT id, 0, workspace_id, 'name' FROM i),
			c AS (INSERT INTO import_chunks (import_id, first_row, rows, end_offset, workspace_id) SELECT id, 1, 1, 10, workspace_id FROM i)
			INSERT INTO import_errors (import_id, row_number, workspace_id, reason, cells) SELECT id, 1, workspace_id, 'seed', '{}' FROM i`,
			d.ws, d.user); err != nil {
			t.Fatal(err)
		}
	}
	// A custom field on people, which none of them holds yet: its custom_absent rows
	// (store/migrations/00059_custom_absent.sql).
	for _, d := range []struct{ ws, user string }{{da.WorkspaceID, da.AdminUserID}, {db.WorkspaceID, db.AdminUserID}} {
		if _, err := store.PoolOf(s).Exec(ctx, `INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type)
			VALUES ($1, $2, 'people', 'nickname', 'Nickname', 'text')`, d.ws, d.user); err != nil {
			t.Fatal(err)
		}
	}
	// Act as the admins, who hold every grant.
	pa.UserID, pa.Role = da.AdminUserID, "admin"
	pb.UserID, pb.Role = db.AdminUserID, "admin"
	return pa, pb
}

// workspaceTables lists every table with a workspace_id column, and whether the request
// role may select from it.
func workspaceTables(t *testing.T, s *store.Store) map[string]bool {
	t.Helper()
	rows, err := store.PoolOf(s).Query(context.Background(), `SELECT c.table_name,
			has_table_privilege('workspaced_app', c.table_name, 'SELECT')
		FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE c.table_schema = 'public' AND c.column_name = 'workspace_id' AND t.table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for rows.Next() {
		var name string
		var ok bool
		if err := rows.Scan(&name, &ok); err != nil {
			t.Fatal(err)
		}
		out[name] = ok
	}
	if len(out) < 45 {
		t.Fatalf("found %d workspace tables, want at least 45", len(out))
	}
	return out
}

func TestUnfilteredSelectSeesOnlyOwnWorkspace(t *testing.T) {
	s := storetest.New(t)
	a, b := seeded(t, s)
	ctx := context.Background()
	for table, selectable := range workspaceTables(t, s) {
		t.Run(table, func(t *testing.T) {
			err := s.InTx(ctx, a.Actor(), func(tx pgx.Tx) error {
				var total, foreign int
				err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE workspace_id <> $1) FROM `+
					pgx.Identifier{table}.Sanitize(), a.WorkspaceID).Scan(&total, &foreign)
				if err != nil {
					return err
				}
				if foreign != 0 {
					t.Errorf("%s: actor of A sees %d rows of other workspaces", table, foreign)
				}
				if total == 0 {
					t.Errorf("%s: actor of A sees none of its own rows; the seed should fill every table", table)
				}
				return nil
			})
			if selectable && err != nil {
				t.Fatal(err)
			}
			if !selectable && !isCode(err, "42501") {
				t.Fatalf("%s: request role should have no access to credential tables, got %v", table, err)
			}
		})
	}
	// And the other way round, on one table.
	var n int
	if err := s.InTx(ctx, b.Actor(), func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT count(*) FROM deals WHERE workspace_id = $1`, a.WorkspaceID).Scan(&n)
	}); err != nil || n != 0 {
		t.Fatalf("B sees %d of A's deals (err %v)", n, err)
	}
}

func isCode(err error, code string) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == code
}

func TestWritesCannotCrossWorkspaces(t *testing.T) {
	s := storetest.New(t)
	a, b := seeded(t, s)
	ctx := context.Background()
	var bPipeline, bLabel string
	if err := s.InTx(ctx, b.Actor(), func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT id::text FROM pipelines LIMIT 1`).Scan(&bPipeline); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT id::text FROM labels LIMIT 1`).Scan(&bLabel)
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		sql      string
		args     []any
		wantCode string // SQLSTATE, or "" for "no row touched"
	}{
		{"insert a row into B", `INSERT INTO labels (workspace_id, name) VALUES ($1, 'x')`, []any{b.WorkspaceID}, "42501"},
		{"update B's row", `UPDATE labels SET name = 'pwned' WHERE id = $1`, []any{bLabel}, ""},
		{"move own row to B", `UPDATE labels SET workspace_id = $1`, []any{b.WorkspaceID}, "42501"},
		{"point a deal at B's pipeline", `INSERT INTO deals (name, pipeline_id) VALUES ('x', $1)`, []any{bPipeline}, "23503"},
		{"detach B's rows", `DELETE FROM deal_labels WHERE label_id = $1`, []any{bLabel}, ""},
		{"turn RLS off", `SET LOCAL row_security = off; SELECT 1 FROM deals`, nil, "42501"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var affected int64
			err := s.InTx(ctx, a.Actor(), func(tx pgx.Tx) error {
				if c.args == nil {
					_, err := tx.Exec(ctx, c.sql, pgx.QueryExecModeSimpleProtocol)
					return err
				}
				tag, err := tx.Exec(ctx, c.sql, c.args...)
				affected = tag.RowsAffected()
				return err
			})
			if c.wantCode != "" && !isCode(err, c.wantCode) {
				t.Fatalf("want SQLSTATE %s, got %v", c.wantCode, err)
			}
			if c.wantCode == "" && (err != nil || affected != 0) {
				t.Fatalf("want no row touched, got %d rows, err %v", affected, err)
			}
		})
	}
	// B's label is unchanged.
	var name string
	if err := s.InTx(ctx, b.Actor(), func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT name FROM labels WHERE id = $1`, bLabel).Scan(&name)
	}); err != nil || name != "Hot" {
		t.Fatalf("B's label now %q (err %v)", name, err)
	}
}

func TestRequestRoleCannotBypassRLS(t *testing.T) {
	s := storetest.New(t)
	a, _ := seeded(t, s)
	ctx := context.Background()
	var super, bypass bool
	if err := store.PoolOf(s).QueryRow(ctx, `SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = 'workspaced_app'`).
		Scan(&super, &bypass); err != nil {
		t.Fatal(err)
	}
	if super || bypass {
		t.Fatalf("workspaced_app: superuser %v, bypassrls %v", super, bypass)
	}
	var user string
	var forced int
	err := s.Query(ctx, a.Actor(), `SELECT current_user, (SELECT count(*) FROM pg_class WHERE relkind = 'r'
			AND relnamespace = 'public'::regnamespace AND relrowsecurity AND relforcerowsecurity)`, nil,
		func(rows pgx.Rows) error {
			rows.Next()
			return rows.Scan(&user, &forced)
		})
	if err != nil {
		t.Fatal(err)
	}
	if user != "workspaced_app" {
		t.Fatalf("queries run as %q, want workspaced_app", user)
	}
	if forced < 45 {
		t.Fatalf("%d tables have RLS enabled and forced, want every workspace table", forced)
	}
	// The actor settings are transaction-local: the next statement on the pool has none.
	var ws string
	if err := store.PoolOf(s).QueryRow(ctx, `SELECT coalesce(current_setting('app.workspace_id', true), '')`).Scan(&ws); err != nil {
		t.Fatal(err)
	}
	if ws != "" {
		t.Fatalf("actor leaked onto a pooled connection: %q", ws)
	}
}

func TestPrivateTasksVisibility(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, nil)
	crm := map[string]string{"crm": "full"}
	creator := storetest.AddUser(t, s, f.WorkspaceID, "member", crm, nil)
	assignee := storetest.AddUser(t, s, f.WorkspaceID, "member", crm, nil)
	listed := storetest.AddUser(t, s, f.WorkspaceID, "member", crm, nil)
	other := storetest.AddUser(t, s, f.WorkspaceID, "member", crm, nil)
	if err := s.SeedRecords(ctx, f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	err := s.InTx(ctx, creator.Actor(), func(tx pgx.Tx) error {
		var deal string
		if err := tx.QueryRow(ctx, `SELECT id::text FROM deals LIMIT 1`).Scan(&deal); err != nil {
			return err
		}
		for _, table := range []string{"tasks", "deal_tasks"} {
			var id string
			sql := `INSERT INTO tasks (name, is_private, assignee_id, assignee_ids) VALUES ('secret', true, $1, ARRAY[$2::uuid]) RETURNING id::text`
			args := []any{assignee.UserID, listed.UserID}
			if table == "deal_tasks" {
				sql = `INSERT INTO deal_tasks (deal_id, name, is_private, assignee_id, assignee_ids) VALUES ($3, 'secret', true, $1, ARRAY[$2::uuid]) RETURNING id::text`
				args = append(args, deal)
			}
			if err := tx.QueryRow(ctx, sql, args...).Scan(&id); err != nil {
				return err
			}
			ids[table] = id
			if _, err := tx.Exec(ctx, `INSERT INTO comments (entity_type, entity_id, content) VALUES ('task', $1, 'hush')`, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	who := []struct {
		name string
		p    *auth.Principal
		sees bool
	}{
		{"creator", creator, true}, {"assignee", assignee, true}, {"in assignee_ids", listed, true},
		{"admin", f.Admin, true}, {"other member", other, false},
	}
	for _, w := range who {
		for table, id := range ids {
			t.Run(w.name+"/"+table, func(t *testing.T) {
				var tasks, comments, activity, updated int
				err := s.InTx(ctx, w.p.Actor(), func(tx pgx.Tx) error {
					if err := tx.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE id = $1`, id).Scan(&tasks); err != nil {
						return err
					}
					if err := tx.QueryRow(ctx, `SELECT count(*) FROM comments WHERE entity_id = $1`, id).Scan(&comments); err != nil {
						return err
					}
					if err := tx.QueryRow(ctx, `SELECT count(*) FROM activity WHERE entity_id = $1 AND action = 'created'`, id).Scan(&activity); err != nil {
						return err
					}
					tag, err := tx.Exec(ctx, `UPDATE `+table+` SET description = 'seen' WHERE id = $1`, id)
					updated = int(tag.RowsAffected())
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				if w.sees {
					want = 1
				}
				if tasks != want || comments != want || activity != want || updated != want {
					t.Fatalf("task %d, comments %d, activity %d, updated %d; want %d each", tasks, comments, activity, updated, want)
				}
			})
		}
	}
}

func TestAutomationsNeedAdminInTheDatabase(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, nil)
	err := s.InTx(ctx, f.Member.Actor(), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO automations (name) VALUES ('x')`)
		return err
	})
	if !isCode(err, "42501") {
		t.Fatalf("member insert: want 42501, got %v", err)
	}
	err = s.InTx(ctx, f.Admin.Actor(), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO automations (name) VALUES ('x')`)
		return err
	})
	if err != nil {
		t.Fatalf("admin insert: %v", err)
	}
	// Members cannot change their own role even though they may update their profile.
	err = s.InTx(ctx, f.Member.Actor(), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE users SET role = 'admin' WHERE id = $1`, f.Member.UserID)
		return err
	})
	if !isCode(err, "42501") {
		t.Fatalf("role change: want 42501, got %v", err)
	}
}

// TestSeedEmptyTablesFillsEveryResourceTable: on a workspace the hand-written seed never
// touched, SeedEmptyTables alone gives every resource table a row, the path a resource the
// seed does not know takes.
func TestSeedEmptyTablesFillsEveryResourceTable(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, nil)
	// Every table but comments, whose entity_id is polymorphic (no foreign key names what
	// it refers to) and so is left to the hand-written seed.
	tables := slices.DeleteFunc(workspace.RecordTables(), func(t string) bool { return t == "comments" })
	if err := s.SeedEmptyTables(ctx, f.WorkspaceID, f.Admin.UserID, tables); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		var n int
		if err := store.PoolOf(s).QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()+
			` WHERE workspace_id = $1`, f.WorkspaceID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("%s has no row of the workspace", table)
		}
	}
}
