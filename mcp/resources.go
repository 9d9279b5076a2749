package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// Resources (docs/mcp.md "Resources"): every record a get_ tool reads is also a resource,
// workspaced://<resource>/{id}, read through the same operation (workspace.Ops.Get: both
// gates and row-level security); resources/list names three documents that change
// rarely: the workspace overview, the pipelines with their stages and the field
// catalogue. Listings keep to what the caller may read, as tools/list does; a read the
// caller may not make answers as get_ refuses it, a record it cannot see as the spec's
// "resource not found" (rpcerror.go).

// scheme prefixes every resource URI.
const scheme = "workspaced://"

// The documents of resources/list.
const (
	uriOverview  = scheme + "overview"
	uriPipelines = scheme + "pipelines"
	uriFields    = scheme + "fields"
)

const (
	mimeJSON     = "application/json"
	mimeMarkdown = "text/markdown"
)

// recordURI is the URI of one record.
func recordURI(resource, id string) string { return scheme + resource + "/" + id }

// templateURI is the URI template of a resource's records.
func templateURI(resource string) string { return scheme + resource + "/{id}" }

// may reports whether the request's caller may run the named tool on this connection:
// its scopes, grants and role allow it (canUse, the check tools/list makes), a bound
// token's view reaches it, and a read-only view does not hide it as a write.
func (s *Server) may(ctx context.Context, tool string) bool {
	sp, ok := s.specs[tool]
	p := httpx.PrincipalFrom(ctx)
	if !ok || p == nil {
		return false
	}
	v := viewFrom(ctx)
	return v.reaches(sp) && canUse(p, sp) && !(v.readonly && sp.write())
}

// addResources registers the record templates and the three documents.
func (s *Server) addResources(m *server.MCPServer) {
	for _, r := range workspace.Catalog() {
		if !r.CanGet() {
			continue
		}
		t := mcpgo.NewResourceTemplate(templateURI(r.Name), r.Name,
			mcpgo.WithTemplateDescription(r.Doc), mcpgo.WithTemplateMIMEType(mimeJSON))
		m.AddResourceTemplate(t, s.readRecord(r))
	}
	m.AddResource(mcpgo.NewResource(uriOverview, "overview",
		mcpgo.WithResourceDescription("Who you are, your workspace and grants, and the kinds of record you may read with their URIs."),
		mcpgo.WithMIMEType(mimeJSON)), s.readOverview)
	m.AddResource(mcpgo.NewResource(uriPipelines, "pipelines",
		mcpgo.WithResourceDescription("Every sales pipeline with its stages in order (ids, names, positions)."),
		mcpgo.WithMIMEType(mimeJSON)), s.readPipelines)
	m.AddResource(mcpgo.NewResource(uriFields, "fields",
		mcpgo.WithResourceDescription("The field catalogue: each record type you may read, its fields, their types and which filter lists."),
		mcpgo.WithMIMEType(mimeJSON)), s.readFields)
}

// documentTools are the tools a document's read runs; it is listed when the caller may
// run them all.
var documentTools = map[string][]string{
	uriOverview:  {toolMe},
	uriPipelines: {"list_pipelines", "list_pipeline_stages"},
	uriFields:    {toolMe},
}

// filterResources is the after-hook of resources/list: mcp-go has no per-request filter
// for resources, so the listed documents are narrowed here to those the caller may read.
func (s *Server) filterResources(ctx context.Context, _ any, _ *mcpgo.ListResourcesRequest, res *mcpgo.ListResourcesResult) {
	if res == nil {
		return
	}
	res.Resources = slices.DeleteFunc(res.Resources, func(r mcpgo.Resource) bool {
		if isFixture(r.URI) {
			return !s.fixtureVisible(ctx, r.URI)
		}
		for _, tool := range documentTools[r.URI] {
			if !s.may(ctx, tool) {
				return true
			}
		}
		return false
	})
}

