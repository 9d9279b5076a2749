package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestQueryGenericRunsGenericPlans: QueryGeneric's statement runs with plan_cache_mode =
// force_generic_plan, so a prepared statement is planned once per connection; Query's,
// and the next transaction on the same pool, keep the server's choice (auto).
func TestQueryGenericRunsGenericPlans(t *testing.T) {
	s := storetest.New(t)
	f := storetest.Workspace(t, s, nil)
	mode := func(query func(context.Context, store.Actor, string, []any, func(pgx.Rows) error) error) string {
		t.Helper()
		var m string
		err := query(context.Background(), f.Admin.Actor(), "SELECT current_setting('plan_cache_mode')", nil, func(rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&m); err != nil {
					return err
				}
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := mode(s.QueryGeneric); m != "force_generic_plan" {
		t.Errorf("QueryGeneric: plan_cache_mode = %q, want force_generic_plan", m)
	}
	for range 3 { // the setting is the transaction's: no connection keeps it
		if m := mode(s.Query); m != "auto" {
			t.Errorf("Query: plan_cache_mode = %q, want auto", m)
		}
	}
}
