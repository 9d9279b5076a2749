package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agencyos/workspaced/apierr"
)

// MaxBody is the largest request body accepted (docs/decisions.md 4).
const MaxBody = 1 << 20

// DecodeObject parses a request body that must be one JSON object into its members, kept
// raw so that an absent key and a zero value stay different. Anything else (malformed JSON,
// an array, a scalar, null, trailing data) is a 400 bad_request.
func DecodeObject(body []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(body)
	if !utf8.Valid(trimmed) {
		return nil, apierr.BadRequest("the request body is not valid UTF-8; send JSON encoded as UTF-8")
	}
	if len(trimmed) == 0 {
		return nil, apierr.BadRequest("the request body is empty; send a JSON object such as {\"name\": \"...\"}")
	}
	if trimmed[0] != '{' {
		return nil, apierr.BadRequest("the request body must be a JSON object ({...}), not %s", jsonKind(trimmed))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return nil, apierr.BadRequest("the request body is not valid JSON: %v", err)
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

// assignment is one validated column of a write.
type assignment struct {
	field *Field
	value value
}

// checkBody validates a create (create = true) or update body against the resource's
// writable fields. Unknown keys and non-writable fields are ignored (docs/contract.md section 2.2). It returns
// a 422 validation_error naming every bad field.
func checkBody(r *Resource, body map[string]json.RawMessage, create bool) ([]assignment, error) {
	var out []assignment
	var bad []apierr.FieldError
	for i := range r.Fields {
		f := &r.Fields[i]
		if !f.Writable {
			continue
		}
		raw, ok := body[f.Name]
		if !ok {
			if create && f.Required {
				bad = append(bad, apierr.FieldError{Field: f.Name, Problem: "is required (" + describe(f) + ")"})
			}
			continue
		}
		v, problem := checkValue(f, raw)
		if problem != "" {
			bad = append(bad, apierr.FieldError{Field: f.Name, Problem: problem})
			continue
		}
		out = append(out, assignment{field: f, value: v})
	}
	if len(bad) > 0 {
		return nil, validationError(r, bad)
	}
	if !create && len(out) == 0 {
		return nil, &apierr.Error{Code: apierr.CodeValidation,
			Message: fmt.Sprintf("the body has no writable field of %s; send at least one of: %s",
				r.Name, strings.Join(fieldNames(r.Writable()), ", ")),
			Fields: []apierr.FieldError{}}
	}
	return out, nil
}

func validationError(r *Resource, bad []apierr.FieldError) *apierr.Error {
	parts := make([]string, len(bad))
	for i, b := range bad {
		parts[i] = b.Field + " " + b.Problem
	}
	return &apierr.Error{Code: apierr.CodeValidation,
		Message: fmt.Sprintf("fix these fields of %s: %s", r.Name, strings.Join(parts, "; ")), Fields: bad}
}

func fieldNames(fs []Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}
