package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/text/currency"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Custom fields (docs/rest.md, "Custom fields"): a workspace's own typed fields on the
// resources marked Custom. Definitions are the catalogue resource custom_fields, admin
// written, read as the resource they are about is read (Governed). A record keeps its
// values in its column custom_fields, {key: value}, which every read returns without the
// archived fields (the SQL function ws_custom_archived_keys names them, for reads in
// columnExpr, records.go, and for webhook events in ws_custom_shown); a trigger copies
// each value into custom_values, typed,
// whose fixed indexes answer filters, sorts and uniqueness (store/migrations/00040_custom_fields.sql),
// so adding a field needs no DDL and is ready at once.

const customFieldsName = "custom_fields"

// MaxCustomFields bounds the fields of one resource in a workspace (archived ones count).
const MaxCustomFields = 200

// customResources are the resources that take custom fields, as the migration lists them.
var customResources = []string{"deals", "people", "companies", "tasks", "deal_tasks", "projects"}

// customValuesField is the field every Custom resource's records carry.
var customValuesField = doc(w(customFieldsName, Custom),
	"the workspace's own fields by key (GET /v1/custom_fields?resource=...); a key with null clears it")

// CustomField is one definition, as the domain hands it to adapters (MCP schemas, the
// OpenAPI document of a workspace, the console).
type CustomField struct {
	ID                string         `json:"id"`
	Resource          string         `json:"resource"`
	Key               string         `json:"key"`
	Label             string         `json:"label"`
	Type              string         `json:"type"`
	Options           []CustomOption `json:"options"`
	ReferenceResource string         `json:"reference_resource,omitempty"`
	Required          bool           `json:"required"`
	Unique            bool           `json:"unique"`
	Searchable        bool           `json:"searchable"`
	Description       string         `json:"description,omitempty"`
	Archived          bool           `json:"archived"`
	Position          int            `json:"position"`
	// Ready reports whether filters and sorts on the field are index-backed: always, since
	// the fixed indexes of custom_values serve every field from its creation.
	Ready bool `json:"ready"`
}

// CustomOption is one option of a select or multi_select field.
type CustomOption struct {
	Key      string `json:"key"`
	Label    string `json:"label"`
	Order    int    `json:"order"`
	Archived bool   `json:"archived"`
}

// customType is what one custom field type means: the catalogue type its filters parse as
// and whose operators it takes (types.go), where its values are copied in custom_values,
// and how a body value is checked.
type customType struct {
	name string
	base Type
	// col is the custom_values column of its values and sqlType their type there; "" for
	// long_text, which only [null] filters.
	col, sqlType string
	// check validates a value (never null) and returns it as stored; refs are the ids it
	// names (member, reference), which the database must show the caller.
	check    func(f *CustomField, raw json.RawMessage) (json.RawMessage, string)
	multi    bool // one row per element: no sort, no unique
	textLike bool // searchable may be set (long_text by its first 10,000 characters, customSearch)
	noUnique bool
}

var customTypes = []customType{
	{name: "text", base: String, col: "t", sqlType: "text", check: customText(ShortText, nil, "a string of at most 500 characters"), textLike: true},
	{name: "long_text", base: String, check: customText(LongText, nil, "a string of at most 200000 characters"), noUnique: true, textLike: true},
	{name: "number", base: Number, col: "n", sqlType: "numeric", check: customLiteral(func(s string) bool { return isNumber(nil, s) }, "a JSON number")},
	{name: "money", base: Number, col: "n", sqlType: "numeric", check: checkMoney},
	{name: "date", base: Date, col: "d", sqlType: "timestamptz", check: customText(10, isDate, "an ISO date string such as \"2026-01-31\""+yearRange)},
	{name: "timestamp", base: Time, col: "d", sqlType: "timestamptz", check: customText(64, isTime, "an RFC 3339 timestamp string such as \"2026-01-31T09:00:00Z\""+yearRange)},
	{name: "boolean", base: Bool, col: "b", sqlType: "boolean", check: customLiteral(func(s string) bool { return isBool(nil, s) }, "true or false"), noUnique: true},
	{name: "select", base: String, col: "t", sqlType: "text", check: checkSelect},
	{name: "multi_select", base: String, col: "t", sqlType: "text", check: checkMultiSelect, multi: true, noUnique: true},
	{name: "url", base: String, col: "t", sqlType: "text", check: customText(LinkText, isWebURL, "an http or https URL"), textLike: true},
	{name: "email", base: String, col: "t", sqlType: "text", check: customText(ShortText, isEmail, "an email address such as \"ana@example.com\""), textLike: true},
	{name: "phone", base: String, col: "t", sqlType: "text", check: customText(40, isPhone, "a phone number such as \"+44 20 7946 0958\""), textLike: true},
	{name: "member", base: UUID, col: "t", sqlType: "text", check: customText(36, isUUID, "the id of a user of the workspace")},
	{name: "reference", base: UUID, col: "t", sqlType: "text", check: customText(36, isUUID, "the id of a record")},
}

