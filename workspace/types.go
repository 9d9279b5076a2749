package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"

	"github.com/agencyos/workspaced/apierr"
)

// The field types, one entry each: what a Type means in SQL, in JSON Schema (the OpenAPI
// document and the MCP tools both ask Field.Schema), in a request body, in a list filter,
// in messages and in an import file's cell. Adding a type is one constant and one entry
// here.

// Type is a field's JSON type and format (docs/decisions.md 4 settles the ones the spec leaves open).
type Type int

const (
	String  Type = iota
	UUID         // a uuid string
	Bool         // true or false
	Int          // a JSON integer
	Number       // a JSON number, stored as numeric
	Date         // an ISO date, 2026-01-31
	Time         // an RFC 3339 timestamp
	JSON         // any JSON value, stored as jsonb
	UUIDs        // an array of uuid strings
	Strings      // an array of strings
	Custom       // a record's custom field values, {key: value}, checked against its definitions

	typeCount // the number of types: fieldTypes has an entry for each (TestFieldTypes)
)

// fieldType is everything one Type means.
type fieldType struct {
	sql string // the column type a value's text parameter is cast to
	// schema is a value's JSON Schema in the dialect, without enum, bounds, description
	// or null (Field.Schema adds those for every type alike).
	schema func(f *Field, d Dialect) *jsonschema.Schema
	// describe says what a value must be, for messages: "a uuid string".
	describe func(f *Field) string
	// check validates a body value (never JSON null: checkValue handles null) and returns
	// the statement parameter, or a problem; want is "must be " and what describe says.
	check func(f *Field, raw json.RawMessage, want string) (value, string)
	// filter reports whether a query string's value is one this type's column accepts;
	// nil means fields of this type cannot be list filters (TestFieldTypes).
	filter func(f *Field, v string) bool
	// ops are the operators of ?field[op]=value a field of this type takes (find.go); a
	// field with an enumeration takes them but prefix and contains, one without a trigram
	// index them but contains, whatever its type; noOperators where no operator compares
	// its values.
	// Never nil: TestFieldTypes fails an entry without ops.
	ops []Operator
	// notNull is the problem of JSON null in a body, for types whose columns refuse null.
	notNull string
	// example is a valid body value, as JSON: messages quote it, tests send it.
	example string
	// importCell turns an import file's cell (docs/rest.md, "Imports") into a body value,
	// JSON, or says what the cell must be; dateLayout is the import's date_format, "" for
	// ISO dates. The batch's validation judges the value as it judges a body's. Never nil:
	// TestFieldTypes fails an entry without it.
	importCell func(s, dateLayout string) (json.RawMessage, string)
}

