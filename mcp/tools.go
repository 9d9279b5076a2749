package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// toolSpec is one generated tool and what calling it means.
type toolSpec struct {
	tool     mcpgo.Tool
	op       workspace.Op        // the operation on resource (REST's own enum)
	resource *workspace.Resource // nil for me, find_tools and call_tool
	scope    string              // "" for me, find_tools and call_tool: any valid credential
	toolset  string              // "" for the tools every selection shows
	merge    bool                // merge_<resource> (merge.go): op is OpUpdate, run by Ops.Merge
	// run answers find_tools and call_tool; nil runs the operation (Server.handler).
	run server.ToolHandlerFunc
	// terms are the weighed words find_tools matches (toolTerms), computed once.
	terms map[string]int
}

// write reports whether the tool changes workspace data (what a readonly view hides).
func (sp toolSpec) write() bool {
	return sp.resource != nil && sp.op.Write() || sp.tool.Name == toolImport
}

// is reports whether the tool runs op on a catalogue resource.
func (sp toolSpec) is(op workspace.Op) bool { return sp.resource != nil && sp.op == op }

// Names of the tools that are not verb_resource of a catalogue entry.
const (
	toolMe     = "me"
	toolEnrich = "enrich_company"
)

// buildTools derives one tool per operation of every catalogue resource, plus me
// (docs/decisions.md 8), in catalogue order; each carries its resource's toolset.
func buildTools(catalog []*workspace.Resource) ([]toolSpec, error) {
	specs := []toolSpec{meTool()}
	for _, r := range catalog {
		var ops []toolSpec
		if r.CanList() {
			ops = append(ops, listTool(r))
		}
		if r.CanGet() {
			ops = append(ops, getTool(r))
		}
		if r.CanCreate() {
			ops = append(ops, createTool(r))
		}
		if r.CanUpdate() {
			ops = append(ops, updateTool(r))
		}
		if r.CanDetach() {
			ops = append(ops, detachTool(r))
		}
		for _, sp := range ops {
			sp.toolset = r.Toolset()
			specs = append(specs, sp)
		}
		if r.Mergeable {
			specs = append(specs, mergeTool(r))
		}
	}
	for i := range specs {
		specs[i].terms = toolTerms(specs[i])
	}
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.tool.Name] {
			return nil, fmt.Errorf("mcp: two tools named %s", s.tool.Name)
		}
		seen[s.tool.Name] = true
	}
	return specs, nil
}

// hints builds the annotations every tool carries. openWorldHint defaults to true (MCP
// schema, ToolAnnotations), so it is always spelled; so is destructiveHint, also true by
// default, on tools that write. destructiveHint and idempotentHint mean something only
// when readOnlyHint is false (the same schema), so a read-only tool spells neither: every
// byte of tools/list is paid on every turn. idempotentHint defaults to false and is
// spelled only when true. The title is the tool's own title member, not repeated here.
func hints(readOnly, idempotent, openWorld bool) mcpgo.ToolAnnotation {
	a := mcpgo.ToolAnnotation{OpenWorldHint: &openWorld}
	if readOnly {
		a.ReadOnlyHint = &readOnly
		return a
	}
	a.DestructiveHint = new(false)
	if idempotent {
		a.IdempotentHint = &idempotent
	}
	return a
}

// newTool builds a tool; output nil means the result is free-form (call_tool relays
// whichever tool it ran). Tools carry no title: verb_resource names read as well in a
// client's list, and a title on each of them would be repetition paid on every turn.
func newTool(name, description string, input, output *jsonschema.Schema, a mcpgo.ToolAnnotation) mcpgo.Tool {
	t := mcpgo.Tool{Name: name, Description: description, RawInputSchema: mustJSON(input), Annotations: a}
	if output != nil {
		t.RawOutputSchema = mustJSON(output)
	}
	return t
}

// mustJSON is a schema's JSON with its keys sorted, as for a map: the order stays stable
// whatever order the schema type declares its keywords in.
func mustJSON(s *jsonschema.Schema) json.RawMessage {
	b, err := json.Marshal(s)
	if err == nil {
		var v any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err = dec.Decode(&v); err == nil {
			b, err = json.Marshal(v)
		}
	}
	if err != nil {
		panic(err) // schemas built here from strings, numbers and booleans always marshal
	}
	return b
}

// human turns deal_people into "deal people".
func human(name string) string { return strings.ReplaceAll(name, "_", " ") }

func meTool() toolSpec {
	output := outline(workspace.MeSchema())
	return toolSpec{tool: newTool(toolMe, "The member (or agent) this connection acts as, its workspace, feature grants ("+store.GrantLevelsText()+") "+
		"and scopes. Reads no workspace data; call it first to learn which tools will succeed.",
		typed("object"), output, hints(true, true, false))}
}