func customTypeNames() []string {
	out := make([]string, len(customTypes))
	for i, t := range customTypes {
		out[i] = t.name
	}
	return out
}

func customTypeOf(name string) *customType {
	for i := range customTypes {
		if customTypes[i].name == name {
			return &customTypes[i]
		}
	}
	return nil
}

// Path is how lists, filters and messages name the field: custom_fields.<key>.
func (f *CustomField) Path() string { return customFieldsName + "." + f.Key }

// field is the catalogue field the custom field's filters parse as: its type's base type,
// a select's active option keys as the enumeration.
func (f *CustomField) field() *Field {
	t := customTypeOf(f.Type)
	cf := &Field{Name: f.Path(), Type: t.base, Doc: f.Label}
	if f.Type == "select" || f.Type == "multi_select" {
		cf.Enum = f.activeOptions()
	}
	return cf
}

// Operators lists the operators of ?custom_fields.<key>[op]=value the field takes: its
// base type's (types.go); long_text takes only null.
func (f *CustomField) Operators() []Operator {
	if customTypeOf(f.Type).col == "" {
		return []Operator{OpNull}
	}
	return ops(f.field())
}

// Sortable reports whether sort= takes the field.
func (f *CustomField) Sortable() bool {
	t := customTypeOf(f.Type)
	return t.col != "" && !t.multi
}

