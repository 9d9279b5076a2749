package workspace

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
)

// customQuery is what a list asks of custom fields (customfields.go): operator filters,
// a sort, the keys fields= names and the searchable fields q also matches. Each filter is
// a condition on the record's own custom_fields, which a probe of custom_values' (field_id,
// value, record_id) index answers first (customProbe); a sort walks the field's value,
// then id.
type customQuery struct {
	conds      []customCond
	sort       *CustomField
	desc       bool
	sortSpec   string
	keys       []string // fields=custom_fields.<key>: the keys shown, nil for all
	searchable []string // ids of the searchable fields q matches
	codePoint  bool
	after      *keyPosition // the cursor's position in a custom sort
	// byRecord is whether the sort's index on the record table is valid (sortindex.go):
	// then page reads the records with a value through it, in workspace's range of it.
	byRecord  bool
	workspace string
	// fieldsAt is the version of the kept definitions the query was checked against
	// (fieldcache.go), which its statement checks; nil when they were read for it.
	fieldsAt *int64
	// known is whether the list read definitions (defs): then its records show
	// custom_fields without the archived keys of archived, taken from them (shownCustom),
	// and its statement reads no definition itself.
	known    bool
	archived []string
}

type customCond struct {
	f *CustomField
	c Condition
}

// customQuery takes the custom field parts out of a list's params, checked against r's
// definitions as the actor sees them (kept ones when kept, fieldcache.go), and returns the
// params left for check.
func (o *Ops) customQuery(ctx context.Context, p *auth.Principal, r *Resource, params ListParams, kept bool) (*customQuery, ListParams, error) {
	cq := &customQuery{codePoint: o.store.TextInCodePointOrder()}
	if !r.Custom {
		return cq, params, nil
	}
	var conds []Condition
	var rest []Condition
	for _, c := range params.Where {
		if strings.HasPrefix(c.Field, customFieldsName+".") {
			conds = append(conds, c)
		} else {
			rest = append(rest, c)
		}
	}
	sortName := ""
	if params.Sort != nil {
		sortName = strings.TrimPrefix(*params.Sort, "-")
	}
	customSort := strings.HasPrefix(sortName, customFieldsName+".")
	var keys []string
	if params.Fields != nil {
		plain, k, err := splitCustomFields(r, params.Fields)
		if err != nil {
			return nil, params, err
		}
		params.Fields, keys = plain, k
	}
	if len(conds) == 0 && !customSort && keys == nil && params.Q == nil {
		return cq, params, nil
	}
	if len(conds) > MaxWhere {
		return nil, params, apierr.BadRequest("where: at most %d operator filters per list, got %d", MaxWhere, len(conds))
	}
	defs, at, err := o.listFields(ctx, p, r, kept)
	if err != nil {
		return nil, params, err
	}
	out, err := cq.take(r, defs, conds, rest, sortName, keys, params)
	if err != nil && at != nil {
		// Refused by kept definitions: the answer is the current ones'.
		if defs, _, err = o.listFields(ctx, p, r, false); err != nil {
			return nil, params, err
		}
		cq = &customQuery{codePoint: cq.codePoint}
		out, err = cq.take(r, defs, conds, rest, sortName, keys, params)
		at = nil
	}
	if err != nil {
		return nil, params, err
	}
	cq.fieldsAt, cq.known = at, true
	for _, f := range defs {
		if f.Archived {
			cq.archived = append(cq.archived, f.Key)
		}
	}
	if cq.sort != nil {
		cq.workspace = p.WorkspaceID
		if cq.byRecord, err = o.sortIndexReady(ctx, p, r, cq.sort); err != nil {
			return nil, params, err
		}
	}
	return cq, out, nil
}