var fieldTypes = [typeCount]fieldType{
	String: {sql: "text",
		schema: stringSchema,
		describe: func(f *Field) string {
			if len(f.Enum) > 0 {
				return "one of " + strings.Join(f.Enum, ", ")
			}
			return fmt.Sprintf("a string of at most %d characters", f.MaxLength())
		},
		check:      checkText(nil),
		filter:     func(f *Field, v string) bool { return len(f.Enum) == 0 || slices.Contains(f.Enum, v) },
		ops:        []Operator{OpEq, OpNe, OpIn, OpPrefix, OpContains, OpNull},
		example:    `"Acme"`,
		importCell: cellText,
	},
	UUID: textType("uuid", "uuid", "a uuid string", `"3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f"`, "", isUUID,
		OpEq, OpNe, OpIn, OpNull),
	Bool: {sql: "boolean",
		schema:   func(*Field, Dialect) *jsonschema.Schema { return &jsonschema.Schema{Type: "boolean"} },
		describe: func(*Field) string { return "true or false" },
		check:    checkLiteral(isBool),
		filter:   isBool,
		ops:      []Operator{OpEq, OpNe, OpNull},
		notNull:  "cannot be null; send true or false",
		example:  "true",
		importCell: func(s, _ string) (json.RawMessage, string) {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true", "yes", "1":
				return json.RawMessage("true"), ""
			case "false", "no", "0":
				return json.RawMessage("false"), ""
			}
			return nil, "must be true or false (or yes/no, 1/0), got " + strconv.Quote(clip(s))
		},
	},
	Int: {sql: "bigint",
		schema: func(f *Field, d Dialect) *jsonschema.Schema {
			s := &jsonschema.Schema{Type: "integer"}
			if d == OpenAPIDialect { // code generators pick the integer's width from it
				s.Format = fmt.Sprintf("int%d", intBits(f))
			}
			return s
		},
		describe: func(f *Field) string {
			if f.Min != nil && f.Max != nil {
				return fmt.Sprintf("an integer from %d to %d", *f.Min, *f.Max)
			}
			return fmt.Sprintf("a %d-bit integer", intBits(f))
		},
		check:   checkLiteral(isInt),
		filter:  isInt,
		ops:     ordered,
		example: "1",
		importCell: func(s, _ string) (json.RawMessage, string) {
			if _, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err != nil {
				return nil, "must be an integer, got " + strconv.Quote(clip(s))
			}
			return json.RawMessage(strings.TrimSpace(s)), ""
		},
	},
	Number: {sql: "numeric",
		schema:   numberSchema,
		describe: func(*Field) string { return "a JSON number" },
		check:    checkLiteral(isNumber),
		filter:   isNumber,
		ops:      ordered,
		example:  "12.5",
		importCell: func(s, _ string) (json.RawMessage, string) {
			n := strings.TrimSpace(s)
			if _, err := strconv.ParseFloat(n, 64); err != nil || !json.Valid([]byte(n)) {
				return nil, "must be a number such as 12.5, got " + strconv.Quote(clip(s))
			}
			return json.RawMessage(n), ""
		},
	},
	Date: textType("date", "date", "an ISO date string", `"2026-01-31"`, yearRange, isDate, ordered...).
		withImportCell(func(s, dateLayout string) (json.RawMessage, string) {
			d := strings.TrimSpace(s)
			if dateLayout != "" {
				tm, err := time.Parse(dateLayout, d)
				if err != nil {
					return nil, "must be a date written as the import's date_format says, got " + strconv.Quote(clip(s))
				}
				d = tm.Format(time.DateOnly)
			}
			b, _ := json.Marshal(d)
			return b, ""
		}),
	Time: textType("timestamptz", "date-time", "an RFC 3339 timestamp string", `"2026-01-31T09:00:00Z"`, yearRange, isTime, ordered...),
	JSON: {sql: "jsonb",
		schema:   anyJSON,
		describe: func(*Field) string { return "any JSON value" },
		check: func(f *Field, raw json.RawMessage, want string) (value, string) {
			if p := jsonProblem(raw); p != "" {
				return nil, p
			}
			return string(raw), ""
		},
		ops:        noOperators,
		example:    `{"k": "v"}`,
		importCell: cellJSON,
	},
	UUIDs: {sql: "uuid[]",
		schema: func(f *Field, d Dialect) *jsonschema.Schema {
			return &jsonschema.Schema{Type: "array", Items: formatted("uuid")(f, d)}
		},
		describe:   func(*Field) string { return "an array of uuid strings" },
		check:      checkList(UUID),
		notNull:    "cannot be null; send [] for none",
		ops:        noOperators,
		example:    `["3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f"]`,
		importCell: cellList,
	},
	Strings: {sql: "text[]",
		schema: func(f *Field, d Dialect) *jsonschema.Schema {
			return &jsonschema.Schema{Type: "array", Items: stringSchema(f, d)}
		},
		describe: func(f *Field) string {
			return fmt.Sprintf("an array of strings of at most %d characters", f.MaxLength())
		},
		check:      checkList(String),
		notNull:    "cannot be null; send [] for none",
		ops:        noOperators,
		example:    `["core"]`,
		importCell: cellList,
	},
	Custom: {sql: "jsonb",
		schema: func(f *Field, d Dialect) *jsonschema.Schema {
			s := &jsonschema.Schema{Type: "object"}
			if d == OpenAPIDialect {
				s.AdditionalProperties = &jsonschema.Schema{Description: "a custom field's value"}
			}
			return s
		},
		describe: func(*Field) string {
			return "an object of custom field values by key (GET /v1/custom_fields lists them); null clears a key"
		},
		check: func(f *Field, raw json.RawMessage, want string) (value, string) {
			if raw[0] != '{' {
				return nil, want
			}
			if p := jsonProblem(raw); p != "" {
				return nil, p
			}
			return string(raw), ""
		},
		notNull: "cannot be null; send {} for no change, or a key with null to clear it",
		ops:     noOperators,
		example: `{}`,
		// An import maps columns to single custom values (custom_fields.<key>, each typed by
		// its definition) and refuses one mapped to the object; were it mapped, its cell
		// would be the object as JSON.
		importCell: cellJSON,
	},
}

