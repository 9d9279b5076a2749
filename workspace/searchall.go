package workspace

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
)

// One search across everything (docs/rest.md, "Finding records"): GET /v1/search and the MCP search
// tool run Search. Each searchable resource the principal may read (its read scope and
// feature grant, as for a list) adds one branch of a UNION ALL, each the very match of its
// list's q= (searchSQL) under RLS, so a search shows nothing a list would not.

// Search bounds: results are titles and snippets, so pages are smaller than lists'.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 100
	snippetLen         = 200
)

// SearchParams are the inputs of Search.
type SearchParams struct {
	Q string
	// Types are resource names; nil searches every searchable resource the principal may
	// read. A named type the principal may not read is left out, as an unnamed one is.
	Types  []string
	Limit  int // 0 means DefaultSearchLimit
	Cursor string
}

// Search returns one page of {type, id, title, snippet, score}, best first, then newest,
// by keyset on (score, created_at, type, id). Errors: bad_request (no q, an unknown or
// unsearchable type, a bad limit or cursor).
func (o *Ops) Search(ctx context.Context, p *auth.Principal, params SearchParams) (*Page, error) {
	limit := params.Limit
	if limit == 0 {
		limit = DefaultSearchLimit
	}
	if limit < 1 || limit > MaxSearchLimit {
		return nil, BadLimit(MaxSearchLimit, DefaultSearchLimit, strconv.Itoa(limit))
	}
	if params.Q == "" {
		return nil, apierr.BadRequest("q is required: the words to search for")
	}
	q, err := parseSearch(params.Q)
	if err != nil {
		return nil, err
	}
	types, err := searchTypes(p, params.Types)
	if err != nil {
		return nil, err
	}
	page := &Page{Data: []byte("[]")}
	if len(types) == 0 {
		return page, nil
	}
	ctx = o.searchContext(ctx)
	done, err := o.admitClass(ctx, p, ClassSearch)
	if err != nil {
		return nil, err
	}
	defer done()
	key, err := o.key(ctx)
	if err != nil {
		return nil, err
	}
	walk := "search:" + strings.Join(types, ",")
	var args []any
	add := func(v any) int {
		args = append(args, v)
		return len(args)
	}
	after := ""
	if params.Cursor != "" {
		pos, err := decodeKeyCursor(key, "search", walk, 3, params.Cursor)
		if err != nil {
			return nil, err
		}
		for _, k := range pos.Keys {
			if k == nil {
				return nil, apierr.BadRequest("the cursor is not valid for search")
			}
		}
		after = fmt.Sprintf(" AND (%%s, \"created_at\", %%s, \"id\") < ($%d::text::real, $%d::text::timestamptz, $%d::text, $%d::text::uuid)",
			add(*pos.Keys[0]), add(*pos.Keys[1]), add(*pos.Keys[2]), add(pos.ID))
	}
	custom, err := o.customSearchable(ctx, p, types)
	if err != nil {
		return nil, err
	}
	sql := searchStatement(q, types, custom, limit, after, "", add)

	var buf bytes.Buffer
	buf.WriteByte('[')
	var last keyPosition
	n := 0
	err = o.store.QueryGeneric(ctx, p.Actor(), sql, args, func(rows pgx.Rows) error {
		var score, created, typ, id string
		var rec []byte
		for rows.Next() {
			if n == limit {
				n++
				break
			}
			if err := rows.Scan(&score, &created, &typ, &id, &rec); err != nil {
				return err
			}
			if n > 0 {
				buf.WriteByte(',')
			}
			buf.Write(rec)
			last = keyPosition{Walk: walk, Keys: []*string{&score, &created, &typ}, ID: id}
			n++
		}
		return nil
	})
	if err != nil {
		return nil, readError(err)
	}
	buf.WriteByte(']')
	page.Data = buf.Bytes()
	if n > limit {
		c := encodeKeyCursor(key, "search", last)
		page.NextCursor = &c
	}
	return page, nil
}