// Schema is the JSON Schema of the field's values in the dialect, null admitted (it clears
// the value), described by its label and description.
func (f *CustomField) Schema(d Dialect) *jsonschema.Schema {
	var s *jsonschema.Schema
	switch f.Type {
	case "money":
		s = &jsonschema.Schema{Type: "object", Required: []string{"amount", "currency"},
			Properties: map[string]*jsonschema.Schema{"amount": numberSchema(nil, d),
				"currency": {Type: "string", Description: "an ISO 4217 code such as EUR"}}}
	case "multi_select":
		s = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string", Enum: anyList(f.activeOptions())}}
	case "select":
		s = &jsonschema.Schema{Type: "string", Enum: anyList(f.activeOptions())}
	default:
		base := f.field()
		base.MaxLen = map[string]int{"long_text": LongText, "url": LinkText}[f.Type]
		s = fieldTypes[base.Type].schema(base, d)
	}
	s = d.nullable(s)
	s.Description = f.Label
	if f.Description != "" {
		s.Description += ": " + f.Description
	}
	return s
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func (f *CustomField) activeOptions() []string {
	var out []string
	for _, o := range f.Options {
		if !o.Archived {
			out = append(out, o.Key)
		}
	}
	return out
}

// CustomFields returns the active (not archived) custom field definitions of resource in
// p's workspace, ordered by position, for adapters describing its records (MCP tool
// schemas, a workspace's OpenAPI document, the console). Errors: unknown_resource,
// insufficient_scope and insufficient_permission when p may not list the resource; a
// resource without custom fields has none.
func (o *Ops) CustomFields(ctx context.Context, p *auth.Principal, resource string) ([]CustomField, error) {
	r := Lookup(resource)
	if r == nil {
		return nil, UnknownResource(resource)
	}
	if err := admit(p, r, OpList); err != nil {
		return nil, err
	}
	if err := checkMember(p, r, OpList); err != nil {
		return nil, err
	}
	if !r.Custom {
		return []CustomField{}, nil
	}
	defs, err := loadCustomFields(ctx, o.store, p, resource)
	if err != nil {
		return nil, err
	}
	return activeFields(defs), nil
}

// CustomFieldsIn is CustomFields inside a transaction store.InTx opened as the actor, for
// an adapter that already holds one; the caller has checked the actor may list resource.
func CustomFieldsIn(ctx context.Context, tx pgx.Tx, resource string) ([]CustomField, error) {
	defs, err := loadCustomFields(ctx, txQuerier{tx}, nil, resource)
	if err != nil {
		return nil, err
	}
	return activeFields(defs), nil
}

// customDefs holds a resource's definitions once read: a batch reads them once for all
// its records (nil: read them for each use).
type customDefs struct {
	list   []CustomField
	loaded bool
}

// load returns the definitions of resource, read through q on first use (loadCustomFields).
func (c *customDefs) load(ctx context.Context, q querier, p *auth.Principal, resource string) ([]CustomField, error) {
	if c == nil {
		return loadCustomFields(ctx, q, p, resource)
	}
	if !c.loaded {
		list, err := loadCustomFields(ctx, q, p, resource)
		if err != nil {
			return nil, err
		}
		c.list, c.loaded = list, true
	}
	return c.list, nil
}

func activeFields(defs []CustomField) []CustomField {
	return slices.DeleteFunc(defs, func(f CustomField) bool { return f.Archived })
}

// loadCustomFields reads every definition of resource the actor sees (RLS: its workspace,
// and the crm grant for the crm resources), archived ones too, by position.
func loadCustomFields(ctx context.Context, q querier, p *auth.Principal, resource string) ([]CustomField, error) {
	defs, _, err := readCustomFields(ctx, q, p, resource)
	return defs, err
}

// readCustomFields is loadCustomFields with the version of the workspace's definitions
// they were read at (store.FieldsVersion), from the same snapshot. The version is a
// one-row subquery the definitions are LEFT JOINed to, so a resource without definitions
// has its version too (one row of NULL definition columns), and fieldcache.go keeps it.
func readCustomFields(ctx context.Context, q querier, p *auth.Principal, resource string) ([]CustomField, int64, error) {
	defs := []CustomField{}
	var version int64
	err := q.Query(ctx, p.Actor(), `SELECT v.v, coalesce(f.id::text, ''), coalesce(f.resource, ''), coalesce(f.key, ''), coalesce(f.label, ''),
		coalesce(f.type, ''), coalesce(f.options::text, '[]'), coalesce(f.reference_resource, ''), coalesce(f.required, false),
		coalesce(f."unique", false), coalesce(f.searchable, false), coalesce(f.description, ''), coalesce(f.archived, false),
		coalesce(f.position, 0), coalesce(f.ready, false)
		FROM `+store.FieldsVersion+` v(v) LEFT JOIN custom_fields f ON f.resource = $1 ORDER BY f.position, f.key`, []any{resource}, func(rows pgx.Rows) error {
		for rows.Next() {
			var f CustomField
			var opts string
			if err := rows.Scan(&version, &f.ID, &f.Resource, &f.Key, &f.Label, &f.Type, &opts, &f.ReferenceResource,
				&f.Required, &f.Unique, &f.Searchable, &f.Description, &f.Archived, &f.Position, &f.Ready); err != nil {
				return err
			}
			if f.ID == "" {
				continue // the version's row alone: no definition matched
			}
			if err := json.Unmarshal([]byte(opts), &f.Options); err != nil {
				return err
			}
			defs = append(defs, f)
		}
		return nil
	})
	if err != nil {
		return nil, -1, readError(err)
	}
	return defs, version, nil
}

func findCustom(defs []CustomField, key string) *CustomField {
	for i := range defs {
		if defs[i].Key == key {
			return &defs[i]
		}
	}
	return nil
}

func customKeys(defs []CustomField) string {
	var keys []string
	for _, d := range activeFields(slices.Clone(defs)) {
		keys = append(keys, d.Key)
	}
	if len(keys) == 0 {
		return "none yet (an admin adds them with POST /v1/custom_fields)"
	}
	return strings.Join(keys, ", ")
}

// customPatch is a validated custom_fields body value: the keys to set, as a JSON object,
// and the keys to clear.
type customPatch struct {
	set   string
	clear []string
}

// checkCustomValues validates a body's custom_fields object against r's definitions as the
// actor sees them (read through q, in the write's transaction when it has one): every key
// an active field, every value of its type, members users of the workspace, references
// records the actor can read (one it cannot is refused exactly as one that does not
// exist), and on create every required field present. Errors are bad_request naming
// custom_fields.<key> and what it takes.
func (o *Ops) checkCustomValues(ctx context.Context, q querier, p *auth.Principal, r *Resource, raw string, create bool, cache *customDefs) (*customPatch, error) {
	var body map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		return nil, apierr.BadRequest("custom_fields must be an object of values by key")
	}
	defs, err := cache.load(ctx, q, p, r.Name)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys) // messages name the first problem in a stable order
	set := map[string]json.RawMessage{}
	patch := &customPatch{clear: []string{}}
	refs := map[string][]string{} // resource ("users" for members) -> ids
	refKey := map[string]string{} // id -> the key naming it, for the message
	for _, k := range keys {
		v := body[k]
		f := findCustom(defs, k)
		switch {
		case f == nil:
			return nil, apierr.BadRequest("custom_fields.%s: %s has no custom field %q; its fields are %s", clip(k), r.Name, clip(k), customKeys(defs))
		case f.Archived:
			return nil, apierr.BadRequest("custom_fields.%s: the field is archived; an admin can unarchive it (PATCH /v1/custom_fields/%s)", k, f.ID)
		}
		if string(v) == "null" {
			if f.Required {
				return nil, apierr.BadRequest("custom_fields.%s is required and cannot be null", k)
			}
			patch.clear = append(patch.clear, k)
			continue
		}
		val, problem := customTypeOf(f.Type).check(f, v)
		if problem != "" {
			return nil, apierr.BadRequest("custom_fields.%s must be %s", k, problem)
		}
		set[k] = val
		switch f.Type {
		case "member":
			id := unquote(val)
			refs["users"], refKey[id] = append(refs["users"], id), k
		case "reference":
			id := unquote(val)
			refs[f.ReferenceResource], refKey[id] = append(refs[f.ReferenceResource], id), k
		}
	}
	if create {
		for _, f := range activeFields(slices.Clone(defs)) {
			if _, ok := set[f.Key]; f.Required && !ok {
				return nil, apierr.BadRequest("custom_fields.%s is required: %s", f.Key, customDescribe(&f))
			}
		}
	}
	for res, ids := range refs {
		missing, err := o.invisible(ctx, q, p, res, ids)
		if err != nil {
			return nil, err
		}
		if missing != "" {
			f := findCustom(defs, refKey[missing])
			return nil, apierr.BadRequest("custom_fields.%s must be %s; no such record %s", f.Key, customDescribe(f), missing)
		}
	}
	b, err := json.Marshal(set)
	if err != nil {
		return nil, store.Internal(err)
	}
	patch.set = string(b)
	return patch, nil
}

