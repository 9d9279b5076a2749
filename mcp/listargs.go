package mcp

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/workspace"
)

// List tools' arguments fill workspace.ListParams directly: no
// query string in between; the operation layer checks them as it checks REST's.

// condition is one item of a list tool's where argument.
type condition struct {
	Field string          `json:"field"`
	Op    string          `json:"op"`
	Value json.RawMessage `json:"value"`
}

// typed is the condition as the list takes it, its values as sent: in's array items each a
// value (a comma in one stays in it), a string given to in comma-separated as REST's query
// carries it, and any other operator's one value as text.
func (c condition) typed() (workspace.Condition, error) {
	cond := workspace.Condition{Field: c.Field, Op: workspace.Operator(c.Op)}
	var list []json.RawMessage
	if json.Unmarshal(c.Value, &list) != nil {
		cond.Value = queryValue(c.Value)
		if cond.Op == workspace.OpIn {
			cond.Values = strings.Split(cond.Value, ",")
		}
		return cond, nil
	}
	if cond.Op != workspace.OpIn {
		return cond, apierr.BadRequest("where %.40s %.10s takes one value; only in takes an array, got %s", c.Field, c.Op, clipArg(c.Value))
	}
	cond.Values = make([]string, len(list))
	for i, item := range list {
		cond.Values[i] = queryValue(item)
	}
	return cond, nil
}

// listParams reads a list tool's arguments: limit, cursor, updated_since, order, q, sort,
// fields, ids, where (on id, a batch read as ids), and a field's name as an exact filter;
// any other name is refused, naming the arguments the tool lists. Without fields, a
// resource with a summary lists its summary.
func listParams(r *workspace.Resource, args map[string]json.RawMessage) (workspace.ListParams, error) {
	params := workspace.ListParams{Filters: map[string]string{}}
	var err error
	for k, v := range args {
		switch k {
		case "limit":
			n, perr := strconv.Atoi(queryValue(v))
			if perr != nil || n < 1 {
				return params, workspace.BadLimit(workspace.MaxLimit, workspace.DefaultLimit, clipArg(v))
			}
			params.Limit = n
		case "cursor":
			err = decodeArg(k, v, &params.Cursor)
		case "updated_since":
			params.UpdatedSince, err = workspace.ParseUpdatedSince(queryValue(v))
		case "order":
			params.Order, err = workspace.ParseOrder(queryValue(v))
		case "q":
			err = decodeArg(k, v, &params.Q)
		case "sort":
			err = decodeArg(k, v, &params.Sort)
		case "fields": // comma-separated as REST's, or an array
			var s string
			if json.Unmarshal(v, &s) == nil {
				params.Fields = strings.Split(s, ",")
			} else {
				err = decodeArg(k, v, &params.Fields)
			}
		case "ids":
			err = decodeArg(k, v, &params.IDs)
		case "where":
			var where []condition
			if err = decodeArg(k, v, &where); err == nil {
				for _, c := range where {
					cond, cerr := c.typed()
					if cerr != nil {
						return params, cerr
					}
					if c.Field == "id" { // a batch read: REST's ids=
						if cond.Op != workspace.OpIn && cond.Op != workspace.OpEq {
							return params, apierr.BadRequest("where on id takes the operators in (up to %d ids) and eq, got %q", workspace.MaxIDs, c.Op)
						}
						if cond.Op == workspace.OpEq {
							cond.Values = []string{cond.Value}
						}
						params.IDs = append(slices.Clip(params.IDs), cond.Values...)
						if params.IDs == nil {
							params.IDs = []string{} // asked for none: refused as ids= is
						}
						continue
					}
					params.Where = append(params.Where, cond)
				}
			}
		default:
			if r.FilterField(k) == nil {
				return params, unknownArg(r, k)
			}
			params.Filters[k] = queryValue(v)
		}
		if err != nil {
			return params, err
		}
	}
	if params.Fields == nil {
		params.Fields = r.Summary()
	}
	return params, nil
}

// unknownArg refuses an argument name a list tool does not take, naming those its input
// schema lists (the operation layer's message names REST's query parameters).
func unknownArg(r *workspace.Resource, name string) error {
	msg := strings.Join(slices.Sorted(maps.Keys(listProperties(r))), ", ")
	var filters []string
	for _, f := range r.Filters() {
		filters = append(filters, f.Name)
	}
	if len(filters) > 0 {
		msg += " (and, as exact filters, " + strings.Join(filters, ", ") + ")"
	}
	return apierr.BadRequest("unknown argument %.60q for list_%s; it takes %s", name, r.Name, msg)
}

// decodeArg reads one argument into its Go type, or says what it must be.
func decodeArg(name string, v json.RawMessage, into any) error {
	if json.Unmarshal(v, into) == nil {
		return nil
	}
	return badArg(name, reflect.TypeOf(into).Elem(), v)
}

// argWants says what an argument must be where its Go type says too little.
var argWants = map[string]string{"where": "an array of {field, op, value} objects", "fields": "comma-separated field names",
	"ids": "an array of uuid strings", "types": `an array of resource names such as ["deals","people"]`}

// badArg is the bad_request of an argument v that is not of its Go type t: what it must
// be, and what it was.
func badArg(name string, t reflect.Type, v json.RawMessage) error {
	want := argWants[name]
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case want != "":
	case t.Kind() == reflect.Int:
		want = "an integer"
	default:
		want = "a string"
	}
	return apierr.BadRequest("%s must be %s, got %s", name, want, clipArg(v))
}

func clipArg(v json.RawMessage) string {
	if len(v) > 60 {
		return string(v[:60]) + "..."
	}
	return string(v)
}

// findProperties are a list tool's finding arguments: q where the resource has text, sort
// on its sortable fields, fields and ids where get_ describes its records, and where over
// its fields taking operators. Field names are patterns rather than enums, and operators
// and their meaning are said once in the server instructions: every byte of tools/list is
// paid on every turn, and the default list stays within 24 KB (docs/mcp.md).
func findProperties(r *workspace.Resource, props map[string]*jsonschema.Schema) {
	if len(r.Searchable()) > 0 {
		props["q"] = typed("string")
	}
	if sorts := r.SortFields(); len(sorts) > 0 {
		props["sort"] = &jsonschema.Schema{Type: "string", Pattern: "^-?(" + strings.Join(sorts, "|") + ")$"}
	}
	var fields []string
	if r.CanGet() {
		props["fields"] = typed("string")
		fields = append(fields, "id") // where id in: a batch read
	}
	for _, f := range r.OpFields() {
		fields = append(fields, f.Name)
	}
	if len(fields) > 0 {
		props["where"] = &jsonschema.Schema{Type: "array", MaxItems: jsonschema.Ptr(workspace.MaxWhere), Items: object(map[string]*jsonschema.Schema{
			"field": {Type: "string", Pattern: "^(" + strings.Join(fields, "|") + ")$"},
			"op":    {Enum: whereOps(r)},
			"value": {AnyOf: []*jsonschema.Schema{typed("string"), {Type: "array", Items: typed("string")}}},
		}, "field", "op", "value")}
	}
}

// whereOps are the operators a where item's op names, in the order messages name them:
// those some field of r takes, and in, which ids take.
func whereOps(r *workspace.Resource) []any {
	var ops []any
	for _, o := range workspace.Operators() {
		if o == workspace.OpIn && r.CanGet() || slices.ContainsFunc(r.OpFields(), func(f *workspace.Field) bool { return slices.Contains(f.Operators(), o) }) {
			ops = append(ops, string(o))
		}
	}
	return ops
}