// take checks the custom conditions conds, the sort sortName when it is a custom field, the
// fields= keys and q against r's definitions defs, recording them in cq, and returns
// params with the other conditions (rest) and without a custom sort.
func (cq *customQuery) take(r *Resource, defs []CustomField, conds, rest []Condition, sortName string, keys []string, params ListParams) (ListParams, error) {
	active := func(name string) (*CustomField, error) {
		key := strings.TrimPrefix(name, customFieldsName+".")
		f := findCustom(defs, key)
		if f == nil || f.Archived {
			return nil, apierr.BadRequest("%s: %s has no custom field %q; its fields are %s", clip(name), r.Name, clip(key), customKeys(defs))
		}
		return f, nil
	}
	for _, c := range conds {
		f, err := active(c.Field)
		if err != nil {
			return params, err
		}
		if err := checkCustomCondition(f, c); err != nil {
			return params, err
		}
		cq.conds = append(cq.conds, customCond{f: f, c: c})
	}
	params.Where = rest
	if strings.HasPrefix(sortName, customFieldsName+".") {
		f, err := active(sortName)
		if err != nil {
			return params, err
		}
		if !f.Sortable() {
			return params, apierr.BadRequest("sort: %s fields do not sort", f.Type)
		}
		if params.Order != OrderCreated {
			return params, apierr.BadRequest("sort and order cannot be given together")
		}
		cq.sort, cq.desc, cq.sortSpec = f, sortName != *params.Sort, *params.Sort
		params.Sort = nil
	}
	for _, k := range keys {
		if _, err := active(customFieldsName + "." + k); err != nil {
			return params, err
		}
	}
	cq.keys = keys
	if params.Q != nil {
		for _, f := range activeFields(slices.Clone(defs)) {
			if f.Searchable {
				cq.searchable = append(cq.searchable, f.ID)
			}
		}
	}
	return params, nil
}

// checkCustomCondition checks one filter on a custom field: an operator its type takes and
// values of its type.
func checkCustomCondition(f *CustomField, c Condition) error {
	if !slices.Contains(f.Operators(), c.Op) {
		return apierr.BadRequest("%s[%s]: %s takes the operators %s", f.Path(), clip(string(c.Op)), f.Path(), operatorList(f.Operators()))
	}
	if c.Op == OpNull {
		if c.Value != "true" && c.Value != "false" {
			return apierr.BadRequest("%s[null] must be true or false, got %q", f.Path(), clip(c.Value))
		}
		return nil
	}
	values := c.values()
	if len(values) > MaxInItems {
		return apierr.BadRequest("%s[in]: at most %d values, got %d", f.Path(), MaxInItems, len(values))
	}
	for _, v := range values {
		if p := filterProblem(f.field(), v, c.Op == OpPrefix); p != "" {
			return apierr.BadRequest("%s %s", f.Path(), p)
		}
	}
	return nil
}

// customProbe is a custom condition as fewOrWalk's probe reads it: the field's
// custom_values rows whose value matches (cond, on v), read through the field's
// (field_id, value, record_id) index in the order of col (none for in and for a field
// without a value column). For ne on a multi-valued field, the rows are all the field's:
// a record holding another option may also hold this one, which the page's check of the
// condition itself then tells.
//
// alts, for ne, are two conditions, either of which holds, each read in col's order.
// absent, for [null]=true, reads the field's custom_absent rows instead: the records
// without a value.
type customProbe struct {
	fid  string
	cond string
	col  string
	// set is " AND " and the field's customValueSet: true of each of the field's rows, and
	// what lets the planner read the field's partial index.
	set    string
	alts   []string
	absent bool
	// listed is, for eq on a ListIndexed field (field), the same condition on the value its
	// list index holds (sortindex.go) with the index's predicate: implied by the condition
	// on every value of the field's type, and what lets a list in its own order read the
	// records holding the value through that index (listQuery).
	field  *CustomField
	listed string
	// headed is, for prefix on a PrefixIndexed field (field) of at most prefixHead
	// characters, the prefix's range on the head its prefix index holds (sortindex.go)
	// with the index's predicate, its parameters added when it is written: implied by the
	// condition, and what lets the walk of fewOrWalk check the range on the index's entries
	// before it reads a record (listQuery).
	headed func(add func(any) int) string
	// own are the values of the parameters only the probe reads (the field's id, a
	// prefix's range), written as ownParam placeholders: they are added to the statement
	// when the probe is rendered, since a parameter the statement never reads is one
	// PostgreSQL cannot type (a list with two custom conditions probes by one of them).
	own []any
}

