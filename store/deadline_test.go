package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

func openBounded(tb testing.TB, o store.Options) *store.Store {
	tb.Helper()
	s, err := store.OpenWith(context.Background(), storetest.DSN(tb), o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// TestStatementDeadline: a statement that outlives StatementTimeout is abandoned at the
// deadline, and the error renders as the 503 of an unavailable database; a transaction's
// statements each get their own deadline; the pool then serves again.
func TestStatementDeadline(t *testing.T) {
	s := openBounded(t, store.Options{ConnectTimeout: time.Second, AcquireTimeout: time.Second, StatementTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	start := time.Now()
	_, err := store.PoolOf(s).Exec(ctx, "SELECT pg_sleep(5)")
	took := time.Since(start)
	if err == nil || took > 2*time.Second {
		t.Fatalf("pg_sleep(5) under a 300ms deadline: err %v after %s", err, took)
	}
	if e := store.AsError(err); httpx.Status(e) != 503 || e.Code != "internal_error" || e.RetryAfter <= 0 {
		t.Errorf("rendered as %d %s Retry-After %s, want 503 internal_error with Retry-After", httpx.Status(e), e.Code, e.RetryAfter)
	}
	// Three statements of 200ms in one transaction: each within its own deadline.
	err = pgx.BeginFunc(ctx, store.PoolOf(s), func(tx pgx.Tx) error {
		for range 3 {
			if _, err := tx.Exec(ctx, "SELECT pg_sleep(0.2)"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("a transaction of short statements: %v", err)
	}
	// Work marked WithoutDeadlines (migrations) is not cut off.
	if _, err := store.PoolOf(s).Exec(store.WithoutDeadlines(ctx), "SELECT pg_sleep(0.5)"); err != nil {
		t.Errorf("WithoutDeadlines: %v", err)
	}
	var one int
	if err := store.PoolOf(s).QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Errorf("after a deadline: %v", err)
	}
}

// TestIsUnavailable separates a database that does not answer from one that refuses.
func TestIsUnavailable(t *testing.T) {
	s := openBounded(t, store.Options{StatementTimeout: time.Second})
	_, err := store.PoolOf(s).Exec(context.Background(), "SELECT * FROM no_such_table")
	if err == nil || store.IsUnavailable(err) || httpx.Status(store.AsError(err)) != 500 {
		t.Errorf("an undefined table is a plain 500, not unavailable: %v", err)
	}
	if !store.IsUnavailable(context.DeadlineExceeded) || store.IsUnavailable(errors.New("x")) {
		t.Error("deadline vs plain error")
	}
}

// BenchmarkStatementDeadline compares a one-row query on a pool without deadlines and on
// one with them (a context and a timer per statement and per acquisition), interleaved
// so machine noise hits both: report the ratio of the two ns/op.
func BenchmarkStatementDeadline(b *testing.B) {
	plain := openBounded(b, store.Options{})
	bounded := openBounded(b, store.Options{ConnectTimeout: 5 * time.Second, AcquireTimeout: 3 * time.Second, StatementTimeout: 5 * time.Second})
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		s    *store.Store
	}{{"plain", plain}, {"bounded", bounded}, {"plain", plain}, {"bounded", bounded}} {
		b.Run(bc.name, func(b *testing.B) {
			var one int
			for b.Loop() {
				if err := store.PoolOf(bc.s).QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