// invisible returns the first of ids that is no record of resource the actor can read (a
// record RLS hides, or one of a resource whose scope or grant it lacks, is as absent as
// one that does not exist), or "".
func (o *Ops) invisible(ctx context.Context, q querier, p *auth.Principal, resource string, ids []string) (string, error) {
	r := Lookup(resource)
	if r == nil || p != nil && !Permits(p, r, OpGet) {
		return ids[0], nil
	}
	seen := map[string]bool{}
	err := q.Query(ctx, p.Actor(), `SELECT id::text FROM `+ident(r.Table)+` WHERE id = ANY($1::text[]::uuid[])`, []any{ids},
		func(rows pgx.Rows) error {
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					return err
				}
				seen[id] = true
			}
			return nil
		})
	if err != nil {
		return "", readError(err)
	}
	for _, id := range ids {
		if !seen[id] {
			return id, nil
		}
	}
	return "", nil
}

func unquote(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// customDescribe says what the field takes, for messages.
func customDescribe(f *CustomField) string {
	_, problem := customTypeOf(f.Type).check(f, json.RawMessage(`{"?":0}`))
	return problem
}

// customText checks a JSON string of at most max characters that valid accepts (any when nil).
func customText(max int, valid func(string) bool, what string) func(*CustomField, json.RawMessage) (json.RawMessage, string) {
	return func(f *CustomField, raw json.RawMessage) (json.RawMessage, string) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, what
		}
		if len([]rune(s)) > max || strings.ContainsRune(s, 0) || valid != nil && !valid(s) {
			return nil, fmt.Sprintf("%s, got %q", what, clip(s))
		}
		if f.Type == "member" || f.Type == "reference" {
			s = strings.ToLower(s)
		}
		b, _ := json.Marshal(s)
		return b, ""
	}
}