// customValueSet is the condition each custom_values row v of a field whose values are in
// col holds ("" for long_text, whose value s no index orders), written so that the
// planner reads the field's partial index (field_id, value, record_id): n, d and b hold
// only the rows that set them (store/migrations/00065_custom_values_partial_indexes.sql),
// t those with t or s (store/migrations/00075_custom_values_fewer_entries.sql). A
// long_text's is that index's very condition, which its scan then need not check, so the
// index alone answers the probe.
func customValueSet(col string) string {
	if col == "" {
		return "(v.t IS NOT NULL OR v.s IS NOT NULL)"
	}
	return "v." + col + " IS NOT NULL"
}

// ownParam is the placeholder of the probe's own parameter i, numbered by probe.
func ownParam(i int) string { return fmt.Sprintf("\x00%d\x00", i) }

// customRecordValue is, for each type with a value column in custom_values, the value of
// the record's own custom_fields entry v as that column holds it: the conversions of
// ws_custom_rows (store/migrations/00040_custom_fields.sql), which writes custom_values
// from the same entry. A multi_select's elements are read one by one (customCond.sql).
var customRecordValue = map[string]string{
	"number": "(%s #>> '{}')::numeric", "money": "(%s ->> 'amount')::numeric",
	"timestamp": "(%s #>> '{}')::timestamptz", "date": "((%s #>> '{}')::date::timestamp AT TIME ZONE 'UTC')",
	"boolean": "(%s #>> '{}')::boolean",
}