// filterTemplates is the after-hook of resources/templates/list: the templates of the
// records the caller may get, in the toolsets the connection lists (records of other
// toolsets are still read by URI, as their tools are still called by name).
func (s *Server) filterTemplates(ctx context.Context, _ any, _ *mcpgo.ListResourceTemplatesRequest, res *mcpgo.ListResourceTemplatesResult) {
	if res == nil {
		return
	}
	v := viewFrom(ctx)
	res.ResourceTemplates = slices.DeleteFunc(res.ResourceTemplates, func(t mcpgo.ResourceTemplate) bool {
		if isFixture(t.Name) {
			return !s.fixtureVisible(ctx, t.Name)
		}
		sp, ok := s.specs["get_"+t.Name]
		return !ok || !v.shows(sp) || !s.may(ctx, sp.tool.Name)
	})
}

// readRecord reads workspaced://<r>/{id} as get_<r> does: the same gates, rate limit and
// row-level security. A record the caller cannot see, an id that is not one, and a
// resource outside a bound token's view are all "resource not found".
func (s *Server) readRecord(r *workspace.Resource) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		uri := req.Params.URI
		p := httpx.PrincipalFrom(ctx)
		id := templateVar(req.Params.Arguments["id"])
		if p == nil || !viewFrom(ctx).reaches(s.specs["get_"+r.Name]) || len(id) != 36 || uuid.Validate(id) != nil || uri != recordURI(r.Name, id) {
			return nil, notFound(ctx, uri)
		}
		if err := s.takeRate(ctx, p); err != nil {
			return nil, s.failure(ctx, err, uri)
		}
		rec, err := s.cfg.Ops.Get(ctx, p, r, id)
		if err != nil {
			return nil, s.failure(ctx, err, uri)
		}
		return []mcpgo.ResourceContents{
			mcpgo.TextResourceContents{URI: uri, MIMEType: mimeJSON, Text: string(rec)},
			mcpgo.TextResourceContents{URI: uri, MIMEType: mimeMarkdown, Text: recordMarkdown(r, rec)},
		}, nil
	}
}

// templateVar is a matched template variable's value: mcp-go hands on the matcher's
// values (a one-element []string for {id}).
func templateVar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []string:
		if len(v) == 1 {
			return v[0]
		}
	}
	return ""
}

// document answers a document's read: v as JSON and md as markdown.
func document(uri string, v any, md string) ([]mcpgo.ResourceContents, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("mcp: encode %s: %w", uri, err)
	}
	return []mcpgo.ResourceContents{
		mcpgo.TextResourceContents{URI: uri, MIMEType: mimeJSON, Text: string(b)},
		mcpgo.TextResourceContents{URI: uri, MIMEType: mimeMarkdown, Text: md},
	}, nil
}

// recordKind is one kind of record the overview names.
type recordKind struct {
	Type     string `json:"type"`
	URI      string `json:"uri_template"`
	Doc      string `json:"doc"`
	Complete bool   `json:"completes_ids"`
}

// readOverview is workspaced://overview: me, and the record types the caller may read.
func (s *Server) readOverview(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	uri := req.Params.URI
	p := httpx.PrincipalFrom(ctx)
	if p == nil {
		return nil, notFound(ctx, uri)
	}
	if err := s.takeRate(ctx, p); err != nil { // as the me tool is
		return nil, s.failure(ctx, err, uri)
	}
	me, err := s.cfg.Ops.Me(ctx, p)
	if err != nil {
		return nil, s.failure(ctx, err, uri)
	}
	var kinds []recordKind
	for _, r := range workspace.Catalog() {
		if r.CanGet() && s.may(ctx, "get_"+r.Name) {
			kinds = append(kinds, recordKind{Type: r.Name, URI: templateURI(r.Name), Doc: r.Doc, Complete: len(r.NameFields()) > 0})
		}
	}
	var prompts []string
	for _, pr := range s.visiblePrompts(ctx, s.promptList()) {
		prompts = append(prompts, pr.Name)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\nYou are %s (%s, %s) in workspace %s (%s).\n\n", me.Workspace.Name, firstOf(me.User.DisplayName, me.User.Email),
		me.User.Email, me.User.Role, me.Workspace.Name, me.Workspace.ID)
	md.WriteString("Feature grants: ")
	for i, f := range store.Features {
		if i > 0 {
			md.WriteString(", ")
		}
		fmt.Fprintf(&md, "%s %s", f, me.User.Grants[f])
	}
	md.WriteString(".\n\n## Records you may read\n\n")
	for _, k := range kinds {
		fmt.Fprintf(&md, "- `%s`: %s\n", k.URI, k.Doc)
	}
	if len(prompts) > 0 {
		fmt.Fprintf(&md, "\n## Prompts\n\n%s\n", strings.Join(prompts, ", "))
	}
	return document(uri, map[string]any{"me": me, "records": kinds, "prompts": prompts}, md.String())
}

