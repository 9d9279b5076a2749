package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// A batch's records are written set-based: each record is judged in Go as a single write
// judges it (the gates, the fields, the custom values against definitions read once per
// batch), then the records to create are one INSERT of many rows and the records to update
// one UPDATE ... FROM VALUES, whatever the batch's size. An upsert finds all its keys in
// one statement, after taking their locks (lockKeys). Activity and webhook events are
// written by each table's FOR EACH ROW triggers, so every record gets its own, as a single
// write's; RLS judges each row of the statements as it judges a single write's.
//
// The match keys' indexes are not unique (store/migrations/00051_batch_match.sql: a
// workspace may already hold duplicates, which an upsert answers 409), so an upsert cannot
// be an INSERT ... ON CONFLICT; the key locks keep it race-free instead.
//
// What one statement cannot say, the batch writes one record at a time (runBatch, each in
// its own savepoint), as errPerRecord asks:
//   - a statement the database refuses (a reference to a missing record, a duplicate of a
//     unique custom value, a row RLS refuses): one statement fails as a whole, and only
//     record by record does the failure land on the record that caused it;
//   - records of one batch that name the same record (an id twice, or two upserts of one
//     key): one after the other, the second sees the first's write; in one statement it
//     would not;
//   - the resources whose writes check more than their fields (setBased).

// errPerRecord says a set-based batch cannot say what its records would do one at a time:
// run it again record by record.
var errPerRecord = errors.New("workspace: the batch is written record by record")

// setBased says whether r's batches are written set-based: not for webhook endpoints (a
// URL resolved and a secret made for each), custom field definitions (each judged against
// the others) and records edited by their author only (comments: each record's author is
// read first).
func setBased(r *Resource) bool {
	return r.Name != webhookEndpoints && r.Name != customFieldsName && !r.AuthorEdits
}

// setItem is one record of a set-based batch on its way to a statement.
type setItem struct {
	index int
	id    string // an update's record
	set   []assignment
}

// runBatchSet writes the batch's records set-based (see above) and returns the per-record
// results, or errPerRecord.
func (o *Ops) runBatchSet(ctx context.Context, tx pgx.Tx, p *auth.Principal, r *Resource, req *BatchRequest, m *matcher,
	status func(*apierr.Error) int) ([]BatchItem, error) {
	if m != nil {
		if err := lockKeys(ctx, tx, p, r, req, m); err != nil {
			return nil, err
		}
	}
	q := txQuerier{tx}
	items := make([]BatchItem, len(req.Records))
	// fail records item i's error; an atomic batch ends at the first.
	fail := func(i int, err error) error {
		var e *apierr.Error
		if !errors.As(err, &e) || status(e) >= 500 {
			return err
		}
		if req.Atomic {
			return &batchFailed{index: i, err: e}
		}
		items[i] = BatchItem{Index: i, Status: status(e), Error: &ItemError{Code: e.Code, Message: e.Message, Fields: e.Fields}}
		return nil
	}
	// Each record's target: create (id ""), or update the record id; or its error, told
	// in the records' order below (an atomic batch names the first failing record).
	target := make([]string, len(req.Records))
	refused := make([]error, len(req.Records))
	switch {
	case req.Operation == BatchCreate:
	case m == nil: // update, or upsert on id
		for i, rec := range req.Records {
			target[i], refused[i] = takeID(r, cloneRecord(rec))
			if refused[i] == nil && !isUUID(target[i]) { // "" would read as a create
				refused[i] = notFound(r, target[i])
			}
		}
	default:
		ids, err := o.matchAll(ctx, q, p, r, req, m)
		if err != nil {
			return nil, err
		}
		for i, t := range ids {
			target[i], refused[i] = t.id, t.err
		}
	}
	seen := map[string]bool{}
	var creates, updates []setItem
	cache := &customDefs{}
	for i, rec := range req.Records {
		if refused[i] != nil {
			if err := fail(i, refused[i]); err != nil {
				return nil, err
			}
			continue
		}
		rec = cloneRecord(rec)
		if target[i] == "" {
			set, err := o.createAssignments(ctx, q, p, r, rec, cache)
			if err != nil {
				if err := fail(i, err); err != nil {
					return nil, err
				}
				continue
			}
			creates = append(creates, setItem{index: i, set: set})
			continue
		}
		id := target[i]
		if seen[id] {
			return nil, errPerRecord
		}
		seen[id] = true
		delete(rec, "id")
		set, err := o.updateAssignments(ctx, q, p, r, id, rec, cache)
		if err != nil {
			if err := fail(i, err); err != nil {
				return nil, err
			}
			continue
		}
		updates = append(updates, setItem{index: i, id: id, set: set})
	}
	for _, run := range []struct {
		items []setItem
		write func(context.Context, pgx.Tx, *Resource, []setItem, bool) ([]json.RawMessage, error)
		code  int
	}{{creates, o.insertSet, http.StatusCreated}, {updates, o.updateSet, http.StatusOK}} {
		if len(run.items) == 0 {
			continue
		}
		recs, err := run.write(ctx, tx, r, run.items, req.IDsOnly)
		if err != nil {
			e := customWriteError(err)
			if e == nil {
				e = store.MapWriteError(err, "create_failed")
			}
			var ae *apierr.Error
			if errors.As(e, &ae) && status(ae) < 500 {
				return nil, errPerRecord
			}
			return nil, e
		}
		for k, it := range run.items {
			if recs[k] == nil { // an update of a record the actor does not see
				if err := fail(it.index, notFound(r, it.id)); err != nil {
					return nil, err
				}
				continue
			}
			id := recordID(recs[k])
			items[it.index] = BatchItem{Index: it.index, Status: run.code, ID: &id}
			if !req.IDsOnly {
				items[it.index].Record = recs[k]
			}
		}
	}
	return items, nil
}

