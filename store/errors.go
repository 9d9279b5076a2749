package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agencyos/workspaced/apierr"
)

// Internal is a 500, or the 503 of unavailable when err is the database not answering.
func Internal(err error) *apierr.Error {
	if IsUnavailable(err) {
		return Unavailable(err)
	}
	return &apierr.Error{Code: apierr.CodeInternal,
		Message: "something failed on our side; retry, and quote the request id if it persists", Err: err}
}

// AsError returns err as an *Error, turning anything else into internal_error.
func AsError(err error) *apierr.Error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// MapWriteError turns a driver error from a create or update into the spec's codes, by
// SQLSTATE and never by message text. failCode is create_failed or update_failed.
func MapWriteError(err error, failCode apierr.Code) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return apierr.NotFound("no such record in this workspace")
	}
	if errors.As(err, new(unacknowledged)) {
		return OutcomeUnknown(err)
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	switch pg.Code {
	case "42501": // insufficient_privilege: an RLS WITH CHECK or a column grant refused it
		return &apierr.Error{Code: apierr.CodeForbidden,
			Message: "the write was refused by the workspace's access rules", Err: err}
	case "23503": // foreign_key_violation
		msg := "a referenced record does not exist in this workspace"
		if col := fkColumn(pg); col != "" {
			msg = fmt.Sprintf("%s refers to a record that does not exist in this workspace", col)
		}
		return &apierr.Error{Code: failCode, Message: msg, Err: err}
	case "23505":
		return &apierr.Error{Code: failCode, Message: "such a record already exists", Err: err}
	case "23514", "23502":
		return &apierr.Error{Code: failCode,
			Message: "the database rejected a value: check the fields' types and allowed values", Err: err}
	}
	if e := dataError(pg, failCode); e != nil {
		return e
	}
	return err
}

// RowFault reports whether err is the database refusing the values of a row (SQLSTATE
// class 22, data exception, or 23, integrity constraint violation) rather than failing for
// a reason of its own, and returns the SQLSTATE and the constraint's name: neither carries
// the row's values, which the error's detail does.
func RowFault(err error) (sqlstate, constraint string, ok bool) {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (strings.HasPrefix(pg.Code, "22") || strings.HasPrefix(pg.Code, "23")) {
		return pg.Code, pg.ConstraintName, true
	}
	return "", "", false
}

// MapReadError turns a driver error from a read into bad_request when a value the client
// sent was at fault (a filter the database cannot take), by SQLSTATE; other errors are
// returned as they are.
func MapReadError(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		if e := dataError(pg, "bad_request"); e != nil {
			return e
		}
	}
	return err
}

// dataError maps the SQLSTATE classes that mean "this value cannot be stored or compared"
// to a 400 with code: class 22 (data exception: 22021 a NUL byte or invalid UTF-8, 22P05
// \u0000 in jsonb, 22P02 bad text representation, 22001 too long, 22003 out of range,
// 22007/22008 bad dates) and class 54 (program limit exceeded: 54000 an index row too large,
// 54001 nesting too deep). Validation rejects these earlier; this is the backstop that
// keeps hostile input from ever being a 500. It returns nil for any other SQLSTATE.
func dataError(pg *pgconn.PgError, code apierr.Code) *apierr.Error {
	switch {
	case strings.HasPrefix(pg.Code, "22"):
		return &apierr.Error{Code: code,
			Message: "the database rejected a value: check the fields' types and allowed values, and send text without NUL characters", Err: pg}
	case strings.HasPrefix(pg.Code, "54"):
		return &apierr.Error{Code: code,
			Message: "a value is too large or too deeply nested to store; send a shorter or flatter value", Err: pg}
	}
	return nil
}

// fkColumn names the referencing column of a foreign key violation from its detail, which
// PostgreSQL formats as "Key (workspace_id, deal_id)=(...) is not present ...". Under
// row-level security PostgreSQL withholds the key from the detail, so the constraint's default name
// (<table>_workspace_id_<column>_fkey) is read instead.
func fkColumn(pg *pgconn.PgError) string {
	if pg.ColumnName != "" {
		return pg.ColumnName
	}
	if !strings.HasPrefix(pg.Detail, "Key (") && pg.TableName != "" && strings.HasSuffix(pg.ConstraintName, "_fkey") {
		name := strings.TrimSuffix(strings.TrimPrefix(pg.ConstraintName, pg.TableName+"_"), "_fkey")
		return strings.TrimPrefix(name, "workspace_id_")
	}
	d := pg.Detail
	start, end := -1, -1
	for i := 0; i < len(d); i++ {
		if d[i] == '(' && start < 0 {
			start = i + 1
		} else if d[i] == ')' && start >= 0 {
			end = i
			break
		}
	}
	if start < 0 || end < 0 {
		return ""
	}
	cols := d[start:end]
	for i := len(cols) - 1; i >= 0; i-- {
		if cols[i] == ' ' || cols[i] == ',' {
			return cols[i+1:]
		}
	}
	return cols
}
