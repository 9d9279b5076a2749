package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// The generic operations of docs/contract.md section 4.1. Every statement is derived from the catalogue:
// identifiers come only from the catalogue, values only travel as parameters. PostgreSQL builds
// the JSON (row_to_json), so every column comes back in its native JSON type: numeric as a
// number, date as "2026-01-31", timestamptz as RFC 3339. Each operation is one statement
// run as the actor in one round trip (store.Query); RLS is the guard, the gates in front
// of it are the first line.

// DefaultLimit and MaxLimit bound list pages (docs/contract.md section 8).
const (
	DefaultLimit = 50
	MaxLimit     = 200
)

// ListParams are the inputs of a list.
type ListParams struct {
	// Filters are exact-match filters by field name, values as a query string carries
	// them ("true", a uuid, an enum value). Names must be filters of the resource.
	Filters map[string]string
	// Limit is the page size, 1 to MaxLimit; 0 means DefaultLimit.
	Limit int
	// Cursor is the next_cursor of the previous page; "" for the first page.
	Cursor string
	// UpdatedSince keeps the records updated at or after it; zero keeps all.
	UpdatedSince time.Time
	// Order is the walk's order: newest created first (the default), or least recently
	// updated first, which incremental sync walks (docs/rest.md, "Incremental sync").
	Order Order
	// Where are operator filters, ?field[op]=value (listparams.go).
	Where []Condition
	// Q is a text search; the list walks by relevance, then newest first. nil searches
	// nothing; an empty one is refused, as every empty input but Cursor is (docs/rest.md).
	Q *string
	// Sort is a sortable field, prefixed with - for descending; nil walks in Order.
	Sort *string
	// Fields are the fields to return (id always); nil returns all.
	Fields []string
	// IDs keeps only these records (a batch read); nil keeps all.
	IDs []string
}

// Order is the order a list walks its records in.
type Order int

// The orders of a list: created_at descending (the default), updated_at ascending.
const (
	OrderCreated Order = iota
	OrderUpdated
)

// orderNames are the order query parameter's values, in Order's sequence.
var orderNames = [...]string{"created_at", "updated_at"}

// String names the order as the order query parameter does.
func (o Order) String() string { return orderNames[o] }

// OrderNames lists the order query parameter's values, the default first.
func OrderNames() []string { return slices.Clone(orderNames[:]) }

// parseOrder reads the order query parameter.
func parseOrder(v string) (Order, error) {
	if i := slices.Index(orderNames[:], v); i >= 0 {
		return Order(i), nil
	}
	return 0, apierr.BadRequest("order must be created_at (newest first, the default) or updated_at (least recently updated first, for sync), got %q", clip(v))
}

// querier runs one statement as the actor: the store, each statement its own
// transaction, or txQuerier inside a transaction the operation shares with other writes.
type querier interface {
	Query(ctx context.Context, a store.Actor, sql string, args []any, scan func(pgx.Rows) error) error
}

// txQuerier runs statements in a transaction store.InTx opened as the actor.
type txQuerier struct{ tx pgx.Tx }

func (q txQuerier) Query(ctx context.Context, _ store.Actor, sql string, args []any, scan func(pgx.Rows) error) error {
	rows, err := q.tx.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	return store.Scan(rows, scan)
}

// Page is one page of a list: a JSON array of records, and the cursor of the next page
// (nil when the list is complete).
type Page struct {
	Data       json.RawMessage `json:"data"`
	NextCursor *string         `json:"next_cursor"`
}

// ident quotes a catalogue identifier.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// HasOwner reports whether the resource's table carries workspace_id and created_by; the
// workspace singleton is the workspaces row itself and carries neither.
func HasOwner(r *Resource) bool { return r.Access != Singleton }

// Columns lists the columns a record of r shows, in order: id, workspace_id, the catalogue
// fields, created_by, created_at, updated_at. Nothing outside the catalogue is selected.
func Columns(r *Resource) []string {
	cols := []string{"id"}
	if HasOwner(r) {
		cols = append(cols, "workspace_id")
	}
	for _, f := range r.Fields {
		cols = append(cols, f.Name)
	}
	if HasOwner(r) {
		cols = append(cols, "created_by")
	}
	return append(cols, "created_at", "updated_at")
}

