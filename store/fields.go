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

// fieldsAtSQL raises SQLSTATE fieldsChangedCode (ws_custom_fields_changed) unless the
// actor's workspace's definitions are at version $1.
const (
	fieldsAtSQL       = "SELECT CASE WHEN " + FieldsVersion + " = $1::bigint THEN true ELSE ws_custom_fields_changed() END"
	fieldsChangedCode = "WS001"
)

// QueryAtFields is Query (QuerySync when sync) for a statement built from the actor's
// workspace's custom field definitions as they were at version (FieldsVersion): in the
// same round trip, after the actor's settings and before sql, the database checks that
// they still are, and when they are not it runs nothing more and QueryAtFields returns
// ErrFieldsChanged without calling scan. A change committed before the batch is sent is
// always seen; one committed while it runs is as concurrent as it would be to a
// statement reading the definitions itself.
func (s *Store) QueryAtFields(ctx context.Context, a Actor, version int64, sync bool, sql string, args []any, scan func(pgx.Rows) error) error {
	before := []statement{{sql: fieldsAtSQL, args: []any{version}}}
	if sync {
		before = append(before, statement{sql: horizonSQL})
	}
	err := s.query(ctx, a, before, sql, args, scan)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == fieldsChangedCode {
		return ErrFieldsChanged
	}
	return err
}
