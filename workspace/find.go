package workspace

import (
	"slices"
	"strings"
)

// What each resource offers to finding records (docs/rest.md, "Finding records"), declared
// once beside the catalogue: the text a q= search reads, the names and emails typos are
// forgiven in, the fields a list sorts on and filters with operators, and the compact
// summary MCP lists return. Migration 00019 builds the indexes these declarations need;
// TestFindIndexes checks each declaration against the migrated database.

// finding is one resource's declaration; field names are catalogue fields.
type finding struct {
	// search are the text fields q= matches, word prefixes, case and accents ignored.
	// Never secrets or storage URLs.
	search []string
	// names are the fields a one-letter typo still finds (trigram similarity): names and
	// emails. The first is the record's title in /v1/search.
	names []string
	// sort are the fields sort= takes besides created_at and updated_at, each with an
	// index (workspace_id, field, id); they also take operator filters.
	sort []string
	// ops are further fields taking operator filters (beyond the spec's exact filters).
	ops []string
	// summary are the fields an MCP list shows by default, beside id and updated_at.
	summary []string
}

var findings = map[string]finding{
	"deals": {search: []string{"name", "notes"}, names: []string{"name"}, sort: []string{"name", "value"},
		ops: []string{"confidence"}, summary: []string{"name", "pipeline_stage_id", "status", "value"}},
	"crm_files": {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"deal_id", "name"}},
	"people": {search: []string{"name", "company", "email", "position"}, names: []string{"name", "email"},
		sort: []string{"name", "email"}, summary: []string{"name", "email", "company", "company_id"}},
	"companies": {search: []string{"name", "industry", "notes", "website"}, names: []string{"name"}, sort: []string{"name"},
		summary: []string{"name", "industry", "website"}},
	"pipelines":       {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
	"pipeline_stages": {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"pipeline_id", "name", "outcome"}},
	"deal_tasks": {search: []string{"name", "description"}, names: []string{"name"}, sort: []string{"name", "due_date"}, ops: []string{"priority"},
		summary: []string{"deal_id", "name", "assignee_id", "due_date", "completed"}},
	"tasks": {search: []string{"name", "description"}, names: []string{"name"}, sort: []string{"name", "due_date"}, ops: []string{"priority"},
		summary: []string{"name", "space_id", "project_id", "assignee_id", "due_date", "completed"}},
	"task_attachments": {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"},
		summary: []string{"task_id", "crm_task_id", "name"}},
	"spaces":         {search: []string{"name", "notes"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "status"}},
	"projects":       {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"space_id", "name"}},
	"project_stages": {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"project_id", "name"}},
	"space_updates":  {search: []string{"content"}, summary: []string{"space_id", "status"}},
	"labels":         {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
	"comments":       {search: []string{"content"}, summary: []string{"entity_type", "entity_id", "user_id"}},
	"metrics":        {search: []string{"name", "slug"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "kind", "page_id"}},
	"metric_pages":   {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
	"metric_entries": {search: []string{"note"}, summary: []string{"metric_id", "entry_kind", "value", "user_id"}},
	"income": {search: []string{"name", "type"}, names: []string{"name"}, sort: []string{"name", "date", "amount"},
		summary: []string{"name", "date", "amount", "type"}},
	"expenses": {search: []string{"name", "type"}, names: []string{"name"}, sort: []string{"name", "date", "amount"},
		summary: []string{"name", "date", "amount", "type"}},
	"finance_categories": {search: []string{"key", "label"}, names: []string{"label"}, sort: []string{"label"},
		summary: []string{"key", "label", "kind"}},
	"debts": {search: []string{"name", "notes"}, names: []string{"name"}, sort: []string{"name", "total_amount"},
		summary: []string{"name", "total_amount", "paid_amount"}},
	"debt_payments": {sort: []string{"date", "amount"}, summary: []string{"debt_id", "amount", "date"}},
	"team_members": {search: []string{"display_name", "email", "team_role", "location"}, names: []string{"display_name", "email"},
		sort: []string{"display_name", "date_hired"}, summary: []string{"user_id", "display_name", "team_role", "email"}},
	"departments":        {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
	"leave_requests":     {search: []string{"reason"}, sort: []string{"leave_date"}, summary: []string{"user_id", "leave_date", "return_date", "type", "status"}},
	"hr_contracts":       {search: []string{"name"}, names: []string{"name"}, sort: []string{"date"}, summary: []string{"member_id", "name", "date", "is_current"}},
	"hr_change_requests": {search: []string{"message"}, summary: []string{"member_id", "type", "status"}},
	"org_chart":          {search: []string{"title"}, names: []string{"title"}, sort: []string{"title"}, summary: []string{"parent_id", "title", "user_id"}},
	"documents":          {search: []string{"name", "content"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
	"knowledge":          {search: []string{"name", "content"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "type", "source"}},
	"canvases":           {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "type", "folder_id"}},
	"automations":        {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "enabled", "section"}},
	"automation_logs":    {search: []string{"message"}, summary: []string{"automation_id", "success"}},
	"competitor_workflows": {search: []string{"name"}, names: []string{"name"}, sort: []string{"name"},
		summary: []string{"name", "status", "space_id"}},
	"competitor_reports": {search: []string{"title", "content"}, names: []string{"title"}, sort: []string{"title"},
		summary: []string{"workflow_id", "importance", "title"}},
	"agents": {search: []string{"name", "description"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"user_id", "name"}},
	"users": {search: []string{"display_name", "email"}, names: []string{"display_name", "email"}, sort: []string{"display_name", "email"},
		summary: []string{"display_name", "email", "role", "is_agent", "status"}},
}

// Columns every record has that lists sort and filter on beside the catalogue's fields.
var (
	createdAtField = Field{Name: "created_at", Type: Time, Doc: "when the record was created"}
	updatedAtField = Field{Name: "updated_at", Type: Time, Doc: "when the record was last changed"}
)

// Searchable lists the text fields q= matches; none means the resource takes no q.
func (r *Resource) Searchable() []string { return findings[r.Name].search }

// NameFields lists the names and emails a search forgives typos in; the first is the title.
func (r *Resource) NameFields() []string { return findings[r.Name].names }

// SortFields lists the fields sort= takes: the declared ones, then created_at and updated_at
// (paged resources only: one bounded page needs no sort).
func (r *Resource) SortFields() []string {
	if !r.Paged {
		return nil
	}
	return append(slices.Clone(findings[r.Name].sort), "created_at", "updated_at")
}

// Summary lists the fields an MCP list returns by default: id, the declared summary and
// updated_at; nil (every field) when the resource declares none.
func (r *Resource) Summary() []string {
	s := findings[r.Name].summary
	if s == nil {
		return nil
	}
	return append(append([]string{"id"}, s...), "updated_at")
}

// OpField returns the field name takes operator filters on, or nil: the spec's exact
// filters, the sortable and declared fields, created_at and updated_at.
func (r *Resource) OpField(name string) *Field {
	if !r.CanList() || r.Access == Singleton || r.Access == ListOnly {
		return nil
	}
	switch name {
	case "created_at":
		return &createdAtField
	case "updated_at":
		return &updatedAtField
	}
	f := r.Field(name)
	if f == nil || ops(f) == nil {
		return nil
	}
	d := findings[r.Name]
	if f.Filter || slices.Contains(d.sort, name) || slices.Contains(d.ops, name) {
		return f
	}
	return nil
}

// OpFields lists the fields taking operator filters, in catalogue order.
func (r *Resource) OpFields() []*Field {
	var out []*Field
	for i := range r.Fields {
		if f := r.OpField(r.Fields[i].Name); f != nil {
			out = append(out, f)
		}
	}
	if r.OpField("created_at") != nil {
		out = append(out, &createdAtField, &updatedAtField)
	}
	return out
}

// Operator is a filter's comparison: ?field[op]=value.
type Operator string

// The operators of ?field[op]=value (docs/rest.md).
const (
	OpEq       Operator = "eq"
	OpNe       Operator = "ne"
	OpLt       Operator = "lt"
	OpLte      Operator = "lte"
	OpGt       Operator = "gt"
	OpGte      Operator = "gte"
	OpIn       Operator = "in"
	OpPrefix   Operator = "prefix"
	OpContains Operator = "contains"
	OpNull     Operator = "null"
)

// Operators lists every operator, in the order messages and schemas name them.
func Operators() []Operator {
	return []Operator{OpEq, OpNe, OpLt, OpLte, OpGt, OpGte, OpIn, OpPrefix, OpContains, OpNull}
}

// MinContains is the fewest letters or digits in a row a contains operand holds: the
// trigram index finds a value by the trigrams of the operand's words (migration 00061),
// and an operand without three letters or digits in a row has none it can look up.
const MinContains = 3

// ops lists the operators a field takes: its type's (types.go), without prefix and
// contains for a String field with an enumeration, and without contains for one with no
// trigram index (Field.trigram: the names and emails declared above); nil for types no
// operator compares (JSON, arrays).
func ops(f *Field) []Operator {
	os := fieldTypes[f.Type].ops
	if f.Type == String && (len(f.Enum) > 0 || !f.trigram) {
		return slices.DeleteFunc(slices.Clone(os), func(o Operator) bool {
			return o == OpContains || o == OpPrefix && len(f.Enum) > 0
		})
	}
	return os
}

// Operators lists the operators the field takes, for schemas and messages.
func (f *Field) Operators() []Operator { return ops(f) }

func operatorList(os []Operator) string {
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}