// listProperties are the arguments a list tool lists. Exact filters, order and
// updated_since are accepted as before (listargs.go) but not listed: where, sort and q say
// all of it once, within the default's 24 KB. So its input does not close the object as
// input does: a name it does not list may still be one it takes, and any other is
// refused naming those it lists (unknownArg).
func listProperties(r *workspace.Resource) map[string]*jsonschema.Schema {
	props := map[string]*jsonschema.Schema{}
	props["limit"] = &jsonschema.Schema{Type: "integer", Maximum: jsonschema.Ptr(float64(workspace.MaxLimit))} // 1 to: instructions
	findProperties(r, props)
	if r.Paged {
		props["cursor"] = typed("string")
	}
	return props
}

func listTool(r *workspace.Resource) toolSpec {
	props := listProperties(r)
	var b strings.Builder
	fmt.Fprintf(&b, "List %s. %s", human(r.Name), r.Doc)
	if !r.Paged {
		b.WriteString(" One page, next_cursor null.")
	}
	return toolSpec{op: workspace.OpList, resource: r, scope: r.ReadScope(),
		tool: newTool("list_"+r.Name, b.String(), object(props), pageSchema(listItem(r)), hints(true, true, false))}
}

func getTool(r *workspace.Resource) toolSpec {
	desc := fmt.Sprintf("Get one %s record by id. %s", human(r.Name), r.Doc)
	if r.CanList() {
		desc = fmt.Sprintf("Get one %s record by id (see list_%s).", human(r.Name), r.Name)
	}
	args := input(map[string]*jsonschema.Schema{"id": workspace.UUID.Schema(workspace.ToolDialect)}, "id")
	return toolSpec{op: workspace.OpGet, resource: r, scope: r.ReadScope(),
		tool: newTool("get_"+r.Name, desc, args, recordSchema(r), hints(true, true, false))}
}

func createTool(r *workspace.Resource) toolSpec {
	props := map[string]*jsonschema.Schema{}
	var required []string
	for _, f := range r.Writable() {
		if f.Name == workspace.CustomValuesField {
			continue // typed per workspace (customtools.go)
		}
		props[f.Name] = inputProperty(f)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	props[idempotencyKeyArg] = idempotencyKeyProperty()
	if r.Access == workspace.WriteOnly {
		return enrichTool(r, props, required)
	}
	desc := fmt.Sprintf("Create a %s record (see list_%s); returns it.", human(r.Name), r.Name)
	return toolSpec{op: workspace.OpCreate, resource: r, scope: r.WriteScope(),
		tool: newTool("create_"+r.Name, desc, input(props, required...), typed("object"),
			hints(false, false, false))}
}

func enrichTool(r *workspace.Resource, props map[string]*jsonschema.Schema, required []string) toolSpec {
	output := outline(workspace.EnrichSchema())
	desc := "Look up a company's firmographics by its domain: name, website, industry and social profiles " +
		"(linkedin, twitter, instagram, facebook), read from public sources. A fresh lookup spends workspace " +
		"credits; the same domain looked up again within 30 days is served from cache for free. Fails with " +
		"insufficient_credits when the balance is too low (see list_credits), validation_error when the domain " +
		"is not a valid hostname."
	props[confirmArg] = confirmProperty()
	return toolSpec{op: workspace.OpCreate, resource: r, scope: r.WriteScope(),
		tool: newTool(toolEnrich, desc, input(props, required...), output,
			hints(false, false, true))}
}

func updateTool(r *workspace.Resource) toolSpec {
	props := map[string]*jsonschema.Schema{}
	for _, f := range r.Writable() {
		if f.Name == workspace.CustomValuesField {
			continue // typed per workspace (customtools.go)
		}
		p := inputProperty(f)
		if r.CanCreate() {
			p.Description = "" // create_ describes the field, beside it in every list
		}
		props[f.Name] = p
	}
	props["id"] = workspace.UUID.Schema(workspace.ToolDialect)
	var required []string
	idNote := ""
	if r.Access == workspace.Singleton {
		idNote = " (id optional: there is one)"
	} else {
		required = []string{"id"}
	}
	desc := fmt.Sprintf("Update a %s record by id%s; fields not sent keep their values. %s",
		human(r.Name), idNote, r.Doc)
	if r.CanCreate() {
		desc = fmt.Sprintf("Update a %s record by id; fields not sent keep their values (see create_%s).",
			human(r.Name), r.Name)
	}
	return toolSpec{op: workspace.OpUpdate, resource: r, scope: r.WriteScope(),
		tool: newTool("update_"+r.Name, desc, input(props, required...), typed("object"),
			hints(false, true, false))}
}

func detachTool(r *workspace.Resource) toolSpec {
	a, b := r.DetachKeys[0], r.DetachKeys[1]
	props := map[string]*jsonschema.Schema{}
	for _, k := range r.DetachKeys {
		props[k] = inputProperty(*r.Field(k))
	}
	props[idempotencyKeyArg] = idempotencyKeyProperty()
	props[confirmArg] = confirmProperty()
	desc := fmt.Sprintf("Unlink %s from %s (a %s record); both records stay. not_found if not linked.",
		b, a, human(r.Name))
	output := object(map[string]*jsonschema.Schema{a: typed("string"), b: typed("string"), "detached": typed("boolean")}, a, b, "detached")
	return toolSpec{op: workspace.OpDetach, resource: r, scope: r.WriteScope(),
		tool: newTool("detach_"+r.Name, desc, input(props, a, b), output, hints(false, false, false))}
}

// input is a tool's arguments schema: an object that refuses unknown members, so models are
// steered to the catalogue's fields (the operation layer still decides, as for REST).
func input(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	s := object(props, required...)
	s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}} // false
	return s
}

