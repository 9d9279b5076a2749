package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// Actor is who a transaction runs as under row-level security: the values actorSQL sets
// for the transaction only, which the policies and the activity trigger read
// (store/migrations). The domain builds it from its principal (auth.Principal.Actor); an
// Actor without a workspace or a user is refused.
type Actor struct {
	WorkspaceID string
	UserID      string
	Role        string     // admin or member
	Grants      string     // app.grants: the effective grants as GrantsSetting writes them
	Credential  Credential // app.credential (Credential.Label), app.client, and the owner of idempotency keys
	Via         string     // the channel (ViaREST, ViaMCP ...), app.via
}

// Channels of an Actor's Via, as activity.via stores them.
const (
	ViaREST = "rest"
	ViaMCP  = "mcp"
)

// Credential describes what the request presented.
type Credential struct {
	Type       string     // "oauth" or "agent_key"
	ID         string     // the token or key row id (rate-limit key, revocation)
	ClientID   string     // OAuth client, for oauth
	ClientName string     // its name as registered, for oauth
	ExpiresAt  *time.Time // for oauth
	Resource   string     // RFC 8707 resource the token is bound to, "" when unbound
}

// GrantsSetting is app.grants, the value RLS policies read the grants from: app_grant
// reads the grant of each of Features (store/migrations), here grant(feature) (which
// gives admins full on each: docs/decisions.md 2). The grants travel as a small JSON object
// written by hand: this runs on every request, and only read and full need saying
// (app_grant reads anything else as none).
func GrantsSetting(grant func(feature string) string) string {
	g := make([]byte, 0, 96)
	g = append(g, '{')
	for _, f := range Features {
		v := grant(f)
		if v != GrantRead && v != GrantFull {
			continue
		}
		if len(g) > 1 {
			g = append(g, ',')
		}
		g = append(g, '"')
		g = append(g, f...)
		g = append(g, `":"`...)
		g = append(g, v...)
		g = append(g, '"')
	}
	g = append(g, '}')
	return string(g)
}

// settings are the transaction-local values actorSQL sets, in its parameters' order.
func (a Actor) settings() []any {
	return []any{a.WorkspaceID, a.UserID, a.Role, a.Grants, a.Credential.Label(), a.clientJSON(), a.Via}
}

// Label names the credential for activity.credential and credential_usage:
// "agent_key:<id>", "oauth:<access token id>" or "console:<session>", "" when unknown.
func (c Credential) Label() string {
	if c.Type == "" || c.ID == "" {
		return ""
	}
	return c.Type + ":" + c.ID
}

// clientJSON is activity.client: {"id", "name"} of the OAuth client, "" for none.
func (a Actor) clientJSON() string {
	if a.Credential.ClientID == "" {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"id": a.Credential.ClientID, "name": a.Credential.ClientName})
	return string(b)
}

// valid reports whether a names a workspace and a user to act as.
func (a Actor) valid() bool { return a.WorkspaceID != "" && a.UserID != "" }

// actorSQL sets the actor for the rest of the transaction only (is_local = true), and drops
// to the request role, which has no BYPASSRLS and owns nothing. It also turns sorting off:
// every list has an ordered index that answers it (the keyset index, or a filter index
// carrying the keyset's order, migration 00011), and without this the planner prefers
// reading and sorting the whole workspace whenever its row estimate is off, as it is before
// a table's first ANALYZE. Sorting stays possible, only priced as a last resort.
const actorSQL = `SELECT set_config('role', 'workspaced_app', true),
	set_config('app.workspace_id', $1, true), set_config('app.user_id', $2, true),
	set_config('app.role', $3, true), set_config('app.grants', $4, true),
	set_config('app.credential', $5, true), set_config('app.client', $6, true), set_config('app.via', $7, true),
	set_config('enable_sort', 'off', true), set_config('application_name', 'workspaced ws:' || $1, true)`