// customLiteral checks a bare JSON literal (a number, true or false).
func customLiteral(valid func(string) bool, what string) func(*CustomField, json.RawMessage) (json.RawMessage, string) {
	return func(_ *CustomField, raw json.RawMessage) (json.RawMessage, string) {
		if !valid(string(raw)) {
			return nil, what
		}
		return raw, ""
	}
}

func checkMoney(_ *CustomField, raw json.RawMessage) (json.RawMessage, string) {
	const what = `an object {"amount": a JSON number, "currency": an ISO 4217 code such as "EUR"}`
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) != 2 || !isNumber(nil, string(m["amount"])) {
		return nil, what
	}
	var code string
	if json.Unmarshal(m["currency"], &code) != nil || !currencyRE.MatchString(code) {
		return nil, what
	}
	if _, err := currency.ParseISO(code); err != nil {
		return nil, fmt.Sprintf("%s; %q is no ISO 4217 currency", what, clip(code))
	}
	return json.RawMessage(`{"amount":` + string(m["amount"]) + `,"currency":"` + code + `"}`), ""
}

func checkSelect(f *CustomField, raw json.RawMessage) (json.RawMessage, string) {
	var s string
	if json.Unmarshal(raw, &s) != nil || !slices.Contains(f.activeOptions(), s) {
		return nil, "one of " + strings.Join(f.activeOptions(), ", ")
	}
	return raw, ""
}

func checkMultiSelect(f *CustomField, raw json.RawMessage) (json.RawMessage, string) {
	what := "an array of distinct options of " + strings.Join(f.activeOptions(), ", ")
	var list []string
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, what
	}
	seen := map[string]bool{}
	for _, s := range list {
		if seen[s] || !slices.Contains(f.activeOptions(), s) {
			return nil, fmt.Sprintf("%s, got %q", what, clip(s))
		}
		seen[s] = true
	}
	b, _ := json.Marshal(list)
	return b, ""
}

var (
	currencyRE  = regexp.MustCompile(`^[A-Z]{3}$`)
	phoneRE     = regexp.MustCompile(`^\+?[0-9 ()./-]{3,40}$`)
	keyRE       = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
	optionKeyRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
)

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

func isPhone(s string) bool {
	digits := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	return phoneRE.MatchString(s) && digits >= 3
}

