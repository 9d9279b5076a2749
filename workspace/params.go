package workspace

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agencyos/workspaced/apierr"
)

// Typed list inputs (docs/rest.md, "Finding records"): REST parses a query string into ListParams
// (ParseListParams), MCP fills them from its tool arguments, and List checks them all in
// one place (check) before building its statement.

// Condition is one operator filter, ?field[op]=value: Value is the text of one value (true
// or false for null), Values the values of in, each as sent (REST splits its query text on
// commas; MCP passes an array's items as they are). An in without Values reads Value as a
// query string carries it, comma-separated.
type Condition struct {
	Field  string
	Op     Operator
	Value  string
	Values []string
}

// values are the values the condition compares with: in's Values, or Value.
func (c Condition) values() []string {
	if c.Op == OpIn {
		if c.Values == nil {
			return strings.Split(c.Value, ",")
		}
		return c.Values
	}
	return []string{c.Value}
}

// Bounds of the finding inputs.
const (
	MaxIDs     = 100 // ids= per request
	MaxInItems = 100 // values of one [in] filter
	MaxWhere   = 20  // operator filters per list: with MaxInItems, well within PostgreSQL's parameters
	MaxQLen    = 200 // characters of q
	// MaxQTerms bounds q's distinct words: each is a prefix term the match must test, so
	// a q of many one-letter words costs the database many times a q of one
	// (docs/performance.md, "Fair shares of capacity").
	MaxQTerms = 32
)

// ParseListParams reads a list's query (docs/decisions.md 4, docs/rest.md): exact filters
// (field=value), operator filters (field[op]=value), limit, cursor, updated_since, order,
// q, sort, fields and ids; apikey may ride along (docs/decisions.md 7). It checks only the
// query string's form; List checks the values (check), for REST and MCP alike.
func ParseListParams(res *Resource, q url.Values) (ListParams, error) {
	params := ListParams{Filters: map[string]string{}}
	for k, vs := range q {
		if k == "apikey" {
			continue
		}
		if len(vs) != 1 {
			return params, apierr.BadRequest("give query parameter %s once", k)
		}
		v := vs[0]
		if i := slices.IndexFunc(listQueryParams, func(p listQueryParam) bool { return p.name == k }); i >= 0 {
			if err := listQueryParams[i].read(&params, v); err != nil {
				return params, err
			}
			continue
		}
		if name, op, ok := strings.Cut(k, "["); ok && strings.HasSuffix(op, "]") {
			cond := Condition{Field: name, Op: Operator(strings.TrimSuffix(op, "]")), Value: v}
			if cond.Op == OpIn {
				cond.Values = strings.Split(v, ",")
			}
			params.Where = append(params.Where, cond)
			continue
		}
		if res.Custom && strings.HasPrefix(k, customFieldsName+".") { // custom_fields.<key>=value
			params.Where = append(params.Where, Condition{Field: k, Op: OpEq, Value: v})
			continue
		}
		if res.FilterField(k) == nil {
			return params, unknownParam(res, k)
		}
		params.Filters[k] = v
	}
	// Map order is random: keep the statement text, and so its plan, stable.
	slices.SortFunc(params.Where, func(a, b Condition) int { return strings.Compare(a.Field+string(a.Op), b.Field+string(b.Op)) })
	return params, nil
}

// listQueryParam is one of a list's own query parameters: any other is an exact filter
// (field=value) or an operator filter (field[op]=value).
type listQueryParam struct {
	name  string
	takes func(r *Resource) bool // whether r's lists take it (for messages); nil: every list's
	read  func(params *ListParams, v string) error
}

