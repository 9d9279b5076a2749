package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// Custom fields in tool schemas (docs/mcp.md, "Custom fields"). The tools built at start
// describe a workspace without custom fields, byte for byte what they were before custom
// fields existed. tools/list and find_tools answer the caller's workspace: where it has
// fields, the tools of their resources are rewritten for it. create_ and update_ take
// custom_fields, an object whose properties are the workspace's keys, each typed (the
// domain's CustomField.Schema) and, in create_, described by its label; list_'s where
// names custom_fields.<key> among its fields and sort its sortable ones; get_'s record
// requires custom_fields (every Custom resource has get_, which describes its records). The cache hints of tools/list are private: a credential belongs
// to one workspace, so a cached list is never another workspace's.

// customDefs reads the active definitions of the caller's workspace, by resource, for the
// resources it may list; nil (the tools as built) when it has none or they cannot be read,
// so a listing never fails for want of them.
func (s *Server) customDefs(ctx context.Context) map[string][]workspace.CustomField {
	p := httpx.PrincipalFrom(ctx)
	if p == nil {
		return nil
	}
	defs, err := s.cfg.Ops.WorkspaceCustomFields(ctx, p)
	if err != nil {
		s.log.WarnContext(ctx, "mcp: custom fields unread; tools listed without them", "err", err)
		return nil
	}
	if len(defs) == 0 {
		return nil
	}
	return defs
}

// custom reports whether any of the named tools is about a resource a workspace adds
// fields to: only then are the definitions read.
func (s *Server) custom(names ...string) bool {
	for _, n := range names {
		if sp := s.specs[n]; sp.resource != nil && sp.resource.Custom {
			return true
		}
	}
	return false
}

// withCustom returns t as the workspace with defs sees it: t itself when its resource has
// no fields there.
func (s *Server) withCustom(t mcpgo.Tool, defs map[string][]workspace.CustomField) mcpgo.Tool {
	sp, ok := s.specs[t.Name]
	if !ok || sp.resource == nil || len(defs[sp.resource.Name]) == 0 {
		return t
	}
	fields := defs[sp.resource.Name]
	switch sp.op {
	case workspace.OpList:
		t.RawInputSchema = editSchema(t.RawInputSchema, func(s *jsonschema.Schema) { customFind(s, fields) })
	case workspace.OpGet:
		t.RawOutputSchema = editSchema(t.RawOutputSchema, func(s *jsonschema.Schema) {
			s.Required = append(s.Required, workspace.CustomValuesField)
		})
	case workspace.OpCreate, workspace.OpUpdate:
		create := sp.op == workspace.OpCreate // update_ leaves descriptions to create_, as for every field
		t.RawInputSchema = editSchema(t.RawInputSchema, func(s *jsonschema.Schema) {
			s.Properties[workspace.CustomValuesField] = customValues(fields, create)
		})
	}
	return t
}

// customValues is the custom_fields argument of create_ and update_: the workspace's keys,
// typed, each described by its label on create_ (update_ points there); none other taken.
// On create_ the required fields are required.
func customValues(fields []workspace.CustomField, create bool) *jsonschema.Schema {
	props := map[string]*jsonschema.Schema{}
	var required []string
	for i := range fields {
		f := &fields[i]
		p := f.Schema(workspace.ToolDialect)
		if !create {
			p.Description = ""
		}
		props[f.Key] = p
		if create && f.Required {
			required = append(required, f.Key)
		}
	}
	return input(props, required...)
}

// customFind adds the fields to a list tool's where (every field takes an operator, if only
// null) and its sortable ones to sort.
func customFind(s *jsonschema.Schema, fields []workspace.CustomField) {
	var where, sorts []string
	for i := range fields {
		f := &fields[i]
		if len(f.Operators()) > 0 {
			where = append(where, f.Key)
		}
		if f.Sortable() {
			sorts = append(sorts, f.Key)
		}
	}
	if w := s.Properties["where"]; w != nil && len(where) > 0 {
		field := w.Items.Properties["field"]
		field.Pattern = widenPattern(field.Pattern, where)
	}
	if sort := s.Properties["sort"]; sort != nil && len(sorts) > 0 {
		sort.Pattern = widenPattern(sort.Pattern, sorts)
	}
}

// widenPattern adds custom_fields.(keys) to an alternation "^(a|b)$" or "^-?(a|b)$". Keys
// are snake_case (the domain refuses any other), so they need no escaping.
func widenPattern(pattern string, keys []string) string {
	alt := `custom_fields\.(` + strings.Join(keys, "|") + `)`
	if i := strings.LastIndex(pattern, ")$"); i >= 0 {
		return pattern[:i] + "|" + alt + pattern[i:]
	}
	return pattern
}

// editSchema applies edit to a schema as JSON, returning it in mustJSON's form.
func editSchema(raw json.RawMessage, edit func(*jsonschema.Schema)) json.RawMessage {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		panic(err) // the server's own schemas, marshalled by mustJSON
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	edit(&s)
	return mustJSON(&s)
}

// customCatalogue lists a resource's custom fields in the field catalogue
// (workspaced://fields) as lists name them, custom_fields.<key>, with their schema, and
// adds a markdown line for each to md.
func customCatalogue(fields []workspace.CustomField, md *strings.Builder) []catalogueField {
	var out []catalogueField
	for i := range fields {
		f := &fields[i]
		doc := f.Label
		if f.Description != "" {
			doc += ": " + f.Description
		}
		out = append(out, catalogueField{Name: f.Path(), Schema: mustJSON(f.Schema(workspace.ToolDialect)),
			Required: f.Required, Writable: true, Filter: slices.Contains(f.Operators(), workspace.OpEq), Doc: doc, CustomType: f.Type})
		fmt.Fprintf(md, "- `%s` (%s): %s\n", f.Path(), f.Type, doc)
	}
	return out
}
