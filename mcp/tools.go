package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/restapi"
)

// toolSpec is one generated tool and what calling it means.
type toolSpec struct {
	tool     mcpgo.Tool
	kind     Kind
	resource *restapi.Resource // nil for me
	scope    string            // "" for me: any valid credential
}

// Names of the two tools that are not verb_resource of a catalogue entry.
const (
	toolMe     = "me"
	toolEnrich = "enrich_company"
)

// maxLimit is the page size bound of service-spec.md 8.
const maxLimit = 200

// buildTools derives one tool per operation of every catalogue resource, plus me
// (decisions.md 8), in catalogue order.
func buildTools(catalog []*restapi.Resource) ([]toolSpec, error) {
	specs := []toolSpec{meTool()}
	for _, r := range catalog {
		if r.CanList() {
			specs = append(specs, listTool(r))
		}
		if r.CanGet() {
			specs = append(specs, getTool(r))
		}
		if r.CanCreate() {
			specs = append(specs, createTool(r))
		}
		if r.CanUpdate() {
			specs = append(specs, updateTool(r))
		}
		if r.CanDetach() {
			specs = append(specs, detachTool(r))
		}
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

// hints builds the annotations every tool carries, all four hints explicit.
func hints(title string, readOnly, idempotent, openWorld bool) mcpgo.ToolAnnotation {
	return mcpgo.ToolAnnotation{Title: title, ReadOnlyHint: &readOnly, DestructiveHint: new(false),
		IdempotentHint: &idempotent, OpenWorldHint: &openWorld}
}

func newTool(name, title, description string, input, output map[string]any, a mcpgo.ToolAnnotation) mcpgo.Tool {
	return mcpgo.Tool{Name: name, Title: title, Description: description,
		RawInputSchema: mustJSON(input), RawOutputSchema: mustJSON(output), Annotations: a}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings, numbers and booleans always marshal
	}
	return b
}

// human turns deal_people into "deal people".
func human(name string) string { return strings.ReplaceAll(name, "_", " ") }

// gates says what a call needs besides the scope, in words a model can act on.
func gates(r *restapi.Resource, write bool) string {
	var parts []string
	if r.Feature != restapi.NoFeature {
		if write {
			parts = append(parts, fmt.Sprintf("the member's %s feature grant at full", r.Feature))
		} else {
			parts = append(parts, fmt.Sprintf("the member's %s feature grant (read or full)", r.Feature))
		}
	}
	if write && r.AdminWrites {
		parts = append(parts, "the admin role")
	}
	if write && r.SelfOrAdmin {
		parts = append(parts, "the admin role to change anyone but yourself")
	}
	if len(parts) == 0 {
		return ""
	}
	return " and " + strings.Join(parts, " and ")
}

func meTool() toolSpec {
	output := object(map[string]any{
		"user": map[string]any{"type": "object", "description": "the member or agent user: id, email, display_name, role, is_agent, grants"},
		"workspace": map[string]any{"type": "object", "description": "the workspace: id and name",
			"properties": map[string]any{"id": uuidOut(), "name": typed("string")}},
		"scopes":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"credential": map[string]any{"type": "object", "description": "type (oauth or agent_key), client_id, expires_at"},
	}, "user", "workspace", "scopes", "credential")
	return toolSpec{kind: KindMe, tool: newTool(toolMe, "Who am I",
		"Describe the credential this connection uses: the member (or agent) it acts as, its workspace, "+
			"its feature grants (crm, hr, finance, metrics, competitors, agents: none, read or full) and its "+
			"scopes. Reads no workspace data. Call it first to learn which tools will succeed: a tool needs "+
			"its scope and, for feature resources, the matching grant.",
		input(nil), output, hints("Who am I", true, true, false))}
}

func listTool(r *restapi.Resource) toolSpec {
	props := map[string]any{}
	var names []string
	for _, f := range r.Filters() {
		props[f.Name] = inputProperty(f)
		names = append(names, f.Name)
	}
	props["limit"] = map[string]any{"type": "integer", "minimum": 1, "maximum": maxLimit, "default": 50}
	var b strings.Builder
	fmt.Fprintf(&b, "List %s, newest first. %s ", human(r.Name), r.Doc)
	if len(names) > 0 {
		fmt.Fprintf(&b, "Exact-match filters: %s. ", strings.Join(names, ", "))
	}
	if r.Paged {
		props["cursor"] = map[string]any{"type": "string", "description": "next_cursor of the previous page"}
		b.WriteString("Returns {data, next_cursor}; while next_cursor is not null, call again with the same filters " +
			"and cursor=next_cursor. ")
	} else {
		b.WriteString("Returns one page of at most limit records, next_cursor null. ")
	}
	fmt.Fprintf(&b, "Needs the %s scope%s.", r.ReadScope(), gates(r, false))
	output := object(map[string]any{
		"data":        map[string]any{"type": "array", "items": recordSchema(r)},
		"next_cursor": map[string]any{"type": []string{"string", "null"}},
	}, "data", "next_cursor")
	title := "List " + human(r.Name)
	return toolSpec{kind: KindList, resource: r, scope: r.ReadScope(),
		tool: newTool("list_"+r.Name, title, b.String(), input(props), output, hints(title, true, true, false))}
}

func getTool(r *restapi.Resource) toolSpec {
	desc := fmt.Sprintf("Get one record of %s by id. %s Returns the record; not_found when it does not exist "+
		"or is hidden from you. Needs the %s scope%s.",
		human(r.Name), r.Doc, r.ReadScope(), gates(r, false))
	title := "Get " + human(r.Name)
	args := input(map[string]any{"id": idProperty(r)}, "id")
	return toolSpec{kind: KindGet, resource: r, scope: r.ReadScope(),
		tool: newTool("get_"+r.Name, title, desc, args, recordSchema(r), hints(title, true, true, false))}
}

func createTool(r *restapi.Resource) toolSpec {
	props := map[string]any{}
	var required []string
	for _, f := range r.Writable() {
		props[f.Name] = inputProperty(f)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	if r.Access == restapi.WriteOnly {
		return enrichTool(r, props, required)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Create a record in %s. %s ", human(r.Name), r.Doc)
	if len(required) > 0 {
		fmt.Fprintf(&b, "Required: %s. ", strings.Join(required, ", "))
	}
	b.WriteString("Returns the created record. ")
	fmt.Fprintf(&b, "Needs the %s scope%s.", r.WriteScope(), gates(r, true))
	title := "Create " + human(r.Name)
	return toolSpec{kind: KindCreate, resource: r, scope: r.WriteScope(),
		tool: newTool("create_"+r.Name, title, b.String(), input(props, required...), recordSchema(r),
			hints(title, false, false, false))}
}

func enrichTool(r *restapi.Resource, props map[string]any, required []string) toolSpec {
	output := object(map[string]any{
		"domain":            typed("string"),
		"name":              nullable("string"),
		"website":           nullable("string"),
		"industry":          nullable("string"),
		"socials":           map[string]any{"type": []string{"object", "null"}, "description": "linkedin, twitter, instagram, facebook"},
		"cached":            map[string]any{"type": "boolean", "description": "served from the 30-day cache, free"},
		"credits_spent":     typed("integer"),
		"credits_remaining": typed("integer"),
	})
	desc := "Look up a company's firmographics by its domain: name, website, industry and social profiles " +
		"(linkedin, twitter, instagram, facebook), read from public sources. A fresh lookup spends workspace " +
		"credits; the same domain looked up again within 30 days is served from cache for free. Fails with " +
		"insufficient_credits when the balance is too low (see list_credits), validation_error when the domain " +
		"is not a valid hostname. Needs the " + r.WriteScope() + " scope."
	return toolSpec{kind: KindCreate, resource: r, scope: r.WriteScope(),
		tool: newTool(toolEnrich, "Enrich company", desc, input(props, required...), output,
			hints("Enrich company", false, false, true))}
}

func updateTool(r *restapi.Resource) toolSpec {
	props := map[string]any{}
	for _, f := range r.Writable() {
		props[f.Name] = inputProperty(f)
	}
	props["id"] = idProperty(r)
	var required []string
	idNote := ""
	if r.Access == restapi.Singleton {
		idNote = " id may be omitted: there is one."
	} else {
		required = []string{"id"}
	}
	desc := fmt.Sprintf("Update a record of %s by id.%s %s Send only the fields to change; the others keep "+
		"their values. Returns the updated record. Needs the %s scope%s.",
		human(r.Name), idNote, r.Doc, r.WriteScope(), gates(r, true))
	title := "Update " + human(r.Name)
	return toolSpec{kind: KindUpdate, resource: r, scope: r.WriteScope(),
		tool: newTool("update_"+r.Name, title, desc, input(props, required...), recordSchema(r),
			hints(title, false, true, false))}
}

func detachTool(r *restapi.Resource) toolSpec {
	a, b := r.DetachKeys[0], r.DetachKeys[1]
	props := map[string]any{}
	for _, k := range r.DetachKeys {
		props[k] = inputProperty(*r.Field(k))
	}
	desc := fmt.Sprintf("Unlink a record of %s: the link between %s and %s is removed; the records it joined "+
		"stay. Returns {%s, %s, detached: true}; not_found when there is no such link. Needs the %s scope%s.",
		human(r.Name), a, b, a, b, r.WriteScope(), gates(r, true))
	output := object(map[string]any{a: uuidOut(), b: uuidOut(), "detached": typed("boolean")}, a, b, "detached")
	title := "Detach " + human(r.Name)
	return toolSpec{kind: KindDetach, resource: r, scope: r.WriteScope(),
		tool: newTool("detach_"+r.Name, title, desc, input(props, a, b), output, hints(title, false, false, false))}
}

// input is a tool's arguments schema: an object that refuses unknown members, so models are
// steered to the catalogue's fields (the operation layer still decides, as for REST).
func input(props map[string]any, required ...string) map[string]any {
	s := object(props, required...)
	s["additionalProperties"] = false
	return s
}

// object is a JSON Schema object.
func object(props map[string]any, required ...string) map[string]any {
	if props == nil {
		props = map[string]any{}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func typed(t string) map[string]any    { return map[string]any{"type": t} }
func nullable(t string) map[string]any { return map[string]any{"type": []string{t, "null"}} }
func uuidOut() map[string]any          { return map[string]any{"type": "string", "format": "uuid"} }

func idProperty(r *restapi.Resource) map[string]any {
	return map[string]any{"type": "string", "format": "uuid", "description": "the " + human(r.Name) + " record's id"}
}

// inputProperty is a field's schema in tool arguments (decisions.md 4 fixes the formats).
func inputProperty(f restapi.Field) map[string]any {
	p := map[string]any{}
	hint := ""
	switch f.Type {
	case restapi.String:
		p["type"], p["maxLength"] = "string", f.MaxLength()
	case restapi.UUID:
		p["type"], p["format"] = "string", "uuid"
	case restapi.Bool:
		p["type"] = "boolean"
	case restapi.Int:
		p["type"] = "integer"
	case restapi.Number:
		p["type"] = "number"
	case restapi.Date:
		p["type"], p["format"] = "string", "date"
		hint = "ISO date, e.g. 2026-01-31"
	case restapi.Time:
		p["type"], p["format"] = "string", "date-time"
		hint = "RFC 3339 timestamp"
	case restapi.JSON:
		hint = "any JSON value"
	case restapi.UUIDs:
		p["type"], p["items"] = "array", map[string]any{"type": "string", "format": "uuid"}
	case restapi.Strings:
		p["type"], p["items"] = "array", map[string]any{"type": "string", "maxLength": f.MaxLength()}
	}
	if len(f.Enum) > 0 {
		p["enum"] = f.Enum
	}
	if f.Min != nil {
		p["minimum"] = *f.Min
	}
	if f.Max != nil {
		p["maximum"] = *f.Max
	}
	if d := strings.TrimSpace(strings.Trim(f.Doc+"; "+hint, "; ")); d != "" {
		p["description"] = d
	}
	return p
}

// recordSchema describes a record as the API returns it: every column, any of which may be
// null, plus id, created_at and updated_at; server-owned columns may follow. Formats are
// left to the input schemas to keep tools/list small.
func recordSchema(r *restapi.Resource) map[string]any {
	props := map[string]any{"id": typed("string"), "created_at": typed("string"), "updated_at": typed("string")}
	for _, f := range r.Fields {
		var p map[string]any
		switch f.Type {
		case restapi.String, restapi.UUID, restapi.Date, restapi.Time:
			p = nullable("string")
		case restapi.Bool:
			p = nullable("boolean")
		case restapi.Int:
			p = nullable("integer")
		case restapi.Number:
			p = nullable("number")
		case restapi.JSON:
			p = map[string]any{}
		case restapi.UUIDs, restapi.Strings:
			p = nullable("array")
		}
		props[f.Name] = p
	}
	return object(props)
}