// InTx runs fn in a transaction as the actor a, under row-level security. Use it where a
// write needs logic between statements; it commits when fn returns nil.
func (s *Store) InTx(ctx context.Context, a Actor, fn func(tx pgx.Tx) error) error {
	if !a.valid() {
		return errors.New("store: InTx needs an actor")
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if _, err := tx.Exec(ctx, actorSQL, a.settings()...); err != nil {
		return fmt.Errorf("store: set actor: %w", err)
	}
	if err := fn(tx); err != nil {
		return err
	}
	return commit(ctx, tx) // outcome_unknown when sent and not answered
}

// Query runs one statement as the actor a in a single round trip: the actor settings and
// the statement travel as one pipelined batch, which PostgreSQL runs as one implicit
// transaction, so the settings apply to the statement and end with it. scan is called with
// the statement's rows.
func (s *Store) Query(ctx context.Context, a Actor, sql string, args []any, scan func(pgx.Rows) error) error {
	return s.query(ctx, a, nil, sql, args, scan)
}

// query runs the actor's settings, the statements before, then sql.
func (s *Store) query(ctx context.Context, a Actor, before []statement, sql string, args []any, scan func(pgx.Rows) error) error {
	if !a.valid() {
		return errors.New("store: Query needs an actor")
	}
	if d, ok := ctx.Value(statementTimeoutKey{}).(time.Duration); ok {
		before = append([]statement{{sql: statementTimeoutSQL(d)}}, before...)
	}
	return s.settingsThen(ctx, "actor", actorSQL, a.settings(), before, sql, args, scan)
}

// statement is one statement of a batch with its arguments.
type statement struct {
	sql  string
	args []any
}

type statementTimeoutKey struct{}

// WithStatementTimeout bounds the statements Query, QuerySync and QueryGeneric run with
// ctx to d at the server (its statement_timeout, for the transaction only), below the
// pool's own statement timeout: a search gets its own shorter bound this way
// (workspace/capacity.go). A statement past it fails with SQLSTATE 57014, answered as a
// database timeout, and the connection stays usable; it is not counted as the database
// failing to answer (Options.Observe is not told), since the statement's cost, not the
// database, ran out the time.
func WithStatementTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, statementTimeoutKey{}, d)
}

// statementTimeoutSQL sets statement_timeout for the transaction to d, in whole
// milliseconds (at least 1).
func statementTimeoutSQL(d time.Duration) string {
	return "SELECT set_config('statement_timeout', '" + strconv.FormatInt(max(d.Milliseconds(), 1), 10) + "', true)"
}

// settingsThen sends the transaction-local settings statement set, the statements before
// and the statement sql as one pipelined batch (one round trip, one implicit transaction)
// and hands sql's rows to scan; what names the settings in an error. A statement that
// fails ends the batch: PostgreSQL skips the statements after it.
func (s *Store) settingsThen(ctx context.Context, what, set string, setArgs []any, before []statement, sql string, args []any, scan func(pgx.Rows) error) error {
	b := &pgx.Batch{}
	b.Queue(set, setArgs...)
	for _, q := range before {
		b.Queue(q.sql, q.args...)
	}
	b.Queue(sql, args...)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return markUnanswered(fmt.Errorf("store: set %s: %w", what, err))
	}
	for range before {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return markUnanswered(err)
	}
	if err := Scan(rows, scan); err != nil {
		return markUnanswered(err)
	}
	return markUnanswered(br.Close())
}

// markUnanswered marks an error of Query's batch, which commits as one implicit
// transaction, when the batch was sent and not answered: a write's outcome is then
// unknown (MapWriteError), a read's is just an outage.
func markUnanswered(err error) error {
	if sentButUnanswered(err) {
		return unacknowledged{err}
	}
	return err
}

// horizonSQL fixes, before a sync read takes its snapshot, the newest updated_at it may
// return (ws_sync_horizon, migration 00020): computed in a statement of its own, so any
// write stamped before it has committed by the time the read's snapshot is taken.
const horizonSQL = `SELECT set_config('app.sync_horizon', ws_sync_horizon()::text, true)`

// SyncHorizon is the SQL expression of that horizon for a statement QuerySync runs.
const SyncHorizon = `current_setting('app.sync_horizon')::timestamptz`

// QuerySync is Query for an incremental sync read (docs/rest.md, "Incremental sync"): sql
// may compare updated_at with SyncHorizon, the start of the oldest transaction in flight
// that could write the actor's workspace, so a page never passes a change not yet
// committed. Still one pipelined round trip.
func (s *Store) QuerySync(ctx context.Context, a Actor, sql string, args []any, scan func(pgx.Rows) error) error {
	return s.query(ctx, a, []statement{{sql: horizonSQL}}, sql, args, scan)
}

// genericPlanSQL makes the transaction's statements run their generic plans.
const genericPlanSQL = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`

// QueryGeneric is Query for a statement that costs more to plan than to run and whose
// plan does not depend on its values, such as a search's union of one branch per resource
// (workspace.Search): the statement runs its generic plan, made once per connection,
// instead of being planned at every call (10 to 17 ms of a 30 ms search, docs/performance.md).
// Still one pipelined round trip.
func (s *Store) QueryGeneric(ctx context.Context, a Actor, sql string, args []any, scan func(pgx.Rows) error) error {
	return s.query(ctx, a, []statement{{sql: genericPlanSQL}}, sql, args, scan)
}

// Scan hands rows to scan and closes them: scan's error, else the rows' own.
func Scan(rows pgx.Rows, scan func(pgx.Rows) error) error {
	defer rows.Close()
	if err := scan(rows); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}
