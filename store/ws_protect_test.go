package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// protection is what ws_protect gives a table: its workspace policies, its keyset and sync indexes (the table's name written as T), its triggers and the request role's privileges.
const protection = `
SELECT 'policy ' || polname || ' ' || polcmd::text || CASE WHEN polpermissive THEN '' ELSE ' restrictive' END ||
       ' using ' || coalesce(pg_get_expr(polqual, polrelid), '-') || ' check ' || coalesce(pg_get_expr(polwithcheck, polrelid), '-')
  FROM pg_policy WHERE polrelid = $1::regclass AND polname LIKE 'ws\_%' AND polname NOT LIKE 'ws\_%private%'
UNION ALL
SELECT 'index ' || pg_get_indexdef(indexrelid)
  FROM pg_index WHERE indrelid = $1::regclass AND indexrelid::regclass::text IN ($1::text || '_keyset', $1::text || '_sync')
UNION ALL
SELECT 'trigger ' || tgname || ' ' || tgfoid::regproc::text FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname IN ('touch', 'activity', 'webhook_event')
UNION ALL
SELECT 'grant ' || p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) p WHERE has_table_privilege('workspaced_app', $1::text, p)
UNION ALL
SELECT 'rls ' || relrowsecurity || ' ' || relforcerowsecurity FROM pg_class WHERE oid = $1::regclass
ORDER BY 1`

// TestWsProtectMakesWhatTheMigrationsMade: migration 00018 defines ws_protect once, in
// place of the three definitions of 00001, 00011 and 00012 that protected the tables
// made so far, and 00026 adds the webhook outbox trigger 00023 gave every table with an
// activity trigger. A table protected now gets exactly what those tables got.
func TestWsProtectMakesWhatTheMigrationsMade(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	for _, tc := range []struct{ existing, feature, writes string }{
		{"deals", "crm", "write"},        // feature-gated, written
		{"labels", "", "write"},          // no feature
		{"deal_labels", "crm", "detach"}, // a join record (00016 took its UPDATE back)
		{"task_attachments", "", "none"}, // read only
		{"agents", "agents", "none"},
	} {
		t.Run(tc.existing, func(t *testing.T) {
			err := pgx.BeginFunc(ctx, store.PoolOf(s), func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, `SELECT ws_resource_table('later_things', 'name text')`); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, `SELECT ws_protect('later_things', 'later_things', $1, $2)`, tc.feature, tc.writes); err != nil {
					return err
				}
				want := protectionOf(t, tx, tc.existing)
				got := protectionOf(t, tx, "later_things")
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("ws_protect('later_things', ..., %q, %q) differs from what %s got (-%s +later_things):\n%s",
						tc.feature, tc.writes, tc.existing, tc.existing, diff)
				}
				return errRollback
			})
			if err != errRollback {
				t.Fatal(err)
			}
		})
	}
}

func protectionOf(t *testing.T, tx pgx.Tx, table string) []string {
	t.Helper()
	rows, err := tx.Query(context.Background(), protection, table)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "index ") {
			lines[i] = strings.ReplaceAll(l, table, "T")
		}
	}
	if len(lines) == 0 {
		t.Fatalf("%s has no protection", table)
	}
	return lines
}
