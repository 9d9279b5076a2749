package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// List returns one page of the resource as the actor sees it (docs/rest.md): newest first by
// keyset on (created_at, id); in order=updated_at least recently updated first by keyset on
// (updated_at, id); with sort= by keyset on (field, id); with q= by relevance, then newest
// first, by keyset on (rank, created_at, id). Errors: unknown_resource, method_not_allowed,
// insufficient_scope, insufficient_permission, bad_request (unknown filter, field or sort,
// an operator the field does not take, a bad value, limit, cursor, q or ids).
func (o *Ops) List(ctx context.Context, p *auth.Principal, r *Resource, params ListParams) (*Page, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	next, err := o.listRecords(ctx, p, r, params, func(rec []byte) error {
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		buf.Write(rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	buf.WriteByte(']')
	return &Page{Data: buf.Bytes(), NextCursor: next}, nil
}

// listRecords reads the page of r that params select, handing each record's JSON to add
// in order (rec is only valid during the call, which holds the page's connection: add must
// not wait on anything), and returns the next page's cursor, nil on the last page. It
// checks what List checks; an error from add stops the page and is returned as the
// page's own errors are (readError: an *apierr.Error as it is).
func (o *Ops) listRecords(ctx context.Context, p *auth.Principal, r *Resource, params ListParams, add func(rec []byte) error) (*string, error) {
	if err := admit(p, r, OpList); err != nil {
		return nil, err
	}
	if err := checkMember(p, r, OpList); err != nil {
		return nil, err
	}
	class := ClassRead
	if params.Q != nil {
		class, ctx = ClassSearch, o.searchContext(ctx)
	}
	done, err := o.admitClass(ctx, p, class)
	if err != nil {
		return nil, err
	}
	defer done()
	q, err := o.listQuery(ctx, p, r, params, true)
	if err != nil {
		return nil, err
	}
	next, err := o.listPage(ctx, p, r, params, q, add)
	if errors.Is(err, store.ErrFieldsChanged) {
		// Built from kept custom field definitions a change has outdated: built again
		// from the definitions as they are now, read for it (fieldcache.go).
		o.fields.forget(fieldKey{p.WorkspaceID, r.Name}, *q.fieldsAt)
		if q, err = o.listQuery(ctx, p, r, params, false); err != nil {
			return nil, err
		}
		next, err = o.listPage(ctx, p, r, params, q, add)
	}
	return next, err
}

// listPage runs the list statement q, hands each record of its page to add and returns
// the next page's cursor. It returns store.ErrFieldsChanged as it is, before any record,
// when q was built from kept definitions that changed.
func (o *Ops) listPage(ctx context.Context, p *auth.Principal, r *Resource, params ListParams, q *listStatement, add func(rec []byte) error) (*string, error) {
	var lastAt time.Time
	lastKeys := make([]*string, len(q.walk.keys))
	var lastID string
	n := 0
	query := o.store.Query
	switch {
	case q.fieldsAt != nil:
		query = func(ctx context.Context, a store.Actor, sql string, args []any, scan func(pgx.Rows) error) error {
			return o.store.QueryAtFields(ctx, a, *q.fieldsAt, q.sync, sql, args, scan)
		}
	case q.sync:
		query = o.store.QuerySync
	}
	err := query(ctx, p.Actor(), q.sql, q.args, func(rows pgx.Rows) error {
		var rec []byte
		dest := make([]any, 0, len(lastKeys)+2)
		if q.walk.legacy {
			dest = append(dest, &lastAt)
		} else {
			for i := range lastKeys {
				dest = append(dest, &lastKeys[i])
			}
		}
		dest = append(dest, &lastID, &rec)
		for rows.Next() {
			if n == q.limit {
				n++ // a next page exists
				break
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			if err := add(rec); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if errors.Is(err, store.ErrFieldsChanged) {
		return nil, err
	}
	if err != nil {
		return nil, readError(err)
	}
	if r.Paged && n > q.limit {
		var c string
		if q.walk.legacy {
			pos := position{at: lastAt, order: params.Order}
			pos.id, _ = uuid.Parse(lastID)
			c = encodeCursor(q.key, r.Name, pos)
		} else {
			c = encodeKeyCursor(q.key, r.Name, keyPosition{Walk: q.walk.spec, Keys: lastKeys, ID: lastID})
		}
		return &c, nil
	}
	return nil, nil
}

// listStatement is a list's statement with what List needs to read its rows.
type listStatement struct {
	sql   string
	args  []any
	key   []byte // the cursor key, on paged resources
	walk  walk
	limit int
	sync  bool // walks updated_at ascending: run with store.QuerySync
	// fieldsAt is the version of the kept custom field definitions the statement was
	// built from, which it runs checking (store.QueryAtFields); nil when none or read for it.
	fieldsAt *int64
}

// walk is the order a list's keyset follows: its keys before id, all in one direction.
type walk struct {
	keys   []walkKey
	desc   bool
	legacy bool   // the order's walk: one timestamp key, the cursor of cursor.go
	spec   string // names the walk in its cursors (cursor_keys.go)
}

// walkKey is one sort key: an expression over the table's columns, its name in the page
// subquery, its type, and whether it may be NULL (sorted last ascending, first descending,
// as a btree index on it walks).
type walkKey struct {
	expr, alias, sqlType string
	nullable             bool
}

// listQuery builds a list statement from the catalogue and the checked inputs: typed
// exact and operator filters, ids, q, updated_since and the keyset condition of the
// cursor as parameters, one row more than the limit on paged resources. Each walk has its
// index: (workspace_id, created_at DESC, id DESC), (workspace_id, updated_at, id),
// (workspace_id, field, id) for each sortable field (migration 00019), so a page at depth
// costs what the first page costs; q reads the matches through the search indexes and
// sorts them by rank. kept lets it build from kept custom field definitions (fieldcache.go).
func (o *Ops) listQuery(ctx context.Context, p *auth.Principal, r *Resource, params ListParams, kept bool) (*listStatement, error) {
	cq, params, err := o.customQuery(ctx, p, r, params, kept)
	if err != nil {
		return nil, err
	}
	c, err := params.check(r)
	if err != nil {
		return nil, err
	}
	st := &listStatement{limit: c.limit, fieldsAt: cq.fieldsAt}
	var where []string
	probes := map[int]probeForm{} // where's conditions as fewOrWalk's probe writes them
	add := func(v any) int {
		st.args = append(st.args, v)
		return len(st.args)
	}
	if r.Governed != "" {
		where = append(where, fmt.Sprintf(`%s = ANY($%d::text[])`, ident(r.Governed), add(governedResources(p))))
	}
	var drive *customProbe  // the custom condition the probe of fewOrWalk reads, if any
	var listed *customProbe // the first eq condition a list index may answer (sortindex.go)
	var headed *customProbe // the first prefix condition a prefix index may answer
	for _, cc := range cq.conds {
		sql, probe := cc.sql(r, cq.codePoint, add)
		if drive == nil {
			drive = probe
		}
		if listed == nil && probe.listed != "" {
			listed = probe
		}
		if headed == nil && probe.headed != nil {
			headed = probe
		}
		where = append(where, sql)
	}
	merged := -1 // where's notMerged, which fewOrWalk's probe leaves to its page
	if r.Mergeable {
		merged = len(where)
		where = append(where, notMerged)
	}
	for _, f := range r.Filters() { // catalogue order keeps the statement text stable
		v, ok := params.Filters[f.Name]
		if !ok {
			continue
		}
		if _, err := checkFilter(r, f.Name, v); err != nil {
			return nil, err
		}
		if err := checkEntityFilter(p, r, f.Name, v); err != nil {
			return nil, err
		}
		where = append(where, ident(f.Name)+" = "+param(add(v), f.Type))
	}
	for name := range params.Filters {
		if r.FilterField(name) == nil {
			return nil, unknownParam(r, name)
		}
	}
	for _, cond := range c.conds {
		if cond.Op == OpEq || cond.Op == OpIn {
			for _, v := range cond.values() {
				if err := checkEntityFilter(p, r, cond.Field, v); err != nil {
					return nil, err
				}
			}
		}
		sql, probe := conditionSQL(r.OpField(cond.Field), cond, o.store.TextInCodePointOrder(), add)
		probes[len(where)] = probe
		where = append(where, sql)
	}
	if c.ids != nil {
		where = append(where, fmt.Sprintf(`"id" = ANY($%d::text[]::uuid[])`, add(c.ids)))
	}
	if !params.UpdatedSince.IsZero() {
		where = append(where, fmt.Sprintf(`"updated_at" >= $%d::timestamptz`, add(params.UpdatedSince)))
	}
	var rank string
	if c.query != nil {
		var match string
		match, rank = searchSQL(c, add)
		if len(cq.searchable) > 0 {
			match = customSearch(r, match, c.query, add)
		}
		where = append(where, match)
	}
	st.walk = walkOf(params, c, rank)
	if cq.sort != nil {
		st.walk = cq.walk(r, c.query != nil)
	}
	if params.Order == OrderUpdated || c.sortBy == &updatedAtField && !c.desc {
		// Incremental sync, by order or sort: never past a transaction still in flight
		// (store.QuerySync), so each committed change comes in some walk.
		st.sync = true
		where = append(where, `"updated_at" < `+store.SyncHorizon)
	}
	if r.Paged {
		if st.key, err = o.key(ctx); err != nil {
			return nil, err
		}
	}
	if params.Cursor != "" {
		if !r.Paged {
			return nil, apierr.BadRequest("%s answers one page and takes no cursor", r.Name)
		}
		if cq.sort != nil {
			pos, err := decodeKeyCursor(st.key, r.Name, st.walk.spec, 1, params.Cursor)
			if err != nil {
				return nil, err
			}
			cq.after = &pos
		} else {
			cond, err := st.walk.after(st.key, r.Name, params, add)
			if err != nil {
				return nil, err
			}
			where = append(where, cond)
		}
	}
	fetch := c.limit
	if r.Paged {
		fetch++ // one more row than asked tells whether there is a next page
	}

	dir := " ASC"
	if st.walk.desc {
		dir = " DESC"
	}
	var inner, outer, keys []string
	for _, k := range st.walk.keys {
		inner = append(inner, k.expr+dir)
		outer = append(outer, "y."+ident(k.alias)+dir)
		if st.walk.legacy {
			keys = append(keys, "y."+ident(k.alias))
		} else {
			keys = append(keys, "y."+ident(k.alias)+"::text")
		}
	}
	cols := o.statements[r].columns
	if cq.known && r.Custom {
		cols = shownCustom(r, cq.archived, add)
	}
	if rank != "" {
		cols += ", " + rank + ` AS "_rank"`
	}
	rec := "row_to_json(y)::text"
	if c.fields != nil || rank != "" || cq.sort != nil {
		shown := c.fields
		if shown == nil {
			shown = Columns(r)
		}
		for i, f := range shown {
			shown[i] = "y." + ident(f)
			if f == customFieldsName && cq.keys != nil {
				shown[i] = customSubset(`y."custom_fields"`, add(cq.keys))
			}
		}
		rec = "(SELECT row_to_json(x)::text FROM (SELECT " + strings.Join(shown, ", ") + ") x)"
	}
	order := " ORDER BY " + strings.Join(inner, ", ") + `, "id"` + dir + " LIMIT " + strconv.Itoa(fetch)
	walkSQL := "SELECT " + cols + " FROM " + ident(r.Table)
	if len(where) > 0 {
		walkSQL += " WHERE " + strings.Join(where, " AND ")
	}
	page := walkSQL + order
	var with string
	if st.walk.legacy && st.walk.desc {
		switch {
		case len(c.conds) > 0:
			// merged_into_id is in no index: in the probe it would read every candidate's
			// row, where the probe otherwise reads its index alone; the page checks it.
			probeWhere, check := where, ""
			if merged >= 0 {
				probeWhere, check = slices.Clone(where), " AND "+notMerged
				probeWhere[merged] = "true"
			}
			with, page = fewOrWalk(r, cols, conditionProbe(r, probeWhere, probes), check, walkSQL, order)
		case listed != nil:
			// The records holding the value, in the list's order, from the field's list
			// index when it is valid (sortindex.go): no probe, and the page reads the
			// index and one heap page per record it shows, where the walk read every record
			// of the list's order up to the page's last match (docs/performance.md, "Custom
			// fields"). The workspace's own condition, as customQuery.page names it.
			ready, err := o.listIndexReady(ctx, p, r, listed.field)
			if err != nil {
				return nil, err
			}
			if ready {
				page = walkSQL + fmt.Sprintf(` AND %s."workspace_id" = $%d::text::uuid AND `, ident(r.Table), add(p.WorkspaceID)) + listed.listed + order
				break
			}
			fallthrough
		case drive != nil:
			walk := walkSQL
			if headed != nil {
				// The walk, when the probe finds many matches, through the field's prefix
				// index when it is valid (sortindex.go): in the list's order, reading only
				// the records whose value's head has the prefix, where the walk read
				// every record up to the page's last match (docs/performance.md, "Custom
				// fields"). The workspace's own condition, as for the list index.
				ready, err := o.prefixIndexReady(ctx, p, r, headed.field)
				if err != nil {
					return nil, err
				}
				if ready {
					walk += fmt.Sprintf(` AND %s."workspace_id" = $%d::text::uuid AND `, ident(r.Table), add(p.WorkspaceID)) + headed.headed(add)
				}
			}
			with, page = fewOrWalk(r, cols, drive.probe(add), " AND "+strings.Join(where, " AND "), walk, order)
		}
	}
	if cq.sort != nil {
		page = cq.page(r, cols, where, fetch, add)
	}
	st.sql = with + "SELECT " + strings.Join(keys, ", ") + ", y.id::text, " + rec + " FROM (" + page +
		") y ORDER BY " + strings.Join(outer, ", ") + ", y.id" + dir
	if cq.sort != nil { // its parts come in order, one after the other (customQuery.page)
		st.sql = "SELECT " + strings.Join(keys, ", ") + ", y.id::text, " + rec + " FROM (" + page + ") y LIMIT " + strconv.Itoa(fetch)
	}
	return st, nil
}

// fewMatches is how many rows the probe of fewOrWalk counts before it stops.
const fewMatches = 200

// fewOrWalk is the page of a list in its own order (newest first) with operator conditions,
// which may match a handful of rows of a large workspace on a field whose index does not
// carry that order: walking the keyset index would then read the whole workspace
// (docs/performance.md, "Plans at scale"), and with sorting off (store/actor.go) the
// planner never reads the few matches through the field's index and sorts them. So the
// statement probes first: up to fewMatches+1 ids matching the conditions, in no order, so
// the planner reads them through whichever index answers the conditions (probe:
// conditionProbe, or customProbe.probe when only custom fields have operator conditions,
// whose ids are candidates the page checks against the list's conditions, check). If
// there are fewMatches or fewer, the page is those rows, fetched by primary key and
// sorted (a materialized CTE: the planner cannot turn it into a walk); otherwise the usual
// walk, which then finds a match in about every workspace/fewMatches rows. One-time
// filters run only one of the two. A probe may name a record more than once (a
// multi-valued custom field's options): the page fetches each once, and the count, of
// rows, still tells that there may be more matches than fewMatches.
func fewOrWalk(r *Resource, cols, probe, check, walkSQL, order string) (with, page string) {
	table := ident(r.Table)
	count := `(SELECT count(*) FROM "_probe")`
	k := strconv.Itoa(fewMatches)
	with = `WITH "_probe" AS MATERIALIZED (` + probe + "), " +
		`"_few" AS MATERIALIZED (SELECT f.* FROM (SELECT DISTINCT "id" FROM "_probe") p CROSS JOIN LATERAL (SELECT ` + cols + " FROM " + table +
		` WHERE "id" = p."id"` + check + " OFFSET 0) f WHERE " + count + " <= " + k + ") "
	page = `(SELECT * FROM "_few"` + order + ") UNION ALL (" + walkSQL + " AND " + count + " > " + k + order + ")"
	return with, page
}

// conditionProbe is fewOrWalk's probe of built-in operator conditions: where's conditions
// on r's table, probes holding those the probe writes otherwise (conditionSQL). One written
// as two alternatives (ne: below or above the value, each a range of an index) makes the
// probe a union of two scans, each stopped at fewMatches+1 rows and ordered by the
// condition's field; a single scan is ordered by the field of the first condition that
// names one. The order is what keeps a scan on a field's index (every field taking
// operators has one led by workspace_id, TestFindIndexes): sorting being off, the planner
// takes the index that yields it, where unordered it may plan a condition it guesses wide
// as a Seq Scan of every workspace's rows (docs/performance.md, "Plans at scale", has the
// figures; TestFindPlansAtScale bounds the buffers read).
func conditionProbe(r *Resource, where []string, probes map[int]probeForm) string {
	table := ident(r.Table)
	limit := " LIMIT " + strconv.Itoa(fewMatches+1)
	conds := slices.Clone(where)
	split, first := -1, -1
	for i, p := range probes {
		if p.col != "" && (first < 0 || i < first) {
			first = i
		}
		switch {
		case len(p.alts) == 0: // written as in where
		case len(p.alts) == 1:
			conds[i] = p.alts[0]
		case split < 0 || i < split: // the first one: the statement text stays stable
			if split >= 0 {
				conds[split] = probes[split].either()
			}
			split = i
		default:
			conds[i] = p.either()
		}
	}
	scan := func(order string) string {
		return `SELECT "id" FROM ` + table + " WHERE " + strings.Join(conds, " AND ") + order + limit
	}
	orderBy := ""
	if first >= 0 {
		orderBy = " ORDER BY " + probes[first].col
	}
	probe := scan(orderBy)
	if split >= 0 {
		var scans []string
		for _, a := range probes[split].alts {
			conds[split] = a
			scans = append(scans, "("+scan(" ORDER BY "+probes[split].col)+")")
		}
		probe = "SELECT \"id\" FROM (" + strings.Join(scans, " UNION ALL ") + ") p" + limit
	}
	return probe
}

// checkEntityFilter is the second gate of a filter naming an entity type: comments and
// activity of deals also need crm.
func checkEntityFilter(p *auth.Principal, r *Resource, field, v string) error {
	if field != "entity_type" || r.Entities == nil {
		return nil
	}
	return checkFeature(p, entityFeature(r, v), OpList, fmt.Sprintf("listing %s of %s", r.Name, v))
}

// walkOf picks the list's walk: sort= first, then q's relevance, then the order.
func walkOf(params ListParams, c *checkedList, rank string) walk {
	switch {
	case c.sortBy != nil:
		f := c.sortBy
		nullable := f != &createdAtField && f != &updatedAtField
		spec := *params.Sort
		if c.query != nil {
			spec = "q," + spec
		}
		return walk{keys: []walkKey{{expr: ident(f.Name), alias: f.Name, sqlType: f.Type.SQLType(), nullable: nullable}},
			desc: c.desc, spec: spec}
	case rank != "":
		return walk{keys: []walkKey{{expr: rank, alias: "_rank", sqlType: "real"},
			{expr: `"created_at"`, alias: "created_at", sqlType: "timestamptz"}}, desc: true, spec: "q"}
	case params.Order == OrderUpdated:
		return walk{keys: []walkKey{{expr: `"updated_at"`, alias: "updated_at"}}, legacy: true}
	}
	return walk{keys: []walkKey{{expr: `"created_at"`, alias: "created_at"}}, desc: true, legacy: true}
}

// after is the keyset condition of the page after the cursor's position.
func (w walk) after(key []byte, resource string, params ListParams, add func(any) int) (string, error) {
	cmp := " > "
	if w.desc {
		cmp = " < "
	}
	if w.legacy {
		pos, err := decodeCursor(key, resource, params.Order, params.Cursor)
		if err != nil {
			return "", err
		}
		at, id := add(pos.at), add(pos.id.String())
		return fmt.Sprintf(`(%s, "id")%s($%d::timestamptz, $%d::text::uuid)`, w.keys[0].expr, cmp, at, id), nil
	}
	pos, err := decodeKeyCursor(key, resource, w.spec, len(w.keys), params.Cursor)
	if err != nil {
		return "", err
	}
	id := fmt.Sprintf("$%d::text::uuid", add(pos.ID))
	var exprs, vals []string
	for i, k := range w.keys {
		if pos.Keys[i] == nil {
			if !k.nullable {
				return "", apierr.BadRequest("the cursor is not valid for %s", resource)
			}
			// NULLs come last ascending, first descending: after a NULL, the NULLs past id,
			// and descending every non-NULL value.
			if w.desc {
				return fmt.Sprintf(`(%s IS NOT NULL OR "id" < %s)`, k.expr, id), nil
			}
			return fmt.Sprintf(`(%s IS NULL AND "id" > %s)`, k.expr, id), nil
		}
		exprs = append(exprs, k.expr)
		vals = append(vals, fmt.Sprintf("$%d::text::%s", add(*pos.Keys[i]), k.sqlType))
	}
	cond := "(" + strings.Join(exprs, ", ") + `, "id")` + cmp + "(" + strings.Join(vals, ", ") + ", " + id + ")"
	if w.keys[0].nullable && !w.desc { // ascending, the NULLs come after every value
		cond = "(" + cond + " OR " + w.keys[0].expr + " IS NULL)"
	}
	return cond, nil
}

// probeForm is a condition as fewOrWalk's probe writes it: alts, where that differs from
// the walk's, the condition or its alternatives (any one of them holds), and col, the
// field whose order the probe may read it in (none for in: a list of values on an index's
// second column yields no order in PostgreSQL 15, so ordering by it would add a sort).
type probeForm struct {
	alts []string
	col  string
}

// either is the condition p's alternatives make together.
func (p probeForm) either() string { return "(" + strings.Join(p.alts, " OR ") + ")" }

// conditionSQL is one checked operator filter, its value as a parameter, and the same
// condition as fewOrWalk's probe writes it: the field it may be read in the order of and,
// where they differ, its words: ne as two ranges, each of which an index can answer, in as
// a list of values. Where the database orders text by code point (codePoint,
// store.TextInCodePointOrder), prefix is also a range of the field's values; contains is
// a pattern of the field's trigram index, case and accents ignored.
func conditionSQL(f *Field, c Condition, codePoint bool, add func(any) int) (sql string, probe probeForm) {
	col := ident(f.Name)
	switch c.Op {
	case OpNull:
		if c.Value == "true" {
			return col + " IS NULL", probeForm{col: col}
		}
		return col + " IS NOT NULL", probeForm{col: col}
	case OpIn:
		values := c.values()
		sql = fmt.Sprintf("%s = ANY($%d::text[]::%s[])", col, add(values), f.Type.SQLType())
		// An array cast from text[] to a type whose input is only stable (timestamptz) is
		// no constant, and the planner filtered the keyset index with it instead of
		// looking each value up: the probe lists the values.
		elems := make([]string, len(values))
		for i, v := range values {
			elems[i] = param(add(v), f.Type)
		}
		return sql, probeForm{alts: []string{col + " = ANY(ARRAY[" + strings.Join(elems, ", ") + "])"}}
	case OpPrefix:
		like := fmt.Sprintf(`%s LIKE $%d::text ESCAPE '\'`, col, add(likePrefix(c.Value)))
		if !codePoint {
			return like, probeForm{col: col}
		}
		// LIKE is not LEAKPROOF, so under RLS no index answers it, and its matches were found
		// by reading the field's index through (1,491 buffers at 100,000 deals). In code point
		// order they are one range, whose comparisons are LEAKPROOF; LIKE stays, as the test
		// itself, where the range only bounds the index scan.
		sql = col + " >= " + param(add(c.Value), f.Type)
		if end, ok := prefixEnd(c.Value); ok {
			sql += " AND " + col + " < " + param(add(end), f.Type)
		}
		return "(" + sql + " AND " + like + ")", probeForm{col: col}
	case OpContains:
		// The trigram index answers ~~*! (ws_ilike, migration 00061) under RLS, where it
		// answers no ILIKE; it yields no order, so the probe reads it unordered. The
		// pattern is computed once, the operand's accents removed before its %, _ and \
		// are escaped (no character unaccent writes is then a wildcard).
		pattern := fmt.Sprintf(`(SELECT '%%' || regexp_replace(ws_unaccent($%d::text), '([\\%%_])', '\\\1', 'g') || '%%')`, add(c.Value))
		return "ws_unaccent(" + col + ") ~~*! " + pattern, probeForm{}
	case OpNe:
		v := param(add(c.Value), f.Type)
		return col + " <> " + v, probeForm{alts: []string{col + " < " + v, col + " > " + v}, col: col}
	}
	cmp := map[Operator]string{OpEq: " = ", OpLt: " < ", OpLte: " <= ", OpGt: " > ", OpGte: " >= "}[c.Op]
	return col + cmp + param(add(c.Value), f.Type), probeForm{col: col}
}

// prefixEnd is the first string past every string starting with p in code point order:
// p with its last character replaced by the next one (surrogates are no characters, so
// U+D7FF is followed by U+E000); a last character of U+10FFFF has no next one and is
// dropped, its predecessor's advanced instead. A p of U+10FFFF alone has no end (false).
func prefixEnd(p string) (string, bool) {
	runes := []rune(p)
	for len(runes) > 0 {
		last := runes[len(runes)-1]
		runes = runes[:len(runes)-1]
		switch {
		case last == utf8.MaxRune:
			continue
		case last == 0xD7FF:
			return string(append(runes, 0xE000)), true
		default:
			return string(append(runes, last+1)), true
		}
	}
	return "", false
}

// likePrefix is a LIKE pattern matching values that start with s.
func likePrefix(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s) + "%"
}

// searchSQL is q's match condition and rank (migration 00019 indexes both): every word a
// prefix of a word of the searchable text, accents and case ignored, or for a q of a few
// letters or more, the words close to a name or email (trigram word similarity, which
// forgives a typo). The rank is the text match's plus the best name similarity, so a match
// in a name comes before one in notes. The searchable text is the table's stored column
// search_doc, ws_search_doc of its searchable fields (migration 00029), read by the recheck and
// the rank instead of being rebuilt for each candidate row.
func searchSQL(c *checkedList, add func(any) int) (match, rank string) {
	doc := `"search_doc"`
	// q's terms as subqueries: each is then computed once per statement (an InitPlan) where
	// the bare expression of a parameter was computed again for every candidate row, in the
	// recheck, the filter and the rank (a generic plan cannot fold it): with the stored
	// document, a third of the deals branch's time at 100,000 deals (docs/performance.md).
	tsq := fmt.Sprintf("(SELECT to_tsquery('simple', ws_unaccent($%d::text)))", add(c.query.tsquery))
	match, rank = doc+" @@ "+tsq, "ts_rank("+doc+", "+tsq+")"
	if len(c.names) > 0 {
		text := fmt.Sprintf("(SELECT ws_unaccent($%d::text))", add(c.query.text))
		var sims []string
		for _, n := range c.names {
			if c.query.typos {
				match += " OR " + text + " <% ws_unaccent(" + ident(n) + ")"
			}
			sims = append(sims, "word_similarity("+text+", ws_unaccent("+ident(n)+"))")
		}
		rank += " + coalesce(greatest(" + strings.Join(sims, ", ") + "), 0)"
	}
	return "(" + match + ")", "(" + rank + ")::real"
}