// checkDefinition judges a custom_fields create (id "") or update of the fields in set, as
// the row will be: the key's form and that it is no field of its resource, key and
// resource unchanged, the caller's write scope and grant on the resource, options for
// select types only, unique and searchable only where they mean something, and a type
// change only when every stored value converts. It returns the options normalized.
func (o *Ops) checkDefinition(ctx context.Context, q querier, p *auth.Principal, set []assignment, id string) error {
	next := CustomField{}
	if id != "" {
		defs, err := o.definitionByID(ctx, q, p, id)
		if err != nil {
			return err
		}
		next = *defs
	}
	prev := next
	var optionsSet bool
	for i, a := range set {
		switch a.field.Name {
		case "resource":
			next.Resource = a.value.(string)
		case "key":
			next.Key = a.value.(string)
		case "type":
			next.Type = a.value.(string)
		case "reference_resource":
			next.ReferenceResource = ""
			if a.value != nil {
				next.ReferenceResource = a.value.(string)
			}
		case "unique":
			next.Unique = a.value == "true"
		case "searchable":
			next.Searchable = a.value == "true"
		case "options":
			optionsSet = true
			next.Options = nil
			if a.value != nil {
				if err := json.Unmarshal([]byte(a.value.(string)), &next.Options); err != nil || next.Options == nil {
					return apierr.BadRequest("options must be an array of {key, label, order, archived}")
				}
			}
			if next.Options == nil {
				next.Options = []CustomOption{}
			}
			b, _ := json.Marshal(next.Options)
			set[i].value = string(b)
		}
	}
	target := Lookup(next.Resource)
	op := OpCreate
	if id != "" {
		op = OpUpdate
		if next.Key != prev.Key || next.Resource != prev.Resource {
			return apierr.BadRequest("key and resource of a custom field never change (values are stored under the key); archive it and add another")
		}
	}
	if err := checkScope(p, target, op); err != nil {
		return err
	}
	if err := checkFeature(p, target.Feature, op, "defining fields of "+target.Name); err != nil {
		return err
	}
	if !keyRE.MatchString(next.Key) {
		return apierr.BadRequest("key must be snake_case: a lowercase letter, then lowercase letters, digits or _, at most 63, got %q", clip(next.Key))
	}
	if slices.Contains(append(Columns(target), "search_doc"), next.Key) {
		return apierr.BadRequest("key %q is a field of %s; choose another", next.Key, target.Name)
	}
	t := customTypeOf(next.Type)
	choices := next.Type == "select" || next.Type == "multi_select"
	switch {
	case choices && len(next.Options) == 0:
		return apierr.BadRequest("options: a %s field needs at least one option {key, label, order, archived}", next.Type)
	case !choices && len(next.Options) > 0:
		return apierr.BadRequest("options: only select and multi_select fields take options")
	case next.Type == "reference" && next.ReferenceResource == "":
		return apierr.BadRequest("reference_resource: a reference field names the resource its values are records of: %s", strings.Join(customResources, ", "))
	case next.Type != "reference" && next.ReferenceResource != "":
		return apierr.BadRequest("reference_resource: only reference fields take it")
	case next.Unique && (t.noUnique || t.multi):
		return apierr.BadRequest("unique: %s fields cannot be unique", next.Type)
	case next.Searchable && !t.textLike:
		return apierr.BadRequest("searchable: only text, long_text, url, email and phone fields are searchable")
	}
	seen := map[string]bool{}
	for _, opt := range next.Options {
		if !optionKeyRE.MatchString(opt.Key) || seen[opt.Key] {
			return apierr.BadRequest("options: each key must be distinct, lowercase letters, digits, _ or -, got %q", clip(opt.Key))
		}
		if strings.TrimSpace(opt.Label) == "" || len([]rune(opt.Label)) > ShortText || strings.ContainsRune(opt.Label, 0) {
			return apierr.BadRequest("options: option %s needs a label of at most %d characters", opt.Key, ShortText)
		}
		seen[opt.Key] = true
	}
	if id == "" {
		return o.checkFieldCount(ctx, q, p, next.Resource)
	}
	if optionsSet {
		for _, old := range prev.Options {
			if !seen[old.Key] {
				return apierr.BadRequest("options: option %s cannot be removed (records may hold it); archive it instead", old.Key)
			}
		}
	}
	if next.Type != prev.Type {
		return o.checkConversion(ctx, q, p, &prev, &next)
	}
	return nil
}