// searchStatement is Search's statement: a branch a type, each q's match as a list's q=
// (searchSQL), after (a format of the rank and the quoted type name, "" on a first page)
// and scope ("" under RLS) added to its condition, limit+1 rows best first.
// custom names the types whose searchable custom fields q matches too (customSearch).
func searchStatement(q *searchQuery, types []string, custom map[string]bool, limit int, after, scope string, add func(any) int) string {
	fetch := strconv.Itoa(limit + 1)
	branches := make([]string, len(types))
	for i, name := range types {
		r := Lookup(name)
		match, rank := searchSQL(&checkedList{query: q, names: r.NameFields()}, add)
		title, others := searchTitle(r)
		snippet := "''"
		if len(others) > 0 {
			snippet = "left(concat_ws(' ', " + strings.Join(others, ", ") + "), " + strconv.Itoa(snippetLen) + ")"
		}
		cond := match
		if custom[name] {
			cond = customSearch(r, match, q, add)
		}
		if after != "" {
			cond += fmt.Sprintf(after, rank, quoteLiteral(name))
		}
		if scope != "" {
			cond += " AND " + scope
		}
		if r.Mergeable {
			cond += " AND " + notMerged
		}
		branches[i] = "(SELECT " + quoteLiteral(name) + "::text AS type, \"id\", \"created_at\", left(" + title + ", " +
			strconv.Itoa(snippetLen) + ") AS title, " + snippet + " AS snippet, " + rank + " AS score FROM " + ident(r.Table) +
			" WHERE " + cond + " ORDER BY score DESC, \"created_at\" DESC, \"id\" DESC LIMIT " + fetch + ")"
	}
	// row_to_json of a row prints compact JSON, as every other body (json_build_object
	// would put spaces around each colon), its fields in the row's order.
	return "SELECT h.score::text, h.created_at::text, h.type, h.id::text, row_to_json(j)::text FROM (" +
		strings.Join(branches, " UNION ALL ") + ") h, LATERAL (SELECT h.type, h.id, coalesce(h.title, '') AS title, " +
		"coalesce(h.snippet, '') AS snippet, h.score) j ORDER BY h.score DESC, h.created_at DESC, h.type DESC, h.id DESC LIMIT " + fetch
}

// SearchSQL is the statement of Search's first page for q over types (its columns: score,
// created_at, type and id as text, then the result's JSON), with scope added to each
// branch's condition; its values are passed to add. bench/floor runs it as the schema
// owner without row-level security, scope naming the workspace, so the floor searches
// with the very SQL the service does.
func SearchSQL(q string, types []string, limit int, scope string, add func(any) int) (string, error) {
	query, err := parseSearch(q)
	if err != nil {
		return "", err
	}
	return searchStatement(query, types, nil, limit, "", scope, add), nil
}

// SearchMatch is a list's q= over r: its match condition and its rank, values passed to
// add (bench/floor's list runs them as List does, without row-level security).
func SearchMatch(r *Resource, q string, add func(any) int) (match, rank string, err error) {
	query, err := parseSearch(q)
	if err != nil {
		return "", "", err
	}
	match, rank = searchSQL(&checkedList{query: query, names: r.NameFields()}, add)
	return match, rank, nil
}

// searchTypes are the resources a search reads: the named ones, or every searchable
// one, less those the principal may not list (scope, feature grant).
func searchTypes(p *auth.Principal, named []string) ([]string, error) {
	var out []string
	for _, r := range catalog {
		if len(r.Searchable()) == 0 || named != nil && !slices.Contains(named, r.Name) {
			continue
		}
		if !Permits(p, r, OpList) {
			continue
		}
		out = append(out, r.Name)
	}
	for _, name := range named {
		if r := Lookup(name); r == nil || len(r.Searchable()) == 0 {
			return nil, apierr.BadRequest("types: %q is not a searchable resource; searchable: %s", clip(name), strings.Join(SearchableTypes(), ", "))
		}
	}
	return out, nil
}

// SearchableTypes lists the resources q= and search read, in catalogue order.
func SearchableTypes() []string {
	var out []string
	for _, r := range catalog {
		if len(r.Searchable()) > 0 {
			out = append(out, r.Name)
		}
	}
	return out
}

// searchTitle is a record's title in a search result, its first name field (else its first
// searchable field), and the other searchable fields, which make the snippet.
func searchTitle(r *Resource) (title string, others []string) {
	t := r.Searchable()[0]
	if names := r.NameFields(); len(names) > 0 {
		t = names[0]
	}
	for _, f := range r.Searchable() {
		if f != t {
			others = append(others, ident(f))
		}
	}
	return ident(t), others
}
