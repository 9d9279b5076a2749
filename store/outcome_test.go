package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestSentButUnanswered: once a commit was sent, every failure to read its answer leaves
// the outcome unknown, whatever pgx says about retrying; only an answer of the database
// that refuses the transaction, and a context done before anything was sent, do not.
func TestSentButUnanswered(t *testing.T) {
	ctx := context.Background()
	// pgx's own errors, from real connections: a context done before sending, and the
	// "conn closed" it also reports when the connection died under a read.
	conn, err := pgconn.Connect(ctx, storetest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, notSent := conn.Exec(done, "commit").ReadAll()
	conn.Close(ctx)
	_, closed := conn.Exec(ctx, "commit").ReadAll()
	if !pgconn.SafeToRetry(notSent) || !pgconn.SafeToRetry(closed) {
		t.Fatalf("pgx no longer marks these safe to retry (%v, %v): revisit sentButUnanswered", notSent, closed)
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"committed", nil, false},
		{"connection closed while waiting", closed, true},
		{"connection closed, wrapped", fmt.Errorf("x: %w", closed), true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"deadline while waiting", context.DeadlineExceeded, true},
		{"request gone while waiting", context.Canceled, true},
		{"terminated by an administrator", &pgconn.PgError{Code: "57P01"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"context done before sending", notSent, false},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, false},
		{"deferred constraint", &pgconn.PgError{Code: "23505"}, false},
		{"canceled before commit", &pgconn.PgError{Code: "57014"}, false},
		{"failed transaction rolled back", pgx.ErrTxCommitRollback, false},
		{"a bug", errors.New("x"), false},
	} {
		if got := store.SentButUnanswered(tc.err); got != tc.want {
			t.Errorf("%s (%v): sentButUnanswered = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