func (o *Ops) definitionByID(ctx context.Context, q querier, p *auth.Principal, id string) (*CustomField, error) {
	var res string
	err := q.Query(ctx, p.Actor(), `SELECT resource FROM custom_fields WHERE id = $1::text::uuid`, []any{id}, func(rows pgx.Rows) error {
		if rows.Next() {
			return rows.Scan(&res)
		}
		return nil
	})
	if err != nil {
		return nil, readError(err)
	}
	r := Lookup(customFieldsName)
	if res == "" || !Permits(p, Lookup(res), OpGet) {
		return nil, notFound(r, id)
	}
	defs, err := loadCustomFields(ctx, q, p, res)
	if err != nil {
		return nil, err
	}
	for i := range defs {
		if defs[i].ID == id {
			return &defs[i], nil
		}
	}
	return nil, notFound(r, id)
}

func (o *Ops) checkFieldCount(ctx context.Context, q querier, p *auth.Principal, resource string) error {
	n := 0
	err := q.Query(ctx, p.Actor(), `SELECT count(*) FROM custom_fields WHERE resource = $1`, []any{resource}, func(rows pgx.Rows) error {
		if rows.Next() {
			return rows.Scan(&n)
		}
		return nil
	})
	if err != nil {
		return readError(err)
	}
	if n >= MaxCustomFields {
		return fieldLimitError(resource)
	}
	return nil
}

func fieldLimitError(resource string) error {
	return apierr.BadRequest("%s has %d custom fields, the most a resource takes; archive one no longer needed or reuse it", resource, MaxCustomFields)
}

// checkConversion refuses a type change unless every stored value of the field is a value
// of the new type; values that name records (member, reference) are never converted to.
// q is the transaction that then changes the type (updateDefinition): it first locks the
// resource's table in SHARE mode, which waits for writes in flight and holds new ones
// until the change commits, so no value the check did not see is written under the old
// type before ws_custom_reindex converts them. Writes wait for the check and the
// conversion, proportional to the records holding the field; a type change is rare.
func (o *Ops) checkConversion(ctx context.Context, q querier, p *auth.Principal, prev, next *CustomField) error {
	r := Lookup(next.Resource)
	t := customTypeOf(next.Type)
	if err := q.Query(ctx, p.Actor(), `LOCK TABLE `+ident(r.Table)+` IN SHARE MODE`, nil, func(pgx.Rows) error { return nil }); err != nil {
		return readError(err)
	}
	var bad, count int
	var example string
	err := q.Query(ctx, p.Actor(), `SELECT custom_fields -> $1 FROM `+ident(r.Table)+` WHERE custom_fields ? $1`, []any{next.Key},
		func(rows pgx.Rows) error {
			for rows.Next() {
				var v []byte
				if err := rows.Scan(&v); err != nil {
					return err
				}
				count++
				if _, problem := t.check(next, v); problem != "" || next.Type == "member" || next.Type == "reference" {
					if bad == 0 {
						example = string(v)
					}
					bad++
				}
			}
			return nil
		})
	if err != nil {
		return readError(err)
	}
	if bad > 0 {
		return apierr.BadRequest("type: %d of the %d stored values of %s do not convert from %s to %s (such as %s); change or clear them first",
			bad, count, next.Key, prev.Type, next.Type, clip(example))
	}
	return nil
}

// permitGoverned is the per-record gate of a Governed resource (custom_fields): a
// definition is read with its resource's read scope and grant, else it does not exist.
func permitGoverned(p *auth.Principal, r *Resource, rec json.RawMessage, id string) error {
	var row map[string]json.RawMessage
	if json.Unmarshal(rec, &row) != nil {
		return notFound(r, id)
	}
	if target := Lookup(unquote(row[r.Governed])); target == nil || !Permits(p, target, OpGet) {
		return notFound(r, id)
	}
	return nil
}