// maxStages bounds the stages workspaced://pipelines reads (five pages of 200).
const maxStages = 1000

// readPipelines is workspaced://pipelines: the pipelines with their stages, each list
// read through the operation layer as list_pipelines and list_pipeline_stages are.
func (s *Server) readPipelines(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	uri := req.Params.URI
	p := httpx.PrincipalFrom(ctx)
	if p == nil {
		return nil, notFound(ctx, uri)
	}
	if err := s.takeRate(ctx, p); err != nil {
		return nil, s.failure(ctx, err, uri)
	}
	type stage struct {
		ID         string  `json:"id"`
		PipelineID string  `json:"pipeline_id"`
		Name       string  `json:"name"`
		Position   *int    `json:"position"`
		MetricTag  *string `json:"metric_tag"`
	}
	type pipeline struct {
		ID       string  `json:"id"`
		Name     string  `json:"name"`
		Position *int    `json:"position"`
		Stages   []stage `json:"stages"`
	}
	var pipelines []pipeline
	truncated, err := s.listAll(ctx, p, "pipelines", []string{"name", "position"}, maxStages, func(raw json.RawMessage) error {
		var batch []pipeline
		err := json.Unmarshal(raw, &batch)
		pipelines = append(pipelines, batch...)
		return err
	})
	if err != nil {
		return nil, s.failure(ctx, err, uri)
	}
	var stages []stage
	more, err := s.listAll(ctx, p, "pipeline_stages", []string{"pipeline_id", "name", "position", "metric_tag"}, maxStages, func(raw json.RawMessage) error {
		var batch []stage
		err := json.Unmarshal(raw, &batch)
		stages = append(stages, batch...)
		return err
	})
	if err != nil {
		return nil, s.failure(ctx, err, uri)
	}
	truncated = truncated || more
	byPosition := func(a, b *int) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return 1
		case b == nil:
			return -1
		}
		return *a - *b
	}
	slices.SortStableFunc(stages, func(a, b stage) int { return byPosition(a.Position, b.Position) })
	slices.SortStableFunc(pipelines, func(a, b pipeline) int { return byPosition(a.Position, b.Position) })
	var md strings.Builder
	md.WriteString("# Pipelines\n")
	for i := range pipelines {
		pl := &pipelines[i]
		pl.Stages = []stage{}
		for _, st := range stages {
			if st.PipelineID == pl.ID {
				pl.Stages = append(pl.Stages, st)
			}
		}
		fmt.Fprintf(&md, "\n## %s (`%s`)\n\n", pl.Name, pl.ID)
		for j, st := range pl.Stages {
			fmt.Fprintf(&md, "%d. %s (`%s`)\n", j+1, st.Name, st.ID)
		}
	}
	if pipelines == nil {
		pipelines = []pipeline{}
		md.WriteString("\nNo pipelines yet.\n")
	}
	if truncated {
		md.WriteString("\nMore stages exist than shown; list_pipeline_stages reads them all.\n")
	}
	return document(uri, map[string]any{"pipelines": pipelines, "truncated": truncated}, md.String())
}

// listAll reads up to max records of resource, fields fields, page by page through
// Ops.List; it reports whether records were left.
func (s *Server) listAll(ctx context.Context, p *auth.Principal, resource string, fields []string, max int,
	each func(json.RawMessage) error) (bool, error) {
	r := workspace.Lookup(resource)
	params := workspace.ListParams{Limit: workspace.MaxLimit, Fields: fields}
	for n := 0; n < max; n += workspace.MaxLimit {
		page, err := s.cfg.Ops.List(ctx, p, r, params)
		if err != nil {
			return false, err
		}
		if err := each(page.Data); err != nil {
			return false, err
		}
		if page.NextCursor == nil {
			return false, nil
		}
		params.Cursor = *page.NextCursor
	}
	return true, nil
}

