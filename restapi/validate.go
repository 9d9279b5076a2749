package restapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/store"
)

// MaxBody is the largest request body accepted (decisions.md 4).
const MaxBody = 1 << 20

// DecodeObject parses a request body that must be one JSON object into its members, kept
// raw so that an absent key and a zero value stay different. Anything else (malformed JSON,
// an array, a scalar, null, trailing data) is a 400 bad_request.
func DecodeObject(body []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(body)
	if !utf8.Valid(trimmed) {
		return nil, store.BadRequest("the request body is not valid UTF-8; send JSON encoded as UTF-8")
	}
	if len(trimmed) == 0 {
		return nil, store.BadRequest("the request body is empty; send a JSON object such as {\"name\": \"...\"}")
	}
	if trimmed[0] != '{' {
		return nil, store.BadRequest("the request body must be a JSON object ({...}), not %s", jsonKind(trimmed))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return nil, store.BadRequest("the request body is not valid JSON: %v", err)
	}
	return m, nil
}

func jsonKind(b []byte) string {
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	default:
		if b[0] == '-' || b[0] >= '0' && b[0] <= '9' {
			return "a number"
		}
		return "malformed JSON"
	}
}

// value is one validated body value ready to be a statement parameter: nil for SQL NULL,
// a string (cast in SQL from text), or a []string for arrays.
type value = any

var (
	dateRE    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	integerRE = regexp.MustCompile(`^-?(0|[1-9]\d*)$`)
)

// typeName describes a field's expected JSON for messages.
func typeName(f *Field) string {
	switch f.Type {
	case UUID:
		return "a uuid string"
	case Bool:
		return "true or false"
	case Int:
		if f.Min != nil && f.Max != nil {
			return fmt.Sprintf("an integer from %d to %d", *f.Min, *f.Max)
		}
		if f.Big {
			return "a 64-bit integer"
		}
		return "a 32-bit integer"
	case Number:
		return "a JSON number"
	case Date:
		return "an ISO date string such as \"2026-01-31\""
	case Time:
		return "an RFC 3339 timestamp string such as \"2026-01-31T09:00:00Z\""
	case JSON:
		return "any JSON value"
	case UUIDs:
		return "an array of uuid strings"
	case Strings:
		return fmt.Sprintf("an array of strings of at most %d characters", f.MaxLength())
	}
	if len(f.Enum) > 0 {
		return "one of " + strings.Join(f.Enum, ", ")
	}
	return fmt.Sprintf("a string of at most %d characters", f.MaxLength())
}

// MaxJSONDepth bounds the nesting of JSON values (jsonb columns): deeper values are a 422,
// not a strain on PostgreSQL's parser.
const MaxJSONDepth = 64

// textProblem says what is wrong with a text value for f, or "" when it is acceptable.
// PostgreSQL's text cannot hold NUL characters, so they are refused rather than
// truncated; the length bound keeps values storable and indexable.
func textProblem(f *Field, s string) string {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return "must not contain NUL (\\u0000) characters"
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case len(s) > f.MaxLength() && utf8.RuneCountInString(s) > f.MaxLength():
		return fmt.Sprintf("must be at most %d characters", f.MaxLength())
	}
	return ""
}

// jsonProblem says what PostgreSQL's jsonb would refuse in a JSON value (NUL characters in
// strings or keys) or what is too deep to be sensible, or "" when it is acceptable.
func jsonProblem(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return ""
		}
		if err != nil {
			return "must be valid JSON"
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if depth++; depth > MaxJSONDepth {
					return fmt.Sprintf("must not nest deeper than %d levels", MaxJSONDepth)
				}
			} else {
				depth--
			}
		case string: // object keys arrive as strings too
			if strings.IndexByte(v, 0) >= 0 {
				return "must not contain NUL (\\u0000) characters in its strings or keys"
			}
		}
	}
}