// listQueryParams are a list's own query parameters, in the order messages name them.
var listQueryParams = []listQueryParam{
	{name: "limit", read: func(params *ListParams, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxLimit {
			return BadLimit(MaxLimit, DefaultLimit, strconv.Quote(clip(v)))
		}
		params.Limit = n
		return nil
	}},
	{name: "cursor", read: func(params *ListParams, v string) error { params.Cursor = v; return nil }},
	{name: "updated_since", read: func(params *ListParams, v string) (err error) {
		params.UpdatedSince, err = ParseUpdatedSince(v)
		return err
	}},
	{name: "order", read: func(params *ListParams, v string) (err error) {
		params.Order, err = parseOrder(v)
		return err
	}},
	{name: "q", takes: func(r *Resource) bool { return len(r.Searchable()) > 0 },
		read: func(params *ListParams, v string) error { params.Q = &v; return nil }},
	{name: "sort", takes: func(r *Resource) bool { return len(r.SortFields()) > 0 },
		read: func(params *ListParams, v string) error { params.Sort = &v; return nil }},
	{name: "fields", read: func(params *ListParams, v string) error { params.Fields = strings.Split(v, ","); return nil }},
	{name: "ids", read: func(params *ListParams, v string) error { params.IDs = strings.Split(v, ","); return nil }},
}

// unknownParam refuses a query parameter r's lists do not take, naming the ones they do:
// exact filters, listQueryParams and field[op]=value on OpFields.
func unknownParam(r *Resource, name string) error {
	valid := fieldNames(r.Filters())
	for _, p := range listQueryParams {
		if p.takes == nil || p.takes(r) {
			valid = append(valid, p.name)
		}
	}
	var ops []string
	for _, f := range r.OpFields() {
		ops = append(ops, f.Name)
	}
	msg := strings.Join(valid, ", ")
	if len(ops) > 0 {
		msg += ", and field[op]=value on " + strings.Join(ops, ", ")
	}
	return apierr.BadRequest("unknown query parameter %q for %s; valid parameters: %s", name, r.Name, msg)
}

// ParseUpdatedSince reads updated_since, an RFC 3339 timestamp (types.go, yearRange).
func ParseUpdatedSince(v string) (time.Time, error) {
	t, ok := parseTime(v)
	if !ok {
		return t, apierr.BadRequest("updated_since must be an RFC 3339 timestamp such as 2026-01-31T09:00:00Z%s, got %q", yearRange, clip(v))
	}
	return t, nil
}

// ParseOrder reads order: created_at or updated_at.
func ParseOrder(v string) (Order, error) { return parseOrder(v) }

// checkedList is a list's inputs after check: everything List's statement needs.
type checkedList struct {
	limit  int
	conds  []Condition  // operator filters, each field and value checked
	fields []string     // the columns to return, in Columns order; nil for all
	sortBy *Field       // nil: the order's walk
	desc   bool         // sort=-field
	query  *searchQuery // q, or nil
	names  []string     // trigram fields of q
	ids    []string     // ids=, or nil
}

// check validates a list's inputs against the resource, every rule in one place: limit,
// operator filters (field, operator, typed value), sort, fields, ids and q. Exact filters
// are checked where the statement is built (listQuery), as they always were.
func (params *ListParams) check(r *Resource) (*checkedList, error) {
	c := &checkedList{limit: params.Limit}
	if c.limit == 0 {
		c.limit = DefaultLimit
		if len(params.IDs) > DefaultLimit {
			c.limit = len(params.IDs)
		}
	}
	if c.limit < 1 || c.limit > MaxLimit {
		return nil, BadLimit(MaxLimit, DefaultLimit, strconv.Itoa(c.limit))
	}
	if len(params.Where) > MaxWhere {
		return nil, apierr.BadRequest("where: at most %d operator filters per list, got %d", MaxWhere, len(params.Where))
	}
	for _, cond := range params.Where {
		if err := checkCondition(r, cond); err != nil {
			return nil, err
		}
		c.conds = append(c.conds, cond)
	}
	if params.Sort != nil {
		name := strings.TrimPrefix(*params.Sort, "-")
		c.desc = name != *params.Sort
		if !slices.Contains(r.SortFields(), name) {
			if len(r.SortFields()) == 0 {
				return nil, apierr.BadRequest("sort: %s answers one page and takes no sort", r.Name)
			}
			return nil, apierr.BadRequest("sort: %s sorts on %s (prefix - for descending), got %q",
				r.Name, strings.Join(r.SortFields(), ", "), clip(*params.Sort))
		}
		if params.Order != OrderCreated {
			return nil, apierr.BadRequest("sort and order cannot be given together; sort=updated_at is order=updated_at")
		}
		c.sortBy = r.OpField(name)
	}
	if params.Fields != nil {
		fields, err := checkFields(r, params.Fields)
		if err != nil {
			return nil, err
		}
		c.fields = fields
	}
	if params.IDs != nil {
		if len(params.IDs) == 0 {
			return nil, apierr.BadRequest("ids must be comma-separated uuids, got none")
		}
		if len(params.IDs) > MaxIDs {
			return nil, apierr.BadRequest("ids: at most %d ids per request, got %d", MaxIDs, len(params.IDs))
		}
		for _, id := range params.IDs {
			if !isUUID(id) {
				return nil, apierr.BadRequest("ids must be comma-separated uuids, got %q", clip(id))
			}
		}
		c.ids = params.IDs
	}
	if params.Q != nil {
		if len(r.Searchable()) == 0 {
			return nil, apierr.BadRequest("q: %s has no text to search", r.Name)
		}
		q, err := parseSearch(*params.Q)
		if err != nil {
			return nil, err
		}
		if params.Order != OrderCreated && params.Sort == nil {
			return nil, apierr.BadRequest("q walks by relevance and cannot be given with order; give sort to walk otherwise")
		}
		c.query, c.names = q, r.NameFields()
	}
	return c, nil
}