// catalogueField is one field of the field catalogue.
type catalogueField struct {
	Name     string          `json:"name"`
	Schema   json.RawMessage `json:"schema"`
	Required bool            `json:"required,omitempty"`
	Writable bool            `json:"writable,omitempty"`
	Filter   bool            `json:"filter,omitempty"`
	Doc      string          `json:"doc,omitempty"`
	// CustomType is a custom field's type (text, select, money ...); "" for the catalogue's.
	CustomType string `json:"custom_type,omitempty"`
}

// readFields is workspaced://fields: the catalogue's record types the caller may read,
// each field with its JSON Schema as the tools take it, then the workspace's custom fields
// of the type as custom_fields.<key>.
func (s *Server) readFields(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	type kind struct {
		Type     string           `json:"type"`
		Doc      string           `json:"doc"`
		Needs    []string         `json:"needs"`
		Search   []string         `json:"search,omitempty"`
		Fields   []catalogueField `json:"fields"`
		Template string           `json:"uri_template,omitempty"`
	}
	var kinds []kind
	var md strings.Builder
	md.WriteString("# Field catalogue\n")
	custom := s.customDefs(ctx) // the workspace's own fields: customtools.go
	for _, r := range workspace.Catalog() {
		if !r.CanList() || !s.may(ctx, "list_"+r.Name) {
			continue
		}
		k := kind{Type: r.Name, Doc: r.Doc, Needs: r.Needs(workspace.OpList), Search: r.Searchable()}
		if r.CanGet() {
			k.Template = templateURI(r.Name)
		}
		fmt.Fprintf(&md, "\n## %s\n\n%s\n\n", r.Name, r.Doc)
		for _, f := range r.Fields {
			k.Fields = append(k.Fields, catalogueField{Name: f.Name, Schema: mustJSON(f.Schema(workspace.ToolDialect, false)),
				Required: f.Required, Writable: f.Writable, Filter: f.Filter, Doc: f.Doc})
			fmt.Fprintf(&md, "- `%s`", f.Name)
			if f.Doc != "" {
				fmt.Fprintf(&md, ": %s", f.Doc)
			}
			md.WriteByte('\n')
		}
		k.Fields = append(k.Fields, customCatalogue(custom[r.Name], &md)...)
		kinds = append(kinds, k)
	}
	return document(req.Params.URI, map[string]any{"records": kinds}, md.String())
}

// recordMarkdown renders a record briefly: a heading from its name, then each non-null
// field in catalogue order, long text clipped.
func recordMarkdown(r *workspace.Resource, rec json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(rec, &m) != nil {
		return ""
	}
	id := plain(m["id"])
	title := ""
	for _, n := range r.NameFields() {
		if title = plain(m[n]); title != "" {
			break
		}
	}
	var b strings.Builder
	if title == "" {
		fmt.Fprintf(&b, "# %s %s\n\n", human(r.Name), id)
	} else {
		fmt.Fprintf(&b, "# %s\n\n%s `%s`\n\n", title, human(r.Name), id)
	}
	names := []string{}
	for _, f := range r.Fields {
		names = append(names, f.Name)
	}
	for _, n := range append(names, "created_at", "updated_at") {
		if v := plain(m[n]); v != "" {
			fmt.Fprintf(&b, "- **%s**: %s\n", n, v)
		}
	}
	return b.String()
}

// maxMarkdownValue is the longest value recordMarkdown shows, in characters.
const maxMarkdownValue = 200

// plain is a JSON value as one line of text: strings bare, null and absent empty, others
// as compact JSON; clipped to maxMarkdownValue characters.
func plain(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		var c bytes.Buffer
		if json.Compact(&c, v) != nil {
			return ""
		}
		s = c.String()
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxMarkdownValue {
		s = string([]rune(s)[:maxMarkdownValue]) + "…"
	}
	return s
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
