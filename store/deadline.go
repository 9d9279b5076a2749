package store

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agencyos/workspaced/apierr"
)

// Options bounds every wait on PostgreSQL. A zero field keeps pgx's behaviour for it (no
// bound), which only tests that exercise the store directly rely on.
type Options struct {
	ConnectTimeout   time.Duration // one connection attempt, TCP and startup handshake
	AcquireTimeout   time.Duration // waiting for a pooled connection
	StatementTimeout time.Duration // one statement (a query with its rows, a batch, begin, commit)
	MaxConns         int           // caps the pool; 0 means DefaultMaxConns
	// Observe, when set, is told the outcome of every statement and batch (nil or its
	// error) and every failed wait for a connection: the circuit breaker's input
	// (overload.Breaker, docs/operations.md). A successful wait says nothing, since an idle
	// connection is handed out without asking the database.
	Observe func(err error)
}

// deadlines gives each pool acquisition and each statement its own deadline, through
// pgx's tracer hooks: the context a hook returns is the one pgx runs the operation with.
// Doing it here rather than at each of the dozens of call sites means no query can be
// forgotten; a frozen database then costs a request at most AcquireTimeout plus
// StatementTimeout per statement, and pgx closes the connection whose deadline passed.
type deadlines struct {
	acquire, statement time.Duration
	observe            func(error)
}

type cancelKey struct{}
type noDeadlineKey struct{}

// WithoutDeadlines marks ctx for work that may legitimately run long: migrations, waiting
// for the migration lock another starting process holds, the first connection at startup
// (which ConnectTimeout bounds).
func WithoutDeadlines(ctx context.Context) context.Context {
	return context.WithValue(ctx, noDeadlineKey{}, true)
}

func bounded(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 || ctx.Value(noDeadlineKey{}) != nil {
		return ctx
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return context.WithValue(ctx, cancelKey{}, cancel)
}

func release(ctx context.Context) {
	if cancel, ok := ctx.Value(cancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
}

func (d deadlines) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return bounded(ctx, d.statement)
}
func (d deadlines) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	release(ctx)
	if d.observe != nil {
		d.observe(data.Err)
	}
}
func (d deadlines) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return bounded(ctx, d.statement)
}
func (d deadlines) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (d deadlines) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	release(ctx)
	if d.observe != nil && !ownTimeout(ctx, data.Err) {
		d.observe(data.Err)
	}
}

// ownTimeout reports whether err is the shorter statement_timeout ctx asked for
// (WithStatementTimeout) running out: the statement's cost, not a database that does not answer.
func ownTimeout(ctx context.Context, err error) bool {
	var pg *pgconn.PgError
	_, own := ctx.Value(statementTimeoutKey{}).(time.Duration)
	return own && errors.As(err, &pg) && pg.Code == "57014"
}
func (d deadlines) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return bounded(ctx, d.acquire)
}
func (d deadlines) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, data pgxpool.TraceAcquireEndData) {
	release(ctx)
	if d.observe != nil && data.Err != nil {
		d.observe(data.Err)
	}
}

// RetryAfterUnavailable is the Retry-After of a 503 for an unreachable database: soon
// enough to ride out a restart, long enough not to hammer it.
const RetryAfterUnavailable = 2 * time.Second

// Unavailable is the 503 of a database that does not answer (down, restarting, frozen,
// out of connections): the client may retry the same request unchanged.
func Unavailable(err error) *apierr.Error {
	return &apierr.Error{Code: apierr.CodeInternal, Unavailable: true, RetryAfter: RetryAfterUnavailable,
		Message: "a service this API depends on is not answering; retry after the Retry-After seconds, and quote the request id if it persists",
		Err:     err}
}

// IsUnavailable reports whether err means the database could not be reached or did not
// answer in time, as opposed to refusing the statement: a deadline, a connection failure,
// or a server that is shutting down, starting or out of connections (SQLSTATE classes 08
// and 57P, 53300).
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code[:2] == "08" || pg.Code == "57P01" || pg.Code == "57P02" || pg.Code == "57P03" ||
			pg.Code == "53300" || pg.Code == "57014" // 57014: our own statement_timeout or cancel
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}