// checkValue validates one body value against its field and returns the parameter.
// problem is "" when the value is acceptable.
func checkValue(f *Field, raw json.RawMessage) (v value, problem string) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		switch {
		case f.Required:
			return nil, "is required and cannot be null"
		case f.Type == Bool:
			return nil, "cannot be null; send true or false"
		case f.Type == UUIDs || f.Type == Strings:
			return nil, "cannot be null; send [] for none"
		}
		return nil, ""
	}
	want := "must be " + typeName(f)
	switch f.Type {
	case String, UUID, Date, Time:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, want
		}
		if p := textProblem(f, s); p != "" && f.Type == String {
			return nil, p
		}
		switch {
		case f.Required && strings.TrimSpace(s) == "":
			return nil, "is required and cannot be empty"
		case f.Type == UUID && !isUUID(s):
			return nil, fmt.Sprintf("must be a uuid (like 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f), got %q", clip(s))
		case f.Type == Date && !isDate(s):
			return nil, fmt.Sprintf("%s, got %q", want, clip(s))
		case f.Type == Time && !isTime(s):
			return nil, fmt.Sprintf("%s, got %q", want, clip(s))
		case len(f.Enum) > 0 && !slices.Contains(f.Enum, s):
			return nil, fmt.Sprintf("must be one of %s, got %q", strings.Join(f.Enum, ", "), clip(s))
		}
		return s, ""
	case Bool:
		switch string(raw) {
		case "true", "false":
			return string(raw), ""
		}
		return nil, want
	case Int:
		if !integerRE.Match(raw) {
			return nil, want
		}
		n, err := strconv.ParseInt(string(raw), 10, intBits(f))
		if err != nil || f.Min != nil && n < int64(*f.Min) || f.Max != nil && n > int64(*f.Max) {
			return nil, want
		}
		return string(raw), ""
	case Number:
		var n float64
		if raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
			return nil, want
		}
		return string(raw), ""
	case JSON:
		if p := jsonProblem(raw); p != "" {
			return nil, p
		}
		return string(raw), ""
	case UUIDs, Strings:
		var list []string
		if json.Unmarshal(raw, &list) != nil || raw[0] != '[' {
			return nil, want
		}
		for _, s := range list {
			if f.Type == UUIDs && !isUUID(s) {
				return nil, fmt.Sprintf("%s; %q is not a uuid", want, clip(s))
			}
			if p := textProblem(f, s); f.Type == Strings && p != "" {
				return nil, "each element " + p
			}
		}
		return list, ""
	}
	return nil, want
}

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

func isDate(s string) bool {
	if !dateRE.MatchString(s) {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

func isTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// assignment is one validated column of a write.
type assignment struct {
	field *Field
	value value
}

// checkBody validates a create (create = true) or update body against the resource's
// writable fields. Unknown keys and non-writable fields are ignored (spec 2.2). It returns
// a 422 validation_error naming every bad field.
func checkBody(r *Resource, body map[string]json.RawMessage, create bool) ([]assignment, error) {
	var out []assignment
	var bad []store.FieldError
	for i := range r.Fields {
		f := &r.Fields[i]
		if !f.Writable {
			continue
		}
		raw, ok := body[f.Name]
		if !ok {
			if create && f.Required {
				bad = append(bad, store.FieldError{Field: f.Name, Problem: "is required (" + typeName(f) + ")"})
			}
			continue
		}
		v, problem := checkValue(f, raw)
		if problem != "" {
			bad = append(bad, store.FieldError{Field: f.Name, Problem: problem})
			continue
		}
		out = append(out, assignment{field: f, value: v})
	}
	if len(bad) > 0 {
		return nil, validationError(r, bad)
	}
	if !create && len(out) == 0 {
		return nil, &store.Error{Status: http.StatusUnprocessableEntity, Code: "validation_error",
			Message: fmt.Sprintf("the body has no writable field of %s; send at least one of: %s",
				r.Name, strings.Join(fieldNames(r.Writable()), ", ")),
			Fields: []store.FieldError{}}
	}
	return out, nil
}

func validationError(r *Resource, bad []store.FieldError) *store.Error {
	parts := make([]string, len(bad))
	for i, b := range bad {
		parts[i] = b.Field + " " + b.Problem
	}
	return &store.Error{Status: http.StatusUnprocessableEntity, Code: "validation_error",
		Message: fmt.Sprintf("fix these fields of %s: %s", r.Name, strings.Join(parts, "; ")), Fields: bad}
}

func fieldNames(fs []Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// checkFilter validates one list filter value (decisions.md 4: wrong types are a 400).
func checkFilter(r *Resource, name, v string) (*Field, error) {
	f := r.Field(name)
	if f == nil || !f.Filter {
		return nil, unknownParam(r, name)
	}
	if p := textProblem(f, v); p != "" {
		return nil, store.BadRequest("filter %s %s", name, p)
	}
	var ok bool
	switch {
	case len(f.Enum) > 0:
		ok = slices.Contains(f.Enum, v)
	case f.Type == UUID:
		ok = isUUID(v)
	case f.Type == Bool:
		ok = v == "true" || v == "false"
	case f.Type == Int:
		_, err := strconv.ParseInt(v, 10, intBits(f))
		ok = err == nil
	case f.Type == Date:
		ok = isDate(v)
	default:
		ok = true
	}
	if !ok {
		return nil, store.BadRequest("filter %s must be %s, got %q", name, typeName(f), clip(v))
	}
	return f, nil
}

func unknownParam(r *Resource, name string) error {
	filters := fieldNames(r.Filters())
	valid := "limit, cursor, updated_since, order"
	if len(filters) > 0 {
		valid = strings.Join(filters, ", ") + ", " + valid
	}
	return store.BadRequest("unknown query parameter %q for %s; valid parameters: %s", name, r.Name, valid)
}