// cloneRecord copies a record's fields: a batch that runs again reads them whole.
func cloneRecord(rec map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(rec))
	for k, v := range rec {
		out[k] = v
	}
	return out
}

// createAssignments judges a record to create as create does (the gates, the fields,
// the custom values against cache's definitions) and returns its columns' values.
func (o *Ops) createAssignments(ctx context.Context, q querier, p *auth.Principal, r *Resource, rec map[string]json.RawMessage, cache *customDefs) ([]assignment, error) {
	if err := o.permitWrite(p, r, OpCreate, "", rec); err != nil {
		return nil, err
	}
	set, err := checkBody(r, rec, true)
	if err != nil {
		return nil, err
	}
	if r.Custom {
		return o.customAssignment(ctx, q, p, r, set, true, cache)
	}
	return set, nil
}

// updateAssignments judges a record to update as update does; a refused body of a record
// the actor does not see is its not_found (refuseBody).
func (o *Ops) updateAssignments(ctx context.Context, q querier, p *auth.Principal, r *Resource, id string, rec map[string]json.RawMessage, cache *customDefs) ([]assignment, error) {
	if !isUUID(id) {
		return nil, notFound(r, id)
	}
	if err := o.permitWrite(p, r, OpUpdate, id, rec); err != nil {
		return nil, err
	}
	set, err := checkBody(r, rec, false)
	if err == nil && r.Custom {
		set, err = o.customAssignment(ctx, q, p, r, set, false, cache)
	}
	if err != nil {
		return nil, o.refuseBody(ctx, q, p, r, id, err)
	}
	return set, nil
}

// returned is what a batch's statement returns of each record it writes: the record's
// columns, or with idsOnly its id alone.
func (o *Ops) returned(r *Resource, idsOnly bool) string {
	if idsOnly {
		return `"id"`
	}
	return o.statements[r].columns
}

// setColumns lists the columns any of items assigns, in the catalogue's order.
func setColumns(r *Resource, items []setItem) []*Field {
	has := map[*Field]bool{}
	for _, it := range items {
		for _, a := range it.set {
			has[a.field] = true
		}
	}
	var cols []*Field
	for i := range r.Fields {
		if has[&r.Fields[i]] {
			cols = append(cols, &r.Fields[i])
		}
	}
	return cols
}

