package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A write whose commit reached PostgreSQL but whose answer did not come back (the
// deadline passed, the connection dropped, the database froze) may have been applied, now
// or when the database thaws: answering it as a plain 503 invites a retry that writes
// twice. Such a write answers outcome_unknown instead (docs/operations.md, "Unknown
// outcomes"), and a retry with the same Idempotency-Key replays the stored result if the
// commit happened.

// OutcomeUnknown is the 503 of a write whose commit was sent and not acknowledged.
func OutcomeUnknown(err error) *Error {
	return &Error{Code: CodeOutcomeUnknown, RetryAfter: RetryAfterUnavailable,
		Message: "the write was sent to the database but its commit was not confirmed, so it may have been applied: " +
			"retry with the same Idempotency-Key to get its result without writing twice (without a key, read before writing again)",
		Err: err}
}

// unacknowledged marks an error of a statement that reached the server in an implicit
// transaction (Query's batch): for a write, its outcome is unknown (MapWriteError).
type unacknowledged struct{ err error }

func (e unacknowledged) Error() string { return e.err.Error() }
func (e unacknowledged) Unwrap() error { return e.err }

// sentButUnanswered reports whether err means the database may have received what was
// sent and the answer was lost: an outage (IsUnavailable), unless pgx says nothing was
// sent (pgconn.SafeToRetry: the context was done first, or the connection failed before
// writing).
func sentButUnanswered(err error) bool {
	return err != nil && IsUnavailable(err) && !pgconn.SafeToRetry(err) && !errors.As(err, new(*pgconn.PgError))
}

// commit commits tx, returning OutcomeUnknown when the commit was sent and not answered.
func commit(ctx context.Context, tx pgx.Tx) error {
	err := tx.Commit(ctx)
	if sentButUnanswered(err) {
		return OutcomeUnknown(err)
	}
	return err
}