// object is a JSON Schema object.
func object(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	if props == nil {
		props = map[string]*jsonschema.Schema{}
	}
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

// outline is a response schema stated once in workspace (MeSchema, EnrichSchema) as a
// tool's output schema says it: each property's type alone, and a nested object's
// properties named in its description rather than spelled out; no formats, enums,
// descriptions, examples or closing. Every byte of tools/list is paid on every turn and
// me is in the default list, which stays within 24 KB (docs/mcp.md).
func outline(s *jsonschema.Schema) *jsonschema.Schema {
	out := object(map[string]*jsonschema.Schema{}, s.Required...)
	for name, p := range s.Properties {
		out.Properties[name] = outlineValue(p)
	}
	return out
}

func outlineValue(p *jsonschema.Schema) *jsonschema.Schema {
	switch {
	case p.AnyOf != nil: // null admitted, in the tool dialect
		var alts []*jsonschema.Schema
		for _, a := range p.AnyOf {
			alts = append(alts, outlineValue(a))
		}
		return &jsonschema.Schema{AnyOf: alts}
	case p.Type == "object" && len(p.Properties) > 0:
		names := p.PropertyOrder
		if names == nil {
			names = slices.Sorted(maps.Keys(p.Properties))
		}
		return &jsonschema.Schema{Type: "object", Description: strings.Join(names, ", ")}
	case p.Type == "array" && p.Items != nil:
		return &jsonschema.Schema{Type: "array", Items: outlineValue(p.Items)}
	}
	return &jsonschema.Schema{Type: p.Type, Types: p.Types}
}

func typed(t string) *jsonschema.Schema { return &jsonschema.Schema{Type: t} }

// nullable is a value of type t or null, spelled with anyOf (workspace.ToolDialect says why).
func nullable(t string) *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{typed(t), typed("null")}}
}

// idempotencyKeyProperty is the optional idempotency_key argument of create, detach and
// enrich tools; its meaning is spelled out once, in the server instructions.
func idempotencyKeyProperty() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(workspace.MaxIdempotencyKey),
		Description: "optional retry key (see instructions)"}
}

// confirmProperty is the optional confirmation argument of the calls that ask the user
// first (confirm.go); the instructions say how it is used.
func confirmProperty() *jsonschema.Schema {
	return typed("string")
}

// inputProperty is a field's schema in tool arguments (docs/decisions.md 4 fixes the formats).
func inputProperty(f workspace.Field) *jsonschema.Schema {
	return f.Schema(workspace.ToolDialect, false)
}

// pageSchema is a list's result, {data, next_cursor}: the instructions say both are always
// there and what the records are; items, where not nil, describes them.
func pageSchema(items *jsonschema.Schema) *jsonschema.Schema {
	return object(map[string]*jsonschema.Schema{"data": {Type: "array", Items: items}, "next_cursor": nullable("string")})
}

// listItem is a list's record where no get_ describes it in full (nil where get_ does), so a
// resource's columns are spelled once in tools/list (in get_, or here for resources
// without get_) rather than in each of its tools; create_ and update_ return the same
// record.
func listItem(r *workspace.Resource) *jsonschema.Schema {
	if !r.CanGet() {
		return recordSchema(r)
	}
	return nil
}

// recordSchema describes a record as the API returns it: every column (each present, any
// may be null) plus id, created_at and updated_at; server-owned columns may follow. Where
// create_ exists its input schema already types the writable columns (the instructions
// say so), so here they are only required; the other columns are typed. Formats are left
// to the input schemas to keep tools/list small.
func recordSchema(r *workspace.Resource) *jsonschema.Schema {
	props := map[string]*jsonschema.Schema{"id": typed("string"), "created_at": typed("string"), "updated_at": typed("string")}
	required := []string{"id", "created_at", "updated_at"}
	for _, f := range r.Fields {
		if f.Name == workspace.CustomValuesField {
			continue // required per workspace, where it has fields (customtools.go)
		}
		if f.Name == workspace.MergedIntoField {
			continue // the merge mark, which may follow, is null on every record a list answers
		}
		required = append(required, f.Name)
		if f.Writable && r.CanCreate() {
			continue
		}
		props[f.Name] = f.Outline()
	}
	return object(props, required...)
}