// checkFields checks fields= (lists, the batch read and get alike) and returns the columns
// to show: the named ones and id, in Columns order.
func checkFields(r *Resource, fields []string) ([]string, error) {
	cols := Columns(r)
	if len(fields) == 0 {
		return nil, apierr.BadRequest("fields: name at least one field of %s; its fields are %s", r.Name, strings.Join(cols, ", "))
	}
	for _, f := range fields {
		if !slices.Contains(cols, f) {
			return nil, apierr.BadRequest("fields: %s has no field %q; its fields are %s", r.Name, clip(f), strings.Join(cols, ", "))
		}
	}
	var shown []string
	for _, col := range cols {
		if col == "id" || slices.Contains(fields, col) {
			shown = append(shown, col)
		}
	}
	return shown, nil
}

// ParseFields reads a get's fields= (docs/rest.md): nil when absent, every other query
// parameter left alone as a get always has.
func ParseFields(q url.Values) ([]string, error) {
	vs, ok := q["fields"]
	if !ok {
		return nil, nil
	}
	if len(vs) != 1 {
		return nil, apierr.BadRequest("give query parameter fields once")
	}
	return strings.Split(vs[0], ","), nil
}

// checkCondition checks one operator filter: a field that takes operators, an operator
// its type takes, values of its type.
func checkCondition(r *Resource, c Condition) error {
	f := r.OpField(c.Field)
	if f == nil {
		var names []string
		for _, f := range r.OpFields() {
			names = append(names, f.Name)
		}
		if len(names) == 0 {
			return apierr.BadRequest("%s[%s]: %s takes no operator filters", c.Field, clip(string(c.Op)), r.Name)
		}
		return apierr.BadRequest("%s[%s]: %s has no field %q taking operators; fields taking them are %s",
			c.Field, clip(string(c.Op)), r.Name, clip(c.Field), strings.Join(names, ", "))
	}
	if !slices.Contains(ops(f), c.Op) {
		return apierr.BadRequest("%s[%s]: %s takes the operators %s", f.Name, clip(string(c.Op)), f.Name, operatorList(ops(f)))
	}
	values := c.values()
	switch c.Op {
	case OpNull:
		if c.Value != "true" && c.Value != "false" {
			return apierr.BadRequest("%s[null] must be true or false, got %q", f.Name, clip(c.Value))
		}
		return nil
	case OpIn:
		if len(values) > MaxInItems {
			return apierr.BadRequest("%s[in] takes at most %d values, got %d", f.Name, MaxInItems, len(values))
		}
		if len(values) == 0 {
			values = []string{""} // words the empty value's problem
		}
	}
	anyText := c.Op == OpPrefix || c.Op == OpContains // any text is a prefix or a part
	for _, v := range values {
		if p := filterProblem(f, v, anyText); p != "" {
			return apierr.BadRequest("%s[%s] %s", f.Name, c.Op, p)
		}
	}
	if c.Op == OpContains && !hasRun(c.Value, MinContains) {
		return apierr.BadRequest("%s[contains] needs at least %d letters or digits in a row, got %q", f.Name, MinContains, clip(c.Value))
	}
	return nil
}