// governedResources lists the resources whose records of r p may read (the values of
// r.Governed a list keeps).
func governedResources(p *auth.Principal) []string {
	var out []string
	for _, name := range customResources {
		if Permits(p, Lookup(name), OpList) {
			out = append(out, name)
		}
	}
	return out
}

// customWriteError words the database's refusals of a custom field value or definition:
// a unique value another record holds (409 conflict naming the field), a key the resource
// already has (409), the field limit reached under concurrency (400).
func customWriteError(err error) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return nil
	}
	switch {
	case pg.Code == "23505" && pg.ConstraintName == "custom_values_unique":
		return &apierr.Error{Code: apierr.CodeConflict, Err: err,
			Message: fmt.Sprintf("custom_fields.%s is unique and another record already holds this value", pg.ColumnName)}
	case pg.Code == "23505" && pg.ConstraintName == "custom_fields_workspace_id_resource_key_key":
		return &apierr.Error{Code: apierr.CodeConflict, Err: err, Message: "the resource already has a custom field with this key"}
	case pg.Code == "23514" && pg.ConstraintName == "custom_fields_limit":
		return fieldLimitError("the resource")
	}
	return nil
}

// customAssignment replaces the custom_fields assignment of a write's set with its checked
// value: on create the whole object (always checked, so required fields are enforced), on
// update a *customPatch merged into the stored one.
func (o *Ops) customAssignment(ctx context.Context, q querier, p *auth.Principal, r *Resource, set []assignment, create bool, cache *customDefs) ([]assignment, error) {
	i := slices.IndexFunc(set, func(a assignment) bool { return a.field.Name == customFieldsName })
	raw := "{}"
	if i >= 0 {
		raw = set[i].value.(string)
	} else if !create {
		return set, nil
	}
	patch, err := o.checkCustomValues(ctx, q, p, r, raw, create, cache)
	if err != nil {
		return nil, err
	}
	if create && patch.set == "{}" { // no values: the column stays NULL, read as {}
		if i >= 0 {
			set = slices.Delete(set, i, i+1)
		}
		return set, nil
	}
	if create {
		set[i].value = patch.set
	} else {
		set[i].value = patch
	}
	return set, nil
}

// splitCustomFields separates fields= names of custom fields (custom_fields.<key>) from the
// others: the keys, with custom_fields among the others, or nil keys when none is named.
func splitCustomFields(r *Resource, fields []string) (plain, keys []string, err error) {
	plain = make([]string, 0, len(fields)) // an empty fields= stays one, refused by checkFields
	for _, f := range fields {
		key, ok := strings.CutPrefix(f, customFieldsName+".")
		if !ok {
			plain = append(plain, f)
			continue
		}
		if !r.Custom || !keyRE.MatchString(key) {
			return nil, nil, apierr.BadRequest("fields: %s has no field %q", r.Name, clip(f))
		}
		if keys == nil {
			plain = append(plain, customFieldsName)
		}
		keys = append(keys, key)
	}
	return plain, keys, nil
}

// customSubset is the custom_fields object expr restricted to the keys of parameter n,
// selected as custom_fields.
func customSubset(expr string, n int) string {
	return fmt.Sprintf(`(SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}') FROM jsonb_each(%s) e WHERE e.key = ANY($%d::text[])) AS "custom_fields"`, expr, n)
}

// ListIndexed is whether eq on the field reads a list index in the list's order when one is
// valid (sortindex.go): types whose values repeat across many records, where eq matches
// too many for the probe and too few for a short walk of the list's order (a select of ten
// options matches one record in ten, and the walk read ten records for each it showed).
func (f *CustomField) ListIndexed() bool { return f.Type == "select" || f.Type == "member" }

// PrefixIndexed is whether prefix on the field walks a prefix index in the list's order
// when one is valid (sortindex.go): types whose prefixes are often shared by many records
// (a scheme and host, a country code), where the walk read every record up to the page's
// last match.
func (f *CustomField) PrefixIndexed() bool { return f.Type == "url" || f.Type == "phone" }