// sql is the condition on r's rows and its probe. The condition reads the record's own
// custom_fields entry, converted as custom_values holds it, so a walk checks each record
// it reads without reading custom_values too; the probe reads the field's custom_values
// index, or for [null]=true the field's custom_absent index (the records without a value,
// store/migrations/00059_custom_absent.sql).
func (cc customCond) sql(r *Resource, codePoint bool, add func(any) int) (string, *customProbe) {
	t := customTypeOf(cc.f.Type)
	entry := fmt.Sprintf(`(%s."custom_fields" -> $%d::text)`, ident(r.Table), add(cc.f.Key))
	// has is whether the record has a value: a row in custom_values (an empty
	// multi_select has none), as ws_custom_set tells for custom_absent.
	has := "coalesce(jsonb_typeof(" + entry + ") <> 'null', false)"
	elems := ""
	recCol := entry + " #>> '{}'"
	if f, ok := customRecordValue[cc.f.Type]; ok {
		recCol = fmt.Sprintf(f, entry)
	}
	if t.multi {
		has = "coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(" + entry + ") = 'array' THEN " + entry + " END) > 0, false)"
		elems = "jsonb_array_elements_text(CASE WHEN jsonb_typeof(" + entry + ") = 'array' THEN " + entry + " END) e(t)"
		recCol = "e.t"
	}
	// onRecord is the record's condition, cond on its value (recCol): for a multi_select,
	// on one of its elements.
	onRecord := func(cond string) string {
		if t.multi {
			return "EXISTS (SELECT 1 FROM " + elems + " WHERE " + cond + ")"
		}
		return cond
	}
	c := cc.c
	probe := &customProbe{own: []any{cc.f.ID}}
	probe.fid = ownParam(0) + "::text::uuid"
	if c.Op == OpNull && c.Value == "true" {
		probe.absent = true
		return "NOT " + has, probe
	}
	typed := func(param string) string {
		if cc.f.Type == "date" {
			return "(" + param + "::text::date::timestamp AT TIME ZONE 'UTC')"
		}
		return param + "::text::" + t.sqlType
	}
	value := func(v string) string {
		if cc.f.Type == "member" || cc.f.Type == "reference" {
			v = strings.ToLower(v)
		}
		return v
	}
	val := func(v string) string { return typed(fmt.Sprintf("$%d", add(value(v)))) }
	// ownVal is a value only the probe reads.
	ownVal := func(v string) string {
		probe.own = append(probe.own, value(v))
		return typed(ownParam(len(probe.own) - 1))
	}
	col := "v." + t.col
	probe.col = col
	probe.set = " AND " + customValueSet(t.col)
	if t.col == "" {
		probe.col = ""
	}
	// both is cond on the record's value and, as the probe's, on custom_values'.
	both := func(cond func(col string) string) (string, *customProbe) {
		p := *probe
		p.cond = " AND " + cond(col)
		return onRecord(cond(recCol)), &p
	}
	switch c.Op {
	case OpNull: // false: has a value
		return has, probe
	case OpIn:
		var vals []string
		for _, v := range c.values() {
			vals = append(vals, val(v))
		}
		list := " = ANY(ARRAY[" + strings.Join(vals, ", ") + "])"
		sql, p := both(func(col string) string { return col + list })
		p.col = "" // a list of values on the index's second column yields no order
		return sql, p
	case OpNe:
		v := val(c.Value)
		if t.multi { // holds options, none of them this one
			return "(" + has + " AND NOT " + onRecord(recCol+" = "+v) + ")", probe
		}
		sql, p := both(func(col string) string { return "(" + col + " < " + v + " OR " + col + " > " + v + ")" })
		// Either range alone is one of the index, where OR reads the field's whole range.
		p.cond, p.alts = "", []string{" AND " + col + " < " + v, " AND " + col + " > " + v}
		return sql, p
	case OpPrefix:
		pattern := add(likePrefix(c.Value))
		like := func(col string) string { return fmt.Sprintf(`%s LIKE $%d::text ESCAPE '\'`, col, pattern) }
		// LIKE is no range of the index; in code point order its matches are one (read
		// before both copies the probe, so the copy holds the range's values).
		rng := ""
		if codePoint {
			rng = " AND " + col + " >= " + ownVal(c.Value)
			if end, ok := prefixEnd(c.Value); ok {
				rng += " AND " + col + " < " + ownVal(end)
			}
		}
		sql, p := both(like)
		p.cond = rng + p.cond
		if cc.f.PrefixIndexed() && utf8.RuneCountInString(c.Value) <= prefixHead {
			// A value starts with the prefix exactly when its head does, and in code point
			// order (the index's collation) such heads are a range.
			p.field = cc.f
			p.headed = func(add func(any) int) string {
				head := customHeadExpr(r.Table, cc.f.Key)
				rng := customSortHas(r.Table, cc.f.Key) + " AND " + head + fmt.Sprintf(" >= $%d::text", add(c.Value))
				if end, ok := prefixEnd(c.Value); ok {
					rng += " AND " + head + fmt.Sprintf(" < $%d::text", add(end))
				}
				return rng
			}
		}
		return sql, p
	}
	cmp := map[Operator]string{OpEq: " = ", OpLt: " < ", OpLte: " <= ", OpGt: " > ", OpGte: " >= "}[c.Op]
	v := val(c.Value)
	sql, p := both(func(col string) string { return col + cmp + v })
	if c.Op == OpEq && cc.f.ListIndexed() {
		// The value is an option key or a member id, which ws_custom_value_t returns as #>>
		// does (store/migrations/00076_custom_list_indexes.sql).
		p.field, p.listed = cc.f, customSortHas(r.Table, cc.f.Key)+" AND "+customListExpr(r.Table, cc.f.Key)+" = "+v
	}
	return sql, p
}

// walk is the keyset walk of a custom sort: the field's value, then id; records without a
// value come last, in either direction (page).
func (cq *customQuery) walk(r *Resource, withQ bool) walk {
	t := customTypeOf(cq.sort.Type)
	spec := cq.sortSpec
	if withQ {
		spec = "q," + spec
	}
	return walk{keys: []walkKey{{expr: `"_sort"`, alias: "_sort", sqlType: t.sqlType, nullable: true}}, desc: cq.desc, spec: spec}
}

