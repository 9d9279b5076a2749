package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestWithStatementTimeout: a Query under WithStatementTimeout is cancelled by the server
// at that shorter bound (SQLSTATE 57014, a 503 to the client), is not reported to Observe
// as the database failing, and leaves the next transaction on the pool its usual timeout.
func TestWithStatementTimeout(t *testing.T) {
	var failures atomic.Int64
	s := openBounded(t, store.Options{StatementTimeout: 5 * time.Second, Observe: func(err error) {
		if err != nil {
			failures.Add(1)
		}
	}})
	f := storetest.Workspace(t, s, nil)
	ctx := context.Background()
	start := time.Now()
	err := s.Query(store.WithStatementTimeout(ctx, 100*time.Millisecond), f.Admin.Actor(), "SELECT pg_sleep(3)", nil,
		func(rows pgx.Rows) error {
			for rows.Next() {
			}
			return rows.Err()
		})
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "57014" || time.Since(start) > 2*time.Second {
		t.Fatalf("pg_sleep(3) under 100ms: %v after %s, want SQLSTATE 57014 at once", err, time.Since(start))
	}
	if !store.IsUnavailable(err) {
		t.Errorf("the search timeout is not answered as a timeout: %v", err)
	}
	if n := failures.Load(); n != 0 {
		t.Errorf("Observe was told %d failures, want 0 for the statement's own bound", n)
	}
	for range 3 {
		var got string
		err := s.Query(ctx, f.Admin.Actor(), "SELECT current_setting('statement_timeout')", nil, func(rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&got); err != nil {
					return err
				}
			}
			return rows.Err()
		})
		if err != nil || got == "100ms" {
			t.Errorf("next transaction: statement_timeout %q, %v; want the pool's own", got, err)
		}
	}
}