// hasRun reports whether s holds n letters or digits in a row.
func hasRun(s string, n int) bool {
	run := 0
	for _, r := range s {
		run++
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			run = 0
		}
		if run >= n {
			return true
		}
	}
	return false
}

// searchQuery is q made safe for to_tsquery: its words, each a prefix, all required; and
// its text for trigram similarity.
type searchQuery struct {
	tsquery string // "acme:* & corp:*"
	text    string // the words joined by spaces
	typos   bool   // long enough for trigram similarity to mean something
}

// minTypoLen is the shortest q forgiven a typo: shorter words are prefixes already, and
// their few trigrams make most names candidates the trigram index must recheck
// (TestFindPlansUseTheirIndexes: "acme" read 466 buffers of 10,000 deals).
const minTypoLen = 5

// parseSearch splits q into words of letters and digits: anything else separates words, so
// no tsquery operator reaches PostgreSQL.
func parseSearch(q string) (*searchQuery, error) {
	if !utf8.ValidString(q) || strings.IndexByte(q, 0) >= 0 || utf8.RuneCountInString(q) > MaxQLen {
		return nil, apierr.BadRequest("q must be valid UTF-8 text without NUL of at most %d characters", MaxQLen)
	}
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return nil, apierr.BadRequest("q must contain a letter or digit, got %q", clip(q))
	}
	// A word given twice is one term, kept where it first appears.
	seen := make(map[string]bool, len(words))
	words = slices.DeleteFunc(words, func(w string) bool {
		dup := seen[w]
		seen[w] = true
		return dup
	})
	if len(words) > MaxQTerms {
		return nil, apierr.BadRequest("q takes at most %d distinct words, got %d", MaxQTerms, len(words))
	}
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w + ":*"
	}
	text := strings.Join(words, " ")
	if addr := addressQuery(q); addr != "" {
		return &searchQuery{tsquery: addr, text: text}, nil
	}
	return &searchQuery{tsquery: strings.Join(parts, " & "), text: text, typos: utf8.RuneCountInString(text) >= minTypoLen}, nil
}

// hostRE is a host as the text search parser keeps it whole: labels of letters, digits and
// inner hyphens, two or more, joined by dots.
var hostRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

// addressQuery is the tsquery of a q holding an email or a host ("acme.example",
// "ada@acme.example"), "" for any other q. Each such chunk of q matches as one token (the
// parser keeps an email or a host whole) or as its words in a row, which is how a search
// document holds an address's parts (ws_address_words, store/migrations/00052_search_addresses.sql):
// "acme.example" finds ada@acme.example and not bob@other.example, as the words "acme" and
// "example" apart would; a host is looked up as one word (hostRE). An address is not
// forgiven typos: its words are exact prefixes.
func addressQuery(q string) string {
	chunks := strings.Fields(strings.ToLower(q))
	if !slices.ContainsFunc(chunks, func(c string) bool { return strings.ContainsAny(c, "@.") }) {
		return ""
	}
	var parts []string
	for _, c := range chunks {
		words := strings.FieldsFunc(c, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if len(words) == 0 {
			continue
		}
		for i, w := range words {
			words[i] = w + ":*"
		}
		part := strings.Join(words, " <-> ")
		switch {
		case hostRE.MatchString(c):
			// A host is one word of the document, with each of its suffixes (migration
			// 00062): one posting list to read, where the phrase reads each label's, and
			// "example" or "com" are in most addresses.
			part = "'" + c + "':*"
		case len(words) > 1 && strings.Trim(c, "abcdefghijklmnopqrstuvwxyz0123456789.@_+-") == "" &&
			!strings.ContainsFunc(c, func(r rune) bool { return r > unicode.MaxASCII }):
			// The whole chunk, quoted, when it holds nothing but an address's characters.
			part = "('" + c + "':* | " + part + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " & ")
}
