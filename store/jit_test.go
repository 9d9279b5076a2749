package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestRequestsNeverJITCompile: a request's statements run with PostgreSQL's JIT off. With
// the server default (jit = on), a search statement whose estimated cost crosses
// jit_above_cost (RLS quals, text-search functions, one UNION branch per resource) was
// compiled on every call: GET /v1/deals?q= took 0.9 s and GET /v1/search 5 s (its deadline)
// on the demo's handful of rows, against 3 ms and 50 ms without JIT.
func TestRequestsNeverJITCompile(t *testing.T) {
	s := storetest.New(t)
	f := storetest.Workspace(t, s, nil)
	var jit string
	err := s.Query(context.Background(), f.Admin.Actor(), "SELECT current_setting('jit')", nil, func(rows pgx.Rows) error {
		for rows.Next() {
			if err := rows.Scan(&jit); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if jit != "off" {
		t.Fatalf("jit = %q in a request's transaction, want off", jit)
	}
}