// ColumnsOf is Columns by resource name, nil for an unknown one: what webhook delivery
// needs to shape an event's record (webhooks.Config.Columns).
func ColumnsOf(resource string) []string {
	if r := Lookup(resource); r != nil {
		return Columns(r)
	}
	return nil
}

func columnList(r *Resource) string {
	cols := Columns(r)
	for i, c := range cols {
		cols[i] = columnExpr(r, c)
	}
	return strings.Join(cols, ", ")
}

// columnExpr is how a statement selects the column c of r: quoted, except a record's
// custom_fields, shown without its archived fields (custom_fields.go).
func columnExpr(r *Resource, c string) string {
	if r.Custom && c == customFieldsName {
		// The archived keys (ws_custom_archived_keys, the rule webhook events'
		// ws_custom_shown follows too, store/migrations/00068_custom_list_costs.sql) are
		// an uncorrelated subquery: read once per statement, not per row (a function call
		// in the row's expression would run per row), and not at all by a page whose
		// records hold no custom values (NULL), so a workspace without custom fields reads
		// nothing more (TestFindPlansAtScale's bound). Its argument is no subquery, so
		// PostgreSQL inlines the function and plans it with the statement.
		return `CASE WHEN "custom_fields" IS NULL THEN '{}'::jsonb ELSE "custom_fields" - (SELECT k FROM ws_custom_archived_keys(app_workspace_id(), ` +
			quoteLiteral(r.Name) + `) k) END AS "custom_fields"`
	}
	return ident(c)
}

// shownCustom is columnList for a statement built from r's definitions: custom_fields
// without archived, the keys of the archived fields among them (their parameter n when
// there are some), where columnExpr reads them in the statement. A list built from
// definitions has them already, read for it or kept and checked by its statement
// (fieldcache.go), so its statement need not read them again: that was an index scan
// of custom_fields, two buffers of each such list (docs/performance.md, "Custom fields").
func shownCustom(r *Resource, archived []string, add func(any) int) string {
	cols := Columns(r)
	for i, c := range cols {
		switch {
		case c != customFieldsName:
			cols[i] = ident(c)
		case len(archived) == 0:
			cols[i] = `coalesce("custom_fields", '{}'::jsonb) AS "custom_fields"`
		default:
			cols[i] = fmt.Sprintf(`coalesce("custom_fields" - $%d::text[], '{}'::jsonb) AS "custom_fields"`, add(archived))
		}
	}
	return strings.Join(cols, ", ")
}

// param renders the placeholder of a value: text parameters cast in SQL, so the value's
// exact text (a numeric's digits, a date) reaches PostgreSQL unchanged.
func param(n int, t Type) string {
	if strings.HasSuffix(t.SQLType(), "[]") {
		return fmt.Sprintf("$%d::text[]::%s", n, t.SQLType())
	}
	return fmt.Sprintf("$%d::text::%s", n, t.SQLType())
}

// Get returns one record by id as the actor sees it. Errors: unknown_resource,
// method_not_allowed, insufficient_scope, insufficient_permission, not_found (no such
// record, another workspace's, or hidden by RLS such as another member's private task).
func (o *Ops) Get(ctx context.Context, p *auth.Principal, r *Resource, id string) (json.RawMessage, error) {
	return o.GetFields(ctx, p, r, id, nil)
}