// insertSet creates items' records in one INSERT of one row each (a column a record does
// not give takes its DEFAULT, as a single create's) and returns them in items' order
// ({"id": ...} alone with idsOnly).
func (o *Ops) insertSet(ctx context.Context, tx pgx.Tx, r *Resource, items []setItem, idsOnly bool) ([]json.RawMessage, error) {
	cols := setColumns(r, items)
	if len(cols) == 0 { // INSERT ... DEFAULT VALUES writes one row
		return nil, errPerRecord
	}
	names := make([]string, len(cols))
	for i, f := range cols {
		names[i] = ident(f.Name)
	}
	var sql strings.Builder
	sql.WriteString("WITH x AS (INSERT INTO " + ident(r.Table) + " (" + strings.Join(names, ", ") + ") VALUES ")
	var args []any
	for k, it := range items {
		if k > 0 {
			sql.WriteString(", ")
		}
		sql.WriteByte('(')
		for c, f := range cols {
			if c > 0 {
				sql.WriteString(", ")
			}
			v, ok := valueOf(it.set, f)
			if !ok {
				sql.WriteString("DEFAULT")
				continue
			}
			args = append(args, v)
			sql.WriteString(param(len(args), f.Type))
		}
		sql.WriteByte(')')
	}
	// RETURNING gives the rows of an INSERT ... VALUES in the order of its VALUES (one
	// row each, no ON CONFLICT); the count is checked all the same.
	sql.WriteString(" RETURNING " + o.returned(r, idsOnly) + ") SELECT row_to_json(x)::text FROM x")
	recs := make([]json.RawMessage, 0, len(items))
	rows, err := tx.Query(ctx, sql.String(), args...)
	if err != nil {
		return nil, err
	}
	if err := store.Scan(rows, func(rows pgx.Rows) error {
		for rows.Next() {
			var rec []byte
			if err := rows.Scan(&rec); err != nil {
				return err
			}
			recs = append(recs, rec)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(recs) != len(items) {
		return nil, fmt.Errorf("workspace: a batch insert of %d rows returned %d", len(items), len(recs))
	}
	return recs, nil
}

// updateSet changes items' records in one UPDATE ... FROM VALUES (a column a record does
// not give keeps its value; custom values merge as a single update's) and returns them in
// items' order ({"id": ...} alone with idsOnly), nil for a record the actor does not see.
func (o *Ops) updateSet(ctx context.Context, tx pgx.Tx, r *Resource, items []setItem, idsOnly bool) ([]json.RawMessage, error) {
	cols := setColumns(r, items)
	var sql strings.Builder
	var args []any
	// v's columns: v_ord, v_id, then for column c: v_hc (given?) and v_c (its value); for
	// custom_fields v_c is the keys to set and v_xc the keys to clear.
	sql.WriteString("WITH v AS (SELECT * FROM (VALUES ")
	for k, it := range items {
		if k > 0 {
			sql.WriteString(", ")
		}
		args = append(args, it.id)
		fmt.Fprintf(&sql, "(%d, $%d::text::uuid", k, len(args))
		for _, f := range cols {
			v, ok := valueOf(it.set, f)
			patch, custom := v.(*customPatch)
			switch {
			case !ok && f.Name == customFieldsName && r.Custom:
				sql.WriteString(", false, NULL::jsonb, NULL::text[]")
			case !ok:
				sql.WriteString(", false, NULL::" + f.Type.SQLType())
			case custom:
				args = append(args, patch.set, patch.clear)
				fmt.Fprintf(&sql, ", true, $%d::text::jsonb, $%d::text[]", len(args)-1, len(args))
			default:
				args = append(args, v)
				sql.WriteString(", true, " + param(len(args), f.Type))
			}
		}
		sql.WriteByte(')')
	}
	sql.WriteString(") v (v_ord, v_id")
	for c, f := range cols {
		fmt.Fprintf(&sql, ", v_h%d, v_%d", c, c)
		if f.Name == customFieldsName && r.Custom {
			fmt.Fprintf(&sql, ", v_x%d", c)
		}
	}
	sql.WriteString(")), x AS (UPDATE " + ident(r.Table) + " t SET ")
	olds, news := make([]string, len(cols)), make([]string, len(cols))
	for c, f := range cols {
		if c > 0 {
			sql.WriteString(", ")
		}
		name := ident(f.Name)
		olds[c] = "t." + name
		news[c] = fmt.Sprintf("CASE WHEN v.v_h%d THEN v.v_%d ELSE t.%s END", c, c, name)
		if f.Name == customFieldsName && r.Custom {
			news[c] = fmt.Sprintf(`CASE WHEN v.v_h%d THEN (coalesce(t.%s, '{}') || v.v_%d) - v.v_x%d ELSE t.%s END`, c, name, c, c, name)
		}
		sql.WriteString(name + " = " + news[c])
	}
	names := Columns(r)
	if idsOnly {
		names = []string{"id"}
	}
	for i, c := range names {
		names[i] = "x." + ident(c)
	}
	// A record whose values would not change is left alone, as update's keepSame leaves it
	// (records.go, changes); unchanged reads it back.
	sql.WriteString(" FROM v WHERE t.id = v.v_id AND " + changes(olds, news) + " RETURNING v.v_ord, " + o.returned(r, idsOnly) +
		") SELECT x.v_ord, (SELECT row_to_json(y)::text FROM (SELECT " + strings.Join(names, ", ") + ") y) FROM x")
	recs := make([]json.RawMessage, len(items))
	rows, err := tx.Query(ctx, sql.String(), args...)
	if err != nil {
		return nil, err
	}
	err = store.Scan(rows, func(rows pgx.Rows) error {
		for rows.Next() {
			var ord int
			var rec []byte
			if err := rows.Scan(&ord, &rec); err != nil {
				return err
			}
			if ord < 0 || ord >= len(recs) {
				return errors.New("workspace: a batch update returned a row it did not write: " + strconv.Itoa(ord))
			}
			recs[ord] = rec
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, o.unchanged(ctx, tx, r, items, recs)
}

// unchanged fills recs' gaps, the records updateSet left alone, with readKept: a record
// the actor may read but not change stays nil (not found), as its update would have left
// it.
func (o *Ops) unchanged(ctx context.Context, tx pgx.Tx, r *Resource, items []setItem, recs []json.RawMessage) error {
	var ids []string
	for k, rec := range recs {
		if rec == nil {
			ids = append(ids, items[k].id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	kept, err := o.readKept(ctx, txQuerier{tx}, nil, r, ids)
	if err != nil {
		return err
	}
	for k, rec := range recs {
		if rec == nil {
			recs[k] = kept[keptKey(items[k].id)]
		}
	}
	return nil
}

// valueOf is the value set assigns to f, if it does.
func valueOf(set []assignment, f *Field) (value, bool) {
	for _, a := range set {
		if a.field == f {
			return a.value, true
		}
	}
	return nil, false
}

// matched is an upsert record's target: the record to update (id), "" to create, or the
// record's error.
type matched struct {
	id  string
	err error
}

// matchAll finds the records an upsert's keys name, all in one statement (matcher.lookup),
// and returns each input record's target. Two records of the batch with one key are
// errPerRecord: the second must see the first's write.
func (o *Ops) matchAll(ctx context.Context, q querier, p *auth.Principal, r *Resource, req *BatchRequest, m *matcher) ([]matched, error) {
	out := make([]matched, len(req.Records))
	var keys []string
	var at []int // keys[k] is the key of record at[k]
	for i, rec := range req.Records {
		key, err := matchKey(r, req, m, rec)
		if err != nil {
			out[i].err = err
			continue
		}
		keys = append(keys, key)
		at = append(at, i)
	}
	if len(keys) == 0 {
		return out, nil
	}
	found := make([]bool, len(keys))
	owner := map[string]int{} // normalised key -> the record it is of
	dup := false
	err := q.Query(ctx, p.Actor(), m.lookup, []any{keys}, func(rows pgx.Rows) error {
		for rows.Next() {
			var k int
			var key *string
			var ids []string
			if err := rows.Scan(&k, &key, &ids); err != nil {
				return err
			}
			if key == nil { // no normalised key: not found, below
				continue
			}
			norm := *key
			k-- // WITH ORDINALITY counts from 1
			i := at[k]
			found[k] = true
			if _, ok := owner[norm]; ok {
				dup = true
			}
			owner[norm] = i
			switch {
			case len(ids) > 1:
				out[i].err = apierr.Errorf(apierr.CodeConflict,
					"more than one %s record has %s %q; upsert needs one record per key, so update the one you mean by id", r.Name, req.Match, clip(norm))
			case len(ids) == 1:
				out[i].id = ids[0]
			}
		}
		return nil
	})
	switch {
	case err != nil:
		// A key the database cannot read (a custom field's value of another type) fails
		// the statement: record by record, only that record fails.
		var e *apierr.Error
		if errors.As(store.MapWriteError(err, "create_failed"), &e) && e.Code != apierr.CodeInternal {
			return nil, errPerRecord
		}
		return nil, err
	case dup:
		return nil, errPerRecord
	}
	for k, ok := range found {
		if !ok {
			out[at[k]].err = validationError(r, []apierr.FieldError{{Field: m.path(), Problem: "has no " + req.Match + " to match on"}})
		}
	}
	return out, nil
}

// matchKey is an upsert record's key as the lookup takes it: a natural key's string, a
// custom field's JSON value.
func matchKey(r *Resource, req *BatchRequest, m *matcher, rec map[string]json.RawMessage) (string, error) {
	keyRaw, ok := rec[m.from]
	if ok && m.custom != "" {
		var cf map[string]json.RawMessage
		if json.Unmarshal(keyRaw, &cf) != nil {
			return "", validationError(r, []apierr.FieldError{{Field: customFieldsName, Problem: "must be a JSON object"}})
		}
		keyRaw, ok = cf[m.custom]
	}
	if !ok || string(keyRaw) == "null" {
		return "", validationError(r, []apierr.FieldError{{Field: m.path(), Problem: "is required: the upsert matches on " + req.Match}})
	}
	keyText := string(keyRaw)
	if m.custom == "" {
		if json.Unmarshal(keyRaw, &keyText) != nil {
			return "", validationError(r, []apierr.FieldError{{Field: m.path(), Problem: "must be a string"}})
		}
	}
	return keyText, nil
}
