package restapi

import (
	"strings"

	"github.com/agencyos/workspaced/workspace"
)

// The OpenAPI side of finding records (issue 19): a list's q, sort, fields, ids and
// operator filters, each parameter derived from the catalogue's declarations (find.go).

// findParams are a list's finding parameters.
func findParams(r *workspace.Resource) []any {
	var params []any
	if len(r.Searchable()) > 0 {
		params = append(params, obj{"name": "q", "in": "query", "required": false,
			"description": "text search in " + strings.Join(r.Searchable(), ", ") + ": word prefixes, case and accents ignored" +
				typoNote(r) + "; best match first, then newest",
			"schema": obj{"type": "string", "maxLength": workspace.MaxQLen}, "example": "acme"})
	}
	if sorts := r.SortFields(); len(sorts) > 0 {
		var values []any
		for _, f := range sorts {
			values = append(values, f, "-"+f)
		}
		params = append(params, obj{"name": "sort", "in": "query", "required": false,
			"description": "sort by a field, ascending, or descending with -; ties by id; empty values last ascending, first descending",
			"schema":      obj{"type": "string", "enum": values}})
	}
	params = append(params,
		obj{"name": "fields", "in": "query", "required": false,
			"description": "comma-separated fields to return (id always): " + strings.Join(workspace.Columns(r), ", "),
			"schema":      obj{"type": "string"}, "example": "id,updated_at"},
		obj{"name": "ids", "in": "query", "required": false,
			"description": "comma-separated ids (at most 100): the ones you may see, in one request; others are absent",
			"schema":      obj{"type": "string"}})
	for _, f := range r.OpFields() {
		for _, op := range f.Operators() {
			s := f.Schema(workspace.OpenAPIDialect, false)
			switch op {
			case workspace.OpIn:
				s.Type, s.Types, s.Enum, s.Format, s.Minimum, s.Maximum, s.MaxLength = "string", nil, nil, "", nil, nil, nil
			case workspace.OpNull:
				s.Type, s.Types, s.Enum, s.Format, s.Minimum, s.Maximum, s.MaxLength = "boolean", nil, nil, "", nil, nil, nil
			}
			s.Description = opDoc[op]
			params = append(params, obj{"name": f.Name + "[" + string(op) + "]", "in": "query", "required": false,
				"description": opDoc[op], "schema": s})
		}
	}
	return params
}

func typoNote(r *workspace.Resource) string {
	if len(r.NameFields()) == 0 {
		return ""
	}
	return ", a typo forgiven in " + strings.Join(r.NameFields(), ", ")
}

// opDoc says what each operator keeps.
var opDoc = map[workspace.Operator]string{
	workspace.OpEq: "equal to", workspace.OpNe: "not equal to (empty values excluded)", workspace.OpLt: "less than", workspace.OpLte: "at most",
	workspace.OpGt: "greater than", workspace.OpGte: "at least", workspace.OpIn: "one of these comma-separated values (at most 100)",
	workspace.OpPrefix: "starts with (case-sensitive)", workspace.OpNull: "true: empty; false: set",
}

// fieldsSchema is a list's record: the fields asked for with fields=, all by default.
func fieldsSchema(r *workspace.Resource) obj {
	s := recordSchema(r)
	s["required"] = []string{"id"}
	s["description"] = r.Doc + " Lists return the fields asked for with fields= (every field by default)."
	return s
}