// GetFields is Get returning only the named fields and id (fields= on a get, docs/rest.md);
// nil fields returns the whole record. An unknown field is bad_request naming it, checked
// before the record is read so the answer says nothing about the id.
func (o *Ops) GetFields(ctx context.Context, p *auth.Principal, r *Resource, id string, fields []string) (json.RawMessage, error) {
	if err := admit(p, r, OpGet); err != nil {
		return nil, err
	}
	if err := checkMember(p, r, OpGet); err != nil {
		return nil, err
	}
	done, err := o.admitClass(ctx, p, ClassRead)
	if err != nil {
		return nil, err
	}
	defer done()
	sql := o.statements[r].get
	var args []any
	if fields != nil {
		plain, keys, err := splitCustomFields(r, fields)
		if err != nil {
			return nil, err
		}
		shown, err := checkFields(r, plain)
		if err != nil {
			return nil, err
		}
		for i, f := range shown {
			shown[i] = columnExpr(r, f)
			if f == customFieldsName && keys != nil {
				args = append(args, keys)
				shown[i] = customSubset(strings.TrimSuffix(columnExpr(r, f), ` AS "custom_fields"`), len(args)+1)
			}
		}
		sql = getStatement(r, strings.Join(shown, ", "))
	}
	if r.Access == Singleton && id == "" {
		id = p.WorkspaceID
	}
	if !isUUID(id) {
		return nil, notFound(r, id)
	}
	rec, err := one(ctx, o.store, p, sql, append([]any{id}, args...))
	if err != nil {
		return nil, readError(err)
	}
	if rec == nil {
		return nil, notFound(r, id)
	}
	if r.Governed != "" {
		if err := permitGoverned(p, r, rec, id); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// create inserts a record from a JSON object body holding writable fields (docs/contract.md section 2.2),
// decoded and past the gates (Post), running its statement through q, and returns it.
// Errors: validation_error (422, naming each field), create_failed (a reference to a
// record that does not exist in this workspace, a duplicate), forbidden (refused by RLS).
func (o *Ops) create(ctx context.Context, q querier, p *auth.Principal, r *Resource, m map[string]json.RawMessage) (json.RawMessage, error) {
	set, err := checkBody(r, m, true)
	if err != nil {
		return nil, err
	}
	if r.Name == customFieldsName {
		if err := o.checkDefinition(ctx, q, p, set, ""); err != nil {
			return nil, err
		}
	}
	if r.Custom {
		if set, err = o.customAssignment(ctx, q, p, r, set, true, nil); err != nil {
			return nil, err
		}
	}
	var cols, vals []string
	args := make([]any, 0, len(set))
	for _, a := range set {
		args = append(args, a.value)
		cols = append(cols, ident(a.field.Name))
		vals = append(vals, param(len(args), a.field.Type))
	}
	insert := "INSERT INTO " + ident(r.Table) + " DEFAULT VALUES"
	if len(cols) > 0 {
		insert = "INSERT INTO " + ident(r.Table) + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")"
	}
	with, secret := "", ""
	if r.Name == webhookEndpoints {
		if err := o.checkEndpoint(ctx, r, set); err != nil {
			return nil, err
		}
		with, secret = endpointSecret(&args)
	}
	sql := "WITH x AS (" + insert + " RETURNING " + o.statements[r].columns + ")" + with + " SELECT row_to_json(x)::text FROM x"
	rec, err := one(ctx, q, p, sql, args)
	if err != nil {
		if e := customWriteError(err); e != nil {
			return nil, e
		}
		return nil, store.MapWriteError(err, "create_failed")
	}
	if rec == nil { // RETURNING hid the row: RLS would not let the actor see what it wrote
		return nil, &apierr.Error{Code: apierr.CodeForbidden,
			Message: "the write was refused by the workspace's access rules"}
	}
	if secret != "" {
		rec = WithSecret(rec, secret)
	}
	if r.Name == customFieldsName {
		o.startSortIndexOf(rec)
	}
	return rec, nil
}

// Update changes the fields present in a JSON object body (a partial update) of the record
// id and returns it. For the workspace singleton id may be "" (the actor's workspace).
// Errors: as Create, plus not_found when the record does not exist or the actor cannot see
// it, validation_error when the body has no writable field, and update_failed.
func (o *Ops) Update(ctx context.Context, p *auth.Principal, r *Resource, id string, body json.RawMessage) (json.RawMessage, error) {
	return o.UpdateIf(ctx, p, r, id, body, nil)
}

// UpdateIf is Update, conditional when ifMatch is not nil: the record changes only while its
// version is one of ifMatch's, checked in the UPDATE itself (no read-then-write window),
// and a record that exists at another version is a 412 precondition_failed.
func (o *Ops) UpdateIf(ctx context.Context, p *auth.Principal, r *Resource, id string, body json.RawMessage, ifMatch *IfMatch) (json.RawMessage, error) {
	if err := admit(p, r, OpUpdate); err != nil {
		return nil, err
	}
	done, err := o.admitClass(ctx, p, ClassWrite)
	if err != nil {
		return nil, err
	}
	defer done()
	if r.Access == Singleton && id == "" {
		id = p.WorkspaceID
	}
	if !isUUID(id) {
		return nil, notFound(r, id)
	}
	// The record is found before its new values are judged: a body refused for a record
	// the actor cannot see (another workspace's id) is not_found, as a valid one is, and
	// says nothing about the record or the values (refuseBody).
	m, err := DecodeObject(body)
	if err != nil {
		return nil, o.refuseBody(ctx, o.store, p, r, id, err)
	}
	if err := o.permitWrite(p, r, OpUpdate, id, m); err != nil {
		return nil, err
	}
	if r.Name == customFieldsName {
		return o.updateDefinition(ctx, p, r, id, m, ifMatch)
	}
	return o.update(ctx, o.store, p, r, id, m, ifMatch, false)
}

// updateDefinition is update of a custom field's definition in one transaction: a type
// change's check of the stored values (checkConversion, which locks the resource's table
// against writes first) and the change with its conversion of the values
// (ws_custom_reindex) see the same values.
func (o *Ops) updateDefinition(ctx context.Context, p *auth.Principal, r *Resource, id string, m map[string]json.RawMessage, ifMatch *IfMatch) (json.RawMessage, error) {
	var rec json.RawMessage
	err := o.writeTx(ctx, p, func(tx pgx.Tx) error {
		var err error
		rec, err = o.update(ctx, txQuerier{tx}, p, r, id, m, ifMatch, false)
		return err
	})
	return rec, err
}

// writeTx runs an update's statements, fn, in one transaction as p: an API error fn returns
// is the answer as it is, any other error a failed update's (store.MapWriteError).
func (o *Ops) writeTx(ctx context.Context, p *auth.Principal, fn func(pgx.Tx) error) error {
	err := o.store.InTx(ctx, p.Actor(), fn)
	if err == nil {
		return nil
	}
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	return store.MapWriteError(err, "update_failed")
}

// update is UpdateIf's write, for a decoded body past the gates (UpdateIf, Batch),
// running its statements through q. With keepSame (a batch's updates, and so imports) a
// record that already holds every value of m is left as it is and returned: no new
// updated_at, activity row or webhook event, so an export imported again changes nothing.
func (o *Ops) update(ctx context.Context, q querier, p *auth.Principal, r *Resource, id string, m map[string]json.RawMessage, ifMatch *IfMatch, keepSame bool) (json.RawMessage, error) {
	set, err := checkBody(r, m, false)
	if err != nil {
		return nil, o.refuseBody(ctx, q, p, r, id, err)
	}
	if r.AuthorEdits {
		if err := o.permitAuthorEdit(ctx, p, r, id); err != nil {
			return nil, err
		}
	}
	if r.Name == webhookEndpoints {
		// The URL check resolves the host: only for a record the actor sees.
		if err := o.refuseBody(ctx, q, p, r, id, nil); err != nil {
			return nil, err
		}
		if err := o.checkEndpoint(ctx, r, set); err != nil {
			return nil, err
		}
	}
	if r.Name == customFieldsName {
		if err := o.checkDefinition(ctx, q, p, set, id); err != nil {
			return nil, o.refuseBody(ctx, q, p, r, id, err)
		}
	}
	if r.Custom {
		if set, err = o.customAssignment(ctx, q, p, r, set, false, nil); err != nil {
			return nil, o.refuseBody(ctx, q, p, r, id, err)
		}
	}
	args := []any{id}
	assigns := make([]string, 0, len(set))
	olds, news := make([]string, 0, len(set)), make([]string, 0, len(set))
	for _, a := range set {
		col, value := ident(a.field.Name), ""
		if patch, ok := a.value.(*customPatch); ok { // merged: keys set, null ones cleared
			args = append(args, patch.set, patch.clear)
			col, value = `"custom_fields"`, fmt.Sprintf(`(coalesce("custom_fields", '{}') || $%d::text::jsonb) - $%d::text[]`, len(args)-1, len(args))
		} else {
			args = append(args, a.value)
			value = param(len(args), a.field.Type)
		}
		assigns = append(assigns, col+" = "+value)
		olds, news = append(olds, col), append(news, value)
	}
	cond := ""
	if keepSame {
		cond = " AND " + changes(olds, news)
	}
	if ifMatch != nil {
		args = append(args, ifMatch.Versions)
		cond += fmt.Sprintf(` AND "updated_at" = ANY($%d::timestamptz[])`, len(args))
	}
	sql := "WITH x AS (UPDATE " + ident(r.Table) + " SET " + strings.Join(assigns, ", ") +
		` WHERE "id" = $1::text::uuid` + cond + ` RETURNING ` + o.statements[r].columns + ") SELECT row_to_json(x)::text FROM x"
	rec, err := one(ctx, q, p, sql, args)
	if err != nil {
		if e := customWriteError(err); e != nil {
			return nil, e
		}
		return nil, store.MapWriteError(err, "update_failed")
	}
	if rec == nil && ifMatch != nil {
		return nil, o.preconditionFailed(ctx, p, r, id)
	}
	if rec == nil && keepSame { // unchanged, or not there for p
		kept, err := o.readKept(ctx, q, p, r, []string{id})
		if err != nil {
			return nil, readError(err)
		}
		rec = kept[keptKey(id)]
	}
	if rec == nil {
		return nil, notFound(r, id)
	}
	return rec, nil
}

// An update with keepSame (update's, and updateSet's for a batch) leaves a record that
// already holds every value it would be given as it is: no new updated_at, activity row or
// webhook event, so an export imported again changes nothing. Both statements take the
// condition changes, and both read what they left alone back with readKept.

// changes is the condition under which such an update writes a record: its columns olds
// differ from the values news would give them (IS DISTINCT FROM: null equals null).
func changes(olds, news []string) string {
	return "(" + strings.Join(olds, ", ") + ") IS DISTINCT FROM (" + strings.Join(news, ", ") + ")"
}

// readKept reads back the records of r with ids that an update under changes left alone,
// keyed by keptKey(id); an id it does not find (not there for p) has no entry. FOR UPDATE
// holds each to the rules of an update (row-level security's UPDATE policies), so a record
// p may read but not change has none either: not_found, as its update would answer.
func (o *Ops) readKept(ctx context.Context, q querier, p *auth.Principal, r *Resource, ids []string) (map[string]json.RawMessage, error) {
	kept := make(map[string]json.RawMessage, len(ids))
	err := q.Query(ctx, p.Actor(), "SELECT x.id::text, row_to_json(x)::text FROM (SELECT "+o.statements[r].columns+" FROM "+
		ident(r.Table)+` WHERE "id" = ANY($1::text[]::uuid[]) FOR UPDATE) x`, []any{ids}, func(rows pgx.Rows) error {
		for rows.Next() {
			var id string
			var rec []byte
			if err := rows.Scan(&id, &rec); err != nil {
				return err
			}
			kept[id] = rec
		}
		return nil
	})
	return kept, err
}

// keptKey is readKept's key of id: PostgreSQL's text of a uuid, lower-case hex, whatever
// case the request wrote it in.
func keptKey(id string) string { return strings.ToLower(id) }

// refuseBody returns not_found when record id of r does not exist for p (RLS hides it),
// else bodyErr: an update's body is judged only for a record the actor sees, so another
// workspace's id is a 404 whatever the body. The lookup runs only on the way to a
// refusal, or before a check that costs more than it (a webhook URL's resolution).
func (o *Ops) refuseBody(ctx context.Context, q querier, p *auth.Principal, r *Resource, id string, bodyErr error) error {
	found := false
	err := q.Query(ctx, p.Actor(), `SELECT 1 FROM `+ident(r.Table)+` WHERE id = $1::text::uuid`, []any{id},
		func(rows pgx.Rows) error {
			found = rows.Next()
			return nil
		})
	switch {
	case err != nil:
		return readError(err)
	case !found:
		return notFound(r, id)
	}
	return bodyErr
}

// detach unlinks a join record named by its two ids in a JSON object body (deal_id and
// person_id for deal_people ...), decoded and past the gates (Post), running its
// statement through q, and returns {<key1>, <key2>, detached: true}. Errors:
// validation_error when an id is missing or not a uuid, not_found when there is no such
// link.
func (o *Ops) detach(ctx context.Context, q querier, p *auth.Principal, r *Resource, m map[string]json.RawMessage) (json.RawMessage, error) {
	var ids [2]string
	var bad []apierr.FieldError
	for i, k := range r.DetachKeys {
		f := r.Field(k)
		raw, ok := m[k]
		if !ok {
			bad = append(bad, apierr.FieldError{Field: k, Problem: "is required to name the link to detach (a uuid)"})
			continue
		}
		v, problem := checkValue(f, raw)
		if problem != "" {
			bad = append(bad, apierr.FieldError{Field: k, Problem: problem})
			continue
		}
		ids[i] = v.(string)
	}
	if len(bad) > 0 {
		return nil, validationError(r, bad)
	}
	k1, k2 := ident(r.DetachKeys[0]), ident(r.DetachKeys[1])
	// row_to_json, as create and update: compact JSON, where json_build_object would put
	// spaces around each colon.
	sql := "WITH x AS (DELETE FROM " + ident(r.Table) + " WHERE " + k1 + " = $1::text::uuid AND " + k2 +
		" = $2::text::uuid RETURNING " + k1 + ", " + k2 + ", true AS \"detached\") SELECT row_to_json(x)::text FROM x"
	rec, err := one(ctx, q, p, sql, []any{ids[0], ids[1]})
	if err != nil {
		return nil, store.MapWriteError(err, "update_failed")
	}
	if rec == nil {
		return nil, apierr.NotFound("no %s link between %s %s and %s %s in this workspace",
			r.Name, r.DetachKeys[0], ids[0], r.DetachKeys[1], ids[1])
	}
	return rec, nil
}

// permitWrite runs the second gate and the admin rules for a write.
func (o *Ops) permitWrite(p *auth.Principal, r *Resource, op Op, id string, body map[string]json.RawMessage) error {
	if err := checkMember(p, r, op); err != nil {
		return err
	}
	if r.Entities != nil {
		var et string
		if raw, ok := body["entity_type"]; ok && json.Unmarshal(raw, &et) == nil {
			if err := checkFeature(p, entityFeature(r, et), op, "commenting on a "+et); err != nil {
				return err
			}
		}
	}
	return checkSelf(p, r, id)
}

// permitAuthorEdit is the gate of an update of an AuthorEdits resource (comments): its
// author or an admin edits it, and one about an entity that needs a feature (a comment on
// a deal needs crm full, docs/contract.md section 5.6) needs that too. The database enforces the same
// (migration 00010); checking here first answers 403 rather than a bare 404.
func (o *Ops) permitAuthorEdit(ctx context.Context, p *auth.Principal, r *Resource, id string) error {
	var entityType, author string
	found := false
	err := o.store.Query(ctx, p.Actor(), `SELECT entity_type, coalesce(`+ident(r.Requester)+`::text, '') FROM `+ident(r.Table)+
		` WHERE id = $1::text::uuid`, []any{id}, func(rows pgx.Rows) error {
		if rows.Next() {
			found = true
			return rows.Scan(&entityType, &author)
		}
		return nil
	})
	switch {
	case err != nil:
		return readError(err)
	case !found:
		return notFound(r, id)
	case author != p.UserID && !p.IsAdmin():
		return apierr.Errorf(apierr.CodeInsufficientPermission,
			"only the author of %s %s or a workspace admin may edit it", recordNoun(r), id)
	}
	return checkFeature(p, entityFeature(r, entityType), OpUpdate, "editing a "+recordNoun(r)+" on a "+entityType)
}

// recordNoun names one record of r in messages: "comment" for comments.
func recordNoun(r *Resource) string { return strings.TrimSuffix(r.Name, "s") }

// one runs a statement returning at most one JSON text and returns it, or nil for no row.
func one(ctx context.Context, q querier, p *auth.Principal, sql string, args []any) (json.RawMessage, error) {
	var rec []byte
	err := q.Query(ctx, p.Actor(), sql, args, func(rows pgx.Rows) error {
		if rows.Next() {
			return rows.Scan(&rec)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

func notFound(r *Resource, id string) error {
	if !isUUID(id) {
		return apierr.NotFound("no %s record %q: ids are uuids", r.Name, clip(id))
	}
	return apierr.NotFound("no %s record %s in this workspace", r.Name, id)
}

// readError keeps Errors, makes a value PostgreSQL cannot take a bad_request, and turns
// anything else into internal_error.
func readError(err error) error {
	var e *apierr.Error
	if errors.As(store.MapReadError(err), &e) {
		return e
	}
	return store.Internal(err)
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
