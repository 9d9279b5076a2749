package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agencyos/workspaced/apierr"
)

// A write whose commit reached PostgreSQL but whose answer did not come back (the
// deadline passed, the connection dropped, the database froze) may have been applied, now
// or when the database thaws: answering it as a plain 503 invites a retry that writes
// twice. Such a write answers outcome_unknown instead (docs/operations.md, "Unknown
// outcomes"), and a retry with the same Idempotency-Key replays the stored result if the
// commit happened.

// OutcomeUnknown is the 503 of a write whose commit was sent and not acknowledged.
func OutcomeUnknown(err error) *apierr.Error {
	return &apierr.Error{Code: apierr.CodeOutcomeUnknown, RetryAfter: RetryAfterUnavailable,
		Message: "the write was sent to the database but its commit was not confirmed, so it may have been applied: " +
			"retry with the same Idempotency-Key to get its result without writing twice (without a key, read before writing again)",
		Err: err}
}

// unacknowledged marks an error of a statement that reached the server in an implicit
// transaction (Query's batch): for a write, its outcome is unknown (MapWriteError).
type unacknowledged struct{ err error }

func (e unacknowledged) Error() string { return e.err.Error() }
func (e unacknowledged) Unwrap() error { return e.err }

// sentButUnanswered reports whether err, from a commit (an explicit COMMIT, or the end of
// Query's batch) on a connection that was open, leaves the commit's outcome unknown: every
// failure to read its answer does, and only an answer of the database (a serialization
// failure, a constraint checked at commit, a cancel before the commit began, ROLLBACK for
// a failed transaction) says it did not commit. pgx says nothing was sent
// (pgconn.SafeToRetry) when the context was done before sending, and also, wrongly for this
// purpose, when the connection died while it waited for the answer: its reader drops the
// read's error and reports the connection it closed, pgconn.ErrConnClosed
// (TestDrillConnectionCutAfterCommit in cmd/workspaced). A connection the server ends
// (terminated by an administrator or a killed backend, a crash, class 08) may end after
// the commit.
func sentButUnanswered(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code[:2] == "08" || pg.Code == "57P01" || pg.Code == "57P02"
	}
	lost := IsUnavailable(err) || errors.Is(err, context.Canceled)
	return lost && (!pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed))
}

// commit commits tx, returning OutcomeUnknown when the commit was sent and not answered.
func commit(ctx context.Context, tx pgx.Tx) error {
	sent := !tx.Conn().PgConn().IsClosed() // on a closed connection it fails without sending
	err := tx.Commit(ctx)
	if sent && sentButUnanswered(err) {
		return OutcomeUnknown(err)
	}
	return err
}