// page is the page of a custom sort, in two parts read one after the other: the records
// with a value, through the field's sort index on the record table when it is valid
// (byRecord, sortindex.go: the page's heap pages and a few index pages, as a built-in
// sort), else walking the field's custom_values index (field_id, value, record_id) from
// the cursor and fetching each record by its id under the list's conditions; then those
// without one, walking the field's custom_absent index (field_id, record_id) in the order
// of id and fetching each the same way. The statement reads the parts in that order (no
// ORDER BY above them: a Merge Append would start both parts), stopping at
// fetch rows, so a page reads about what it shows (TestCustomFieldPlans). OFFSET 0 keeps
// the fetch of each record a lookup by its id: flattened into a join, a page with a
// condition whose selectivity the planner underestimates (a custom value's) was planned
// as the workspace's matching records materialised and compared with every index entry,
// hundreds of milliseconds at 10,000 deals.
func (cq *customQuery) page(r *Resource, cols string, where []string, fetch int, add func(any) int) string {
	t := customTypeOf(cq.sort.Type)
	table := ident(r.Table)
	col := "v." + t.col
	fid := fmt.Sprintf("$%d::text::uuid", add(cq.sort.ID))
	dir, cmp := " ASC", " > "
	if cq.desc {
		dir, cmp = " DESC", " < "
	}
	conds := ""
	if len(where) > 0 {
		conds = " AND " + strings.Join(where, " AND ")
	}
	values := "SELECT d.*, " + col + ` AS "_sort" FROM custom_values v CROSS JOIN LATERAL (SELECT ` + cols + " FROM " + table +
		` WHERE "id" = v.record_id` + conds + " OFFSET 0) d WHERE v.field_id = " + fid + " AND " + customValueSet(t.col)
	nulls := "SELECT d.*, NULL::" + t.sqlType + ` AS "_sort" FROM custom_absent a CROSS JOIN LATERAL (SELECT ` + cols + " FROM " + table +
		` WHERE "id" = a.record_id` + conds + " OFFSET 0) d WHERE a.field_id = " + fid
	// byRecord: the records with a value in the order of the sort's index on their table
	// (sortindex.go), each read from its heap page, as a built-in sort reads them.
	key, recordID, order := col, "v.record_id", col+dir+", v.record_id"+dir
	if cq.byRecord {
		key = customSortExpr(r.Table, cq.sort.Key, t.col)
		recordID = table + `."id"`
		order = key + dir + ", " + recordID + dir
		// The workspace's own condition, though row-level security adds it too: the index
		// is led by workspace_id, and so the statement's plan does not hang on the policy's
		// condition (bench/floor runs it without row-level security). Its parameter only
		// when the part is read: an unused one has no type.
		ws := "NULL"
		if past := cq.after != nil && cq.after.Keys[0] == nil; !past {
			ws = fmt.Sprintf("$%d::text::uuid", add(cq.workspace))
		}
		values = "SELECT " + cols + ", " + key + ` AS "_sort" FROM ` + table + " WHERE " + table + `."workspace_id" = ` + ws + " AND " +
			customSortHas(r.Table, cq.sort.Key) + " AND " + key + " IS NOT NULL" + conds
	}
	withValues := true
	if a := cq.after; a != nil {
		id := fmt.Sprintf("$%d::text::uuid", add(a.ID))
		if a.Keys[0] == nil { // past a record without a value: the values are behind
			nulls += " AND a.record_id" + cmp + id
			withValues = false
		} else {
			values += " AND (" + key + ", " + recordID + ")" + cmp + fmt.Sprintf("($%d::text::%s, %s)", add(*a.Keys[0]), t.sqlType, id)
		}
	}
	limit := " LIMIT " + fmt.Sprint(fetch)
	nullsPart := "(" + nulls + " ORDER BY a.record_id" + dir + limit + ")"
	if !withValues {
		return nullsPart
	}
	return "(" + values + " ORDER BY " + order + limit + ") UNION ALL " + nullsPart
}