// cellText is the import cell of a text type: the cell as a JSON string.
func cellText(s, _ string) (json.RawMessage, string) {
	b, _ := json.Marshal(s)
	return b, ""
}

// cellJSON is the import cell of a JSON type: the cell must be JSON itself.
func cellJSON(s, _ string) (json.RawMessage, string) {
	if !json.Valid([]byte(s)) {
		return nil, "must be JSON, got " + strconv.Quote(clip(s))
	}
	return json.RawMessage(s), ""
}

// cellList is the import cell of an array type: a JSON list, as an export writes lists,
// or values separated by semicolons.
func cellList(s, _ string) (json.RawMessage, string) {
	var list []string
	if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &list) == nil {
		b, _ := json.Marshal(list)
		return b, ""
	}
	parts := []string{}
	for v := range strings.SplitSeq(s, ";") {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, v)
		}
	}
	b, _ := json.Marshal(parts)
	return b, ""
}

// ordered are the operators of types whose values have an order.
var ordered = []Operator{OpEq, OpNe, OpLt, OpLte, OpGt, OpGte, OpIn, OpNull}

// noOperators are the operators of types no operator compares (JSON, arrays): none, said
// explicitly, so an entry that forgets its operators fails TestFieldTypes.
var noOperators = []Operator{}

// Dialect is where a schema is read: each reader has its own needs.
type Dialect int

const (
	// OpenAPIDialect is for the OpenAPI document and its code generators: integer and
	// number formats, null as a type list (JSON Schema 2020-12 as OpenAPI 3.1 has it).
	OpenAPIDialect Dialect = iota
	// ToolDialect is for MCP tool arguments: string formats only (every byte is paid on
	// every turn), null as anyOf (clients that map tools onto single-type dialects, such
	// as Gemini's OpenAPI subset, reject type lists; the MCP Inspector flags them).
	ToolDialect
)

// Example is a valid body value of t, as JSON (for a String, one of at most ShortText
// characters; for an Int, one within any Min and Max of the catalogue).
func (t Type) Example() json.RawMessage { return json.RawMessage(fieldTypes[t].example) }

// SQLType is the column type a value of t is cast to from its text.
func (t Type) SQLType() string { return fieldTypes[t].sql }

// Schema is the JSON Schema of a value of t in the dialect, for columns that are not
// catalogue fields (id, created_at ...).
func (t Type) Schema(d Dialect) *jsonschema.Schema { return fieldTypes[t].schema(&Field{}, d) }

// Schema is the field's JSON Schema in the dialect: its type's schema plus the field's
// enumeration, bounds and description; nullable admits null too.
func (f *Field) Schema(d Dialect, nullable bool) *jsonschema.Schema {
	s := fieldTypes[f.Type].schema(f, d)
	for _, e := range f.Enum {
		s.Enum = append(s.Enum, e)
	}
	if f.Min != nil {
		s.Minimum = jsonschema.Ptr(float64(*f.Min))
	}
	if f.Max != nil {
		s.Maximum = jsonschema.Ptr(float64(*f.Max))
	}
	if nullable && s.Type != "" { // a union (any JSON value) names null itself
		s = d.nullable(s)
	}
	s.Description = f.Doc
	return s
}

// nullable admits null beside the values s admits.
func (d Dialect) nullable(s *jsonschema.Schema) *jsonschema.Schema {
	if d == ToolDialect {
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Type: "null"}}}
	}
	s.Types, s.Type = []string{s.Type, "null"}, ""
	if s.Enum != nil {
		s.Enum = append(s.Enum, nil)
	}
	return s
}

