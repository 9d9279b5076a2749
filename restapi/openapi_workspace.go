package restapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// A workspace's OpenAPI document (docs/rest.md, "Custom fields"): GET
// /openapi.json?workspace=current, with the caller's credentials, is the document the
// catalogue makes with the custom fields of the caller's workspace typed where the generic
// document has an open custom_fields object: in each record, create and update body, as
// list filters custom_fields.<key>[op] and as sort values. Only the fields of resources the
// caller may list appear (workspace.Ops.WorkspaceCustomFields), never archived ones.

// workspaceParam is the query parameter that asks for the caller's workspace's document.
const workspaceParam = "workspace"

// workspaceOpenAPI answers ?workspace=current behind the API's authentication (401 in the
// error envelope without a credential, the rate limits charged as for any call).
func (a *API) workspaceOpenAPI(w http.ResponseWriter, r *http.Request) error {
	if v := r.URL.Query()[workspaceParam]; len(v) != 1 || v[0] != "current" {
		return apierr.BadRequest("%s takes one value, current (the caller's workspace), got %.40q", workspaceParam, strings.Join(v, ","))
	}
	p := httpx.PrincipalFrom(r.Context())
	defs, err := a.ops.WorkspaceCustomFields(r.Context(), p)
	if err != nil {
		return err
	}
	doc := openAPIDoc()
	addCustomFields(doc, defs)
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	// The caller's own: never kept by a shared cache, revalidated by the client.
	w.Header().Set("Cache-Control", "private, no-cache")
	w.Header().Set("Vary", "Authorization")
	httpx.WriteRaw(w, http.StatusOK, b)
	return nil
}

// addCustomFields types each resource's custom_fields in doc with its definitions.
func addCustomFields(doc obj, defs map[string][]workspace.CustomField) {
	schemas := doc["components"].(obj)["schemas"].(obj)
	paths := doc["paths"].(obj)
	for _, name := range workspace.CustomResources() {
		fields := defs[name]
		if len(fields) == 0 {
			continue
		}
		for suffix, mode := range map[string]int{"": 0, "_fields": 0, "_create": 1, "_update": 2} {
			s, ok := schemas[name+suffix].(obj)
			if !ok {
				continue
			}
			s["properties"].(obj)[workspace.CustomValuesField] = customObject(name, fields, mode)
		}
		if list, ok := paths["/"+name].(obj)["get"].(obj); ok {
			list["parameters"] = customParams(list["parameters"].([]any), fields)
		}
	}
}

// customObject is custom_fields in a record (mode 0: the keys that hold a value), a
// create body (1: required fields required) or an update body (2: null clears a key).
func customObject(resource string, fields []workspace.CustomField, mode int) obj {
	props := obj{}
	var required []string
	for i := range fields {
		f := &fields[i]
		props[f.Key] = f.Schema(workspace.OpenAPIDialect)
		if mode == 1 && f.Required {
			required = append(required, f.Key)
		}
	}
	desc := "this workspace's own fields of " + resource + " by key (GET /v1/custom_fields?resource=" + resource + ")"
	if mode == 2 {
		desc += "; keys not sent keep their values, a key with null clears it"
	}
	s := obj{"type": "object", "description": desc, "properties": props, "additionalProperties": false}
	if mode == 0 {
		s["type"] = []string{"object", "null"}
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// customParams adds each field's filters, custom_fields.<key> (exact) and
// custom_fields.<key>[op] for every operator it takes, and narrows sort to the built-in
// and custom values there are.
func customParams(params []any, fields []workspace.CustomField) []any {
	var sorts []any
	for i := range fields {
		f := &fields[i]
		if f.Sortable() {
			sorts = append(sorts, f.Path(), "-"+f.Path())
		}
		ops := f.Operators()
		if slices.Contains(ops, workspace.OpEq) {
			params = append(params, obj{"name": f.Path(), "in": "query", "required": false,
				"description": f.Label + ": exact match", "schema": filterValue(f, workspace.OpEq)})
		}
		for _, op := range ops {
			params = append(params, obj{"name": f.Path() + "[" + string(op) + "]", "in": "query", "required": false,
				"description": f.Label + ": " + opDoc[op], "schema": filterValue(f, op)})
		}
	}
	for _, p := range params {
		if p, ok := p.(obj); ok && p["name"] == "sort" {
			enum := p["schema"].(obj)["anyOf"].([]any)[0].(obj)["enum"].([]any)
			p["schema"] = obj{"type": "string", "enum": append(slices.Clip(enum), sorts...)}
		}
	}
	return params
}

// filterValue is the query value of op on f: text in the field's form (a select's options,
// a date's format), comma-separated text for in, a boolean for null.
func filterValue(f *workspace.CustomField, op workspace.Operator) *jsonschema.Schema {
	switch op {
	case workspace.OpIn:
		return &jsonschema.Schema{Type: "string"}
	case workspace.OpNull:
		return &jsonschema.Schema{Type: "boolean"}
	}
	s := f.Schema(workspace.OpenAPIDialect)
	switch {
	case f.Type == "multi_select":
		s = s.Items
	case f.Type == "money":
		return &jsonschema.Schema{Type: "number", Description: "the amount"}
	}
	out := &jsonschema.Schema{Type: s.Type, Format: s.Format, Minimum: s.Minimum, Maximum: s.Maximum, MaxLength: s.MaxLength}
	if len(s.Types) > 0 {
		out.Type = s.Types[0]
	}
	for _, v := range s.Enum {
		if v != nil {
			out.Enum = append(out.Enum, v)
		}
	}
	return out
}