// customSearch is q's match on r's rows when r has searchable custom fields: match (the
// record's own search document, searchSQL) or a record one of whose values (t, or for a
// long_text s: its first 10,000 characters, so that one value adds a bounded number of
// words to the index, store/migrations/00063_custom_values_indexes.sql) has every word of
// q as a prefix of its words: the index custom_values_search, which holds the values of
// searchable fields (v.searched, store/migrations/00075_custom_values_fewer_entries.sql)
// and whose expression, CASE where COALESCE would do, is one the planner may use under
// row-level security (store/migrations/00067_custom_field_indexes.sql). The custom matches are one
// array of ids, computed once (an InitPlan), so "id = ANY" of it is a condition of r's
// primary key, which the planner ORs with match's own indexes (a BitmapOr); as
// "id IN (SELECT ...)" it was a subplan no index answers, checked on each of the
// workspace's records (docs/performance.md, "Custom fields").
func customSearch(r *Resource, match string, q *searchQuery, add func(any) int) string {
	return fmt.Sprintf(`(%s OR %s."id" = ANY(ARRAY(SELECT v.record_id FROM custom_fields f JOIN custom_values v ON v.field_id = f.id
		WHERE f.resource = %s AND f.searchable AND NOT f.archived AND v.searched
		AND ws_search_doc(CASE WHEN v.t IS NULL THEN v.s ELSE v.t END) @@ (SELECT to_tsquery('simple', ws_unaccent($%d::text))))))`,
		match, ident(r.Table), quoteLiteral(r.Name), add(q.tsquery))
}

// customSearchable returns which of types have a searchable custom field the actor sees:
// only their searches read custom_values, so a workspace without one searches as before.
func (o *Ops) customSearchable(ctx context.Context, p *auth.Principal, types []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := o.store.Query(ctx, p.Actor(), `SELECT DISTINCT resource FROM custom_fields WHERE searchable AND NOT archived AND resource = ANY($1::text[])`,
		[]any{types}, func(rows pgx.Rows) error {
			for rows.Next() {
				var name string
				if err := rows.Scan(&name); err != nil {
					return err
				}
				out[name] = true
			}
			return nil
		})
	if err != nil {
		return nil, readError(err)
	}
	return out, nil
}

// probe is fewOrWalk's probe of a custom condition: up to fewMatches+1 of the field's
// custom_values rows matching it, read in the order of the field's (field_id, value,
// record_id) index, their records' ids, which the page then fetches by primary key
// under all of the list's conditions (fewOrWalk's check). The probe reads no record:
// a handful of index pages tell whether the condition holds for fewMatches or fewer of
// the workspace's records (then the page is those of them the list's conditions keep,
// each read once) or for more (then the walk, which finds a match in about every
// workspace/fewMatches records).
func (p *customProbe) probe(add func(any) int) string {
	sql := p.render()
	for i, v := range p.own {
		sql = strings.ReplaceAll(sql, ownParam(i), fmt.Sprintf("$%d", add(v)))
	}
	return sql
}

// render is the probe's statement with its own parameters as placeholders.
func (p *customProbe) render() string {
	order := ""
	if p.col != "" {
		order = " ORDER BY " + p.col
	}
	limit := " LIMIT " + fmt.Sprint(fewMatches+1)
	if p.absent { // ordered, as the other scans, so that it stays on the field's index
		return `SELECT a.record_id AS "id" FROM custom_absent a WHERE a.field_id = ` + p.fid + " ORDER BY a.record_id" + limit
	}
	scan := func(cond string) string {
		return `SELECT v.record_id AS "id" FROM custom_values v WHERE v.field_id = ` + p.fid + p.set + cond + order + limit
	}
	if len(p.alts) == 0 {
		return scan(p.cond)
	}
	var scans []string
	for _, a := range p.alts {
		scans = append(scans, "("+scan(a)+")")
	}
	return `SELECT "id" FROM (` + strings.Join(scans, " UNION ALL ") + ") p" + limit
}