// Outline is the JSON type of the field's values alone, null admitted, in the tool
// dialect: what a tool's result says of a column no input schema beside it describes.
func (f *Field) Outline() *jsonschema.Schema {
	s := fieldTypes[f.Type].schema(f, ToolDialect)
	if s.Type == "" { // a union (any JSON value) names null itself
		return s
	}
	return ToolDialect.nullable(&jsonschema.Schema{Type: s.Type})
}

// describe says what the field's values must be, for messages.
func describe(f *Field) string { return fieldTypes[f.Type].describe(f) }

func stringSchema(f *Field, _ Dialect) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MaxLength: jsonschema.Ptr(f.MaxLength())}
}

func numberSchema(_ *Field, d Dialect) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "number"}
	if d == OpenAPIDialect {
		s.Format = "double" // generators would otherwise pick float32
	}
	return s
}

// anyJSON is a jsonb field: any JSON value (docs/decisions.md 4), spelled out as a union of
// typed branches so generated clients get a usable type (an object is Record<string,
// unknown>, not never), linters find items on the array branch, and the MCP portability
// check finds no untyped schema. The array's items accept anything but carry a
// description: an empty schema is written as the boolean true, which released OpenAPI
// readers refuse under items (restapi's TestOpenAPINoBooleanSubschemas).
func anyJSON(_ *Field, d Dialect) *jsonschema.Schema {
	object, array := &jsonschema.Schema{Type: "object"}, &jsonschema.Schema{Type: "array"}
	if d == OpenAPIDialect {
		object.AdditionalProperties = &jsonschema.Schema{}
		array.Items = &jsonschema.Schema{Description: "any JSON value"}
	}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{object, array, {Type: "string"},
		numberSchema(nil, d), {Type: "boolean"}, {Type: "null"}}}
}

func formatted(format string) func(*Field, Dialect) *jsonschema.Schema {
	return func(*Field, Dialect) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Format: format}
	}
}

// AcceptsNull reports whether a body may set the field to null.
func (f *Field) AcceptsNull() bool { return !f.Required && fieldTypes[f.Type].notNull == "" }

// checkValue validates one body value against its field and returns the parameter.
// problem is "" when the value is acceptable.
func checkValue(f *Field, raw json.RawMessage) (v value, problem string) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		switch {
		case f.AcceptsNull():
			return nil, ""
		case f.Required:
			return nil, "is required and cannot be null"
		}
		return nil, fieldTypes[f.Type].notNull
	}
	return fieldTypes[f.Type].check(f, raw, "must be "+describe(f))
}

// textType is a type whose values are JSON strings of a form valid accepts (a uuid, a
// date), stored as sql, described by format in JSON Schema and in messages by what, an
// example and a note; a body's string and a filter's text are checked alike.
func textType(sql, format, what, example, note string, valid func(string) bool, ops ...Operator) fieldType {
	return fieldType{sql: sql, schema: formatted(format), describe: func(*Field) string { return what + " such as " + example + note },
		check: checkText(valid), filter: func(_ *Field, v string) bool { return valid(v) }, ops: ops, example: example,
		importCell: cellText}
}

// withImportCell is t with its import cell replaced.
func (t fieldType) withImportCell(cell func(s, dateLayout string) (json.RawMessage, string)) fieldType {
	t.importCell = cell
	return t
}

// checkLiteral validates a body value sent as a bare JSON literal (a number, true or
// false) with valid, its type's filter parser: a body writes such a value as a query
// string does.
func checkLiteral(valid func(f *Field, s string) bool) func(f *Field, raw json.RawMessage, want string) (value, string) {
	return func(f *Field, raw json.RawMessage, want string) (value, string) {
		if !valid(f, string(raw)) {
			return nil, want
		}
		return string(raw), ""
	}
}

