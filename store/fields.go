package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// FieldsVersion is the SQL expression of the version of the actor's workspace's custom
// field definitions (store/migrations/00068_custom_list_costs.sql): a count every change
// to them moves up. A statement reading definitions selects it beside them, so the two
// come from one snapshot.
const FieldsVersion = "(SELECT v FROM ws_custom_fields_version() v)"

// ErrFieldsChanged is QueryAtFields' refusal: the workspace's custom field definitions are
// no longer at the version the statement was built from. Nothing ran; read them again.
var ErrFieldsChanged = errors.New("store: the workspace's custom field definitions changed")

// actorAtFieldsSQL is actorSQL ($1 to $7) that also raises SQLSTATE fieldsChangedCode
// (ws_custom_fields_changed) unless the actor's workspace's definitions are at version $8:
// one statement of the batch instead of two. The settings are a subquery's columns, which
// PostgreSQL computes together (a subquery whose columns call volatile functions is
// neither merged into the query around it nor pruned of columns it does not read); the
// check reads the version of the workspace that subquery's row set, so it runs after the
// settings by what it reads, whatever order the settings take. It names the workspace
// itself, so its answer is the same with row-level security (the role set, the policy's
// app.workspace_id the same workspace) and without.
const actorAtFieldsSQL = `SELECT CASE WHEN (SELECT coalesce(max(c.version), 0) FROM custom_field_versions c
	WHERE c.workspace_id = a.ws::uuid) = $8::bigint THEN true ELSE ws_custom_fields_changed() END
	FROM (SELECT set_config('role', 'workspaced_app', true) AS role,
	set_config('app.workspace_id', $1, true) AS ws, set_config('app.user_id', $2, true) AS usr,
	set_config('app.role', $3, true) AS app_role, set_config('app.grants', $4, true) AS grants,
	set_config('app.credential', $5, true) AS credential, set_config('app.client', $6, true) AS client,
	set_config('app.via', $7, true) AS via, set_config('enable_sort', 'off', true) AS sort,
	set_config('application_name', 'workspaced ws:' || $1, true) AS name) a`

const fieldsChangedCode = "WS001"

// QueryAtFields is Query (QuerySync when sync) for a statement built from the actor's
// workspace's custom field definitions as they were at version (FieldsVersion): in the
// same round trip, after the actor's settings and before sql, the database checks that
// they still are, and when they are not it runs nothing more and QueryAtFields returns
// ErrFieldsChanged without calling scan. A change committed before the batch is sent is
// always seen; one committed while it runs is as concurrent as it would be to a
// statement reading the definitions itself.
func (s *Store) QueryAtFields(ctx context.Context, a Actor, version int64, sync bool, sql string, args []any, scan func(pgx.Rows) error) error {
	var before []statement
	if sync {
		before = []statement{{sql: horizonSQL}}
	}
	err := s.queryAs(ctx, a, actorAtFieldsSQL, append(a.settings(), version), before, sql, args, scan)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == fieldsChangedCode {
		return ErrFieldsChanged
	}
	return err
}
