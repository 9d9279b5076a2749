package restapi

import (
	"fmt"
	"strings"

	"github.com/agencyos/workspaced/workspace"
)

// The OpenAPI side of finding records (docs/rest.md, "Finding records"): a list's q, sort,
// fields, ids and operator filters, each parameter derived from the catalogue's
// declarations (find.go).

// findParams are a list's finding parameters.
func findParams(r *workspace.Resource) []any {
	var params []any
	if len(r.Searchable()) > 0 {
		params = append(params, obj{"name": "q", "in": "query", "required": false,
			"description": "text search in " + strings.Join(r.Searchable(), ", ") + ": word prefixes, case and accents ignored" +
				typoNote(r) + "; best match first, then newest",
			"schema": obj{"type": "string", "minLength": 1, "maxLength": workspace.MaxQLen}, "example": "acme"})
	}
	if sorts := r.SortFields(); len(sorts) > 0 {
		var values []any
		for _, f := range sorts {
			values = append(values, f, "-"+f)
		}
		schema := obj{"type": "string", "enum": values}
		if r.Custom { // or a custom field: custom_fields.<key>
			schema = obj{"anyOf": []any{schema, obj{"type": "string", "pattern": `^-?custom_fields\.[a-z][a-z0-9_]{0,62}$`}}}
		}
		params = append(params, obj{"name": "sort", "in": "query", "required": false,
			"description": "sort by a field, ascending, or descending with -; ties by id; empty values last ascending, first descending",
			"schema":      schema})
	}
	params = append(params, fieldsParam(r),
		obj{"name": "ids", "in": "query", "required": false,
			"description": "comma-separated ids (at most 100): the ones you may see, in one request; others are absent",
			"schema":      obj{"type": "string", "minLength": 1}})
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
	workspace.OpContains: fmt.Sprintf("holds this text, case and accents ignored (at least %d letters or digits in a row)", workspace.MinContains),
}

// fieldsParam is fields=, on lists and gets.
func fieldsParam(r *workspace.Resource) obj {
	return obj{"name": "fields", "in": "query", "required": false,
		"description": "comma-separated fields to return (id always): " + strings.Join(workspace.Columns(r), ", "),
		"schema":      obj{"type": "string", "minLength": 1}, "example": "id,updated_at"}
}

// fieldsSchema is a list's or get's record: the fields asked for with fields=, all by default.
func fieldsSchema(r *workspace.Resource) obj {
	s := recordSchema(r)
	s["required"] = []string{"id"}
	s["description"] = r.Doc + " Lists and gets return the fields asked for with fields= (every field by default)."
	return s
}

// searchPath is GET /search and the schema of one result.
func searchPath() (path, hit obj) {
	hit = obj{"type": "object", "required": []string{"type", "id", "title", "snippet", "score"}, "additionalProperties": false,
		"properties": obj{"type": obj{"type": "string", "enum": workspace.SearchableTypes(), "description": "the resource"},
			"id": workspace.UUID.Schema(workspace.OpenAPIDialect), "title": obj{"type": "string"},
			"snippet": obj{"type": "string", "description": "the start of its other searchable text"},
			"score":   obj{"type": "number", "format": "float", "description": "relevance; higher is better"}}}
	params := []any{
		obj{"name": "q", "in": "query", "required": true, "description": "words or their beginnings; case and accents ignored, a typo forgiven in names",
			"schema": obj{"type": "string", "minLength": 1, "maxLength": workspace.MaxQLen}, "example": "acme"},
		obj{"name": "types", "in": "query", "required": false,
			"description": "comma-separated resources to search (default: every one you may read): " + strings.Join(workspace.SearchableTypes(), ", "),
			"schema":      obj{"type": "string", "minLength": 1}, "example": "deals,people"},
		obj{"name": "limit", "in": "query", "required": false, "description": "page size",
			"schema": obj{"type": "integer", "minimum": 1, "maximum": workspace.MaxSearchLimit, "default": workspace.DefaultSearchLimit}},
		obj{"name": "cursor", "in": "query", "required": false, "description": "next_cursor of the previous page, with the same q and types",
			"schema": obj{"type": "string"}}}
	path = obj{"get": obj{"operationId": "search", "summary": "Search every resource", "tags": []string{"search"},
		"description": "Searches every resource the credential may read (its read scopes and feature grants; row-level rules as for lists), best match first, then newest. Needs any valid credential.",
		"parameters":  params,
		"responses": errorResponses(obj{"200": obj{"description": "One page of results; complete when next_cursor is null.",
			"headers": responseHeaders(),
			"content": jsonContent(obj{"type": "object", "required": []string{"data", "next_cursor"}, "additionalProperties": false,
				"properties": obj{"data": obj{"type": "array", "items": ref("schemas", "search_hit")},
					"next_cursor": obj{"type": []any{"string", "null"}}}})}},
			"400", "401", "429", "500")}}
	return path, hit
}