// checkText validates a body value sent as a JSON string: free text when valid is nil,
// otherwise text valid accepts (a uuid, a date, a timestamp).
func checkText(valid func(string) bool) func(f *Field, raw json.RawMessage, want string) (value, string) {
	return func(f *Field, raw json.RawMessage, want string) (value, string) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, want
		}
		if p := textProblem(f, s); p != "" && valid == nil {
			return nil, p
		}
		switch {
		case f.Required && strings.TrimSpace(s) == "":
			return nil, "is required and cannot be empty"
		case valid != nil && !valid(s):
			return nil, fmt.Sprintf("%s, got %q", want, clip(s))
		case len(f.Enum) > 0 && !slices.Contains(f.Enum, s):
			return nil, fmt.Sprintf("must be one of %s, got %q", strings.Join(f.Enum, ", "), clip(s))
		}
		return s, ""
	}
}

// checkList validates an array body value whose elements are each of type elem.
func checkList(elem Type) func(f *Field, raw json.RawMessage, want string) (value, string) {
	return func(f *Field, raw json.RawMessage, want string) (value, string) {
		var list []string
		if raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
			return nil, want
		}
		for _, s := range list {
			if elem == UUID && !isUUID(s) {
				return nil, fmt.Sprintf("%s; %q is not a uuid", want, clip(s))
			}
			if p := textProblem(f, s); elem == String && p != "" {
				return nil, "each element " + p
			}
		}
		return list, ""
	}
}

// checkFilter validates one list filter value (docs/decisions.md 4: wrong types are a 400),
// so no value reaches PostgreSQL that its column's type would refuse.
func checkFilter(r *Resource, name, v string) (*Field, error) {
	f := r.FilterField(name)
	if f == nil {
		return nil, unknownParam(r, name)
	}
	if p := filterProblem(f, v, false); p != "" {
		return nil, apierr.BadRequest("filter %s %s", name, p)
	}
	return f, nil
}

// filterProblem says what is wrong with a query string's value for the field, an exact or
// an operator filter's, or "" when its column takes it: never empty (docs/rest.md), text
// without NUL, and of the field's type unless anyText (prefix takes any text).
func filterProblem(f *Field, v string, anyText bool) string {
	if v == "" {
		return fmt.Sprintf("is empty; give %s, or leave the filter out", describe(f))
	}
	if p := textProblem(f, v); p != "" {
		return p
	}
	if parse := fieldTypes[f.Type].filter; !anyText && (parse == nil || !parse(f, v)) {
		return fmt.Sprintf("must be %s, got %q", describe(f), clip(v))
	}
	return ""
}

var (
	dateRE    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	integerRE = regexp.MustCompile(`^-?(0|[1-9]\d*)$`)
	numberRE  = regexp.MustCompile(`^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$`)
)

// intBits is the width of an Int field's column: bigint or integer.
func intBits(f *Field) int {
	if f.Big {
		return 64
	}
	return 32
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// yearRange says which years dates and timestamps take: PostgreSQL refuses year 0000, and
// writes a year past 9999 with five digits and one before 0001 as BC, which no RFC 3339
// or ISO date reader takes back (a timestamp's year is its year in UTC, as records show it).
const yearRange = ", years 0001 to 9999"

func inYears(t time.Time) bool { return t.UTC().Year() >= 1 && t.UTC().Year() <= 9999 }

func isDate(s string) bool {
	if !dateRE.MatchString(s) {
		return false
	}
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && inYears(t)
}

func isTime(s string) bool {
	_, ok := parseTime(s)
	return ok
}

// parseTime reads an RFC 3339 timestamp of a year yearRange names.
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil && inYears(t)
}

func isBool(_ *Field, s string) bool { return s == "true" || s == "false" }

// isInt reports whether s is an integer within the field's column width and bounds.
func isInt(f *Field, s string) bool {
	n, err := strconv.ParseInt(s, 10, intBits(f))
	return integerRE.MatchString(s) && err == nil && (f.Min == nil || n >= int64(*f.Min)) && (f.Max == nil || n <= int64(*f.Max))
}

// isNumber reports whether s is a JSON number within float64's range (numeric takes far
// more, but no client's JSON number does).
func isNumber(_ *Field, s string) bool {
	if !numberRE.MatchString(s) {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
