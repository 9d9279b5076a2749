package workspace

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agencyos/workspaced/store"
)

// The resource catalogue: the spec's tables (docs/contract.md sections 2.1 and 2.2, docs/decisions.md 4)
// written once as data. Routing, validation, SQL, the OpenAPI document and the MCP tools are
// all derived from catalog; adding a resource is one entry here plus its table in the schema.

// Access says which operations a resource offers.
type Access int

const (
	// ReadWrite resources list, get, create and update.
	ReadWrite Access = iota
	// Detach resources are join records: list, create and detach; no /{id} form.
	Detach
	// ReadOnly resources list and get; writes answer 405.
	ReadOnly
	// UpdateOnly resources list, get and update; members join by invitation, so no create.
	UpdateOnly
	// Singleton is the token's own workspace: list returns one row, get and update by id or none.
	Singleton
	// ListOnly resources answer one bounded page and have no /{id} form (credits).
	ListOnly
	// WriteOnly resources accept only POST (enrich).
	WriteOnly
)

// String names the access mode as the spec's table does.
func (a Access) String() string {
	return [...]string{"read, write", "read, write, detach", "read only", "read, update", "read, update", "read only", "write only"}[a]
}

// Feature is the member's feature grant a resource needs (docs/contract.md section 5.6); "" means none. The
// one list of grantable features is store.Features.
type Feature string

// The feature grants of docs/decisions.md 2.
const (
	NoFeature   Feature = ""
	CRM         Feature = "crm"
	HR          Feature = "hr"
	Finance     Feature = "finance"
	Metrics     Feature = "metrics"
	Competitors Feature = "competitors"
	Agents      Feature = "agents"
)

// Field is one column of a resource as the API shows it.
type Field struct {
	Name     string   // JSON key and column name
	Type     Type     // JSON type; also the filter's parameter type
	Enum     []string // allowed values, when the spec enumerates them
	Min, Max *int     // bounds for Int fields (priority 0-4)
	// Big marks Int fields stored as bigint: the full 64-bit range (otherwise 32-bit).
	Big bool
	// MaxLen bounds String values (and each element of Strings), in characters; 0 means
	// ShortText. It keeps every value storable and indexable (a btree row holds ~2.7 kB).
	MaxLen   int
	Required bool   // required on create
	Writable bool   // accepted in create and update bodies
	Filter   bool   // usable as an exact-match list filter
	Doc      string // one phrase for people and models
	// Example is a valid value (JSON) where the type's own example would fail the field's
	// further checks (a webhook URL must be public); "" means the type's.
	Example string
	// trigram marks a name or email of the resource's finding (find.go), which has a
	// trigram index: set by withTables, it lets the field take contains.
	trigram bool
}

// ExampleValue is a value the field accepts, as JSON.
func (f *Field) ExampleValue() json.RawMessage {
	if f.Example != "" {
		return json.RawMessage(f.Example)
	}
	return f.Type.Example()
}

// Maximum lengths of text values, in characters (docs/decisions.md 4 leaves them open): names,
// labels and codes are short and may be indexed; links may be long URLs; bodies of text
// (notes, comments, documents) are bounded by what a request may carry.
const (
	ShortText = 500
	LinkText  = 2048
	LongText  = 200_000
)

// MaxLength is the longest String value the field accepts, in characters.
func (f *Field) MaxLength() int {
	if f.MaxLen > 0 {
		return f.MaxLen
	}
	return ShortText
}

// Resource is one row of the spec's catalogue.
type Resource struct {
	Name    string  // path segment under /v1 and the suffix of its MCP tools
	Table   string  // the PostgreSQL table
	Scope   string  // deals -> deals:read and deals:write
	Access  Access  // which operations exist
	Feature Feature // the member's grant this resource needs, if any
	Paged   bool    // false: one bounded page, next_cursor always null
	// AdminWrites marks resources whose writes need the admin role (automations, workspace).
	AdminWrites bool
	// AdminOnly marks resources only admins may read or write (webhooks, docs/webhooks.md).
	AdminOnly bool
	// SelfOrAdmin marks users: members may update only their own record.
	SelfOrAdmin bool
	// AuthorEdits marks comments: only their author (the Requester column) or an admin
	// may update one (policy ws_author_edits); the entity it is about (Entities) may need
	// a feature of its own.
	AuthorEdits bool
	// Entities marks a polymorphic reference, entity_type and entity_id naming a record of
	// another resource, which no foreign key can state: reading a row follows its entity's
	// visibility (policy ws_entity_visible), and the map gives the feature an entity_type
	// needs beyond the resource's own (comments on a deal need crm; activity on a record
	// needs the record's feature). nil when the resource has no such reference.
	Entities map[string]Feature
	// DetachKeys are the two ids that name a join record (Detach resources).
	DetachKeys [2]string
	// Requester is the server-owned column set to the acting user on create
	// (comments, leave_requests, metric_entries), "" when none.
	Requester string
	// Reviewed marks resources whose status changes stamp reviewed_by and reviewed_at.
	Reviewed bool
	// Mergeable marks people and companies: POST /<resource>/{id}/merge folds a duplicate
	// into the record (merge.go), which keeps the duplicate marked merged_into_id; lists,
	// q and search leave merged records out.
	Mergeable bool
	// Custom marks resources a workspace adds its own fields to (custom_fields.go): their
	// records carry the field custom_fields, which withTables appends.
	Custom bool
	// Governed names the field whose value is the resource each record is about, whose read
	// scope and feature grant reading the record needs, and whose write scope writing it
	// (custom_fields: a definition of deals' fields is read as deals are); "" when none.
	Governed string
	Doc      string
	Fields   []Field
	// Matches are the natural keys a batch upsert may match records on besides id and a
	// unique custom field (workspace/batch.go); nil when there are none.
	Matches []Match
	// find is what the resource offers to finding records: q=, typo-forgiving names,
	// sorts, operator filters and the MCP list summary (find.go).
	find finding
	// toolset overrides Toolset's default, the scope family, where the catalogue groups
	// better otherwise.
	toolset string
}

// Match is a natural key of a resource: the value of an input record's field From,
// normalised by Key, names the stored records whose Column equals it. Both are SQL over an
// index of store/migrations/00051_batch_match.sql; the key is not unique in the table.
type Match struct {
	Name   string // the batch's match value: "email"
	From   string // the field of an input record carrying the key
	Key    string // SQL of the key of a text value, with one %s: "lower(%s)"
	Column string // SQL of a stored record's key
}

// Match returns the natural key named name, or nil.
func (r *Resource) Match(name string) *Match {
	for i := range r.Matches {
		if r.Matches[i].Name == name {
			return &r.Matches[i]
		}
	}
	return nil
}

// Writable lists the fields accepted in create and update bodies.
func (r *Resource) Writable() []Field { return r.fieldsWhere(func(f Field) bool { return f.Writable }) }

// Filters lists the fields usable as list filters.
func (r *Resource) Filters() []Field { return r.fieldsWhere(func(f Field) bool { return f.Filter }) }

// FilterField returns the named field if lists take it as an exact filter (?name=value),
// or nil.
func (r *Resource) FilterField(name string) *Field {
	if f := r.Field(name); f != nil && f.Filter {
		return f
	}
	return nil
}

// Required lists the fields a create must carry.
func (r *Resource) Required() []Field { return r.fieldsWhere(func(f Field) bool { return f.Required }) }

// Field returns the named field, or nil.
func (r *Resource) Field(name string) *Field {
	for i := range r.Fields {
		if r.Fields[i].Name == name {
			return &r.Fields[i]
		}
	}
	return nil
}

func (r *Resource) fieldsWhere(keep func(Field) bool) []Field {
	var out []Field
	for _, f := range r.Fields {
		if keep(f) {
			out = append(out, f)
		}
	}
	return out
}

// CanList reports whether the resource has a list operation.
func (r *Resource) CanList() bool { return r.Access != WriteOnly }

// CanGet reports whether the resource has a /{id} form.
func (r *Resource) CanGet() bool {
	return r.Access == ReadWrite || r.Access == ReadOnly || r.Access == UpdateOnly || r.Access == Singleton
}

// CanCreate reports whether POST creates a record.
func (r *Resource) CanCreate() bool {
	return r.Access == ReadWrite || r.Access == Detach || r.Access == WriteOnly
}

// CanUpdate reports whether PATCH updates a record.
func (r *Resource) CanUpdate() bool {
	return r.Access == ReadWrite || r.Access == UpdateOnly || r.Access == Singleton
}

// CanDetach reports whether POST ?detach=true unlinks a join record.
func (r *Resource) CanDetach() bool { return r.Access == Detach }

// Toolset names the group the resource's MCP tools belong to, which clients select by
// name (docs/mcp.md): the scope family, except the two file listings, which form "files"
// so the everyday deals and tasks toolsets stay small.
func (r *Resource) Toolset() string {
	if r.toolset != "" {
		return r.toolset
	}
	return r.Scope
}

// ReadScope and WriteScope name the scopes of docs/contract.md section 5.5.
func (r *Resource) ReadScope() string  { return r.Scope + ":read" }
func (r *Resource) WriteScope() string { return r.Scope + ":write" }

// Field constructors keep the table below close to the spec's own rows.
func req(name string, t Type) Field {
	return Field{Name: name, Type: t, Required: true, Writable: true}
}
func w(name string, t Type) Field  { return Field{Name: name, Type: t, Writable: true} }
func ro(name string, t Type) Field { return Field{Name: name, Type: t} }
func enum(f Field, values ...string) Field {
	f.Enum = values
	return f
}
func filter(f Field) Field {
	f.Filter = true
	return f
}
func doc(f Field, d string) Field {
	f.Doc = d
	return f
}
func bounded(f Field, min, max int) Field {
	f.Min, f.Max = &min, &max
	return f
}
func big(f Field) Field {
	f.Big = true
	return f
}
func link(f Field) Field {
	f.MaxLen = LinkText
	return f
}
func example(f Field, v string) Field {
	f.Example = v
	return f
}
func text(f Field) Field {
	f.MaxLen = LongText
	return f
}

// Field sets shared by several resources.
var (
	taskFields = []Field{
		// assignee_ids lists every assignee and assignee_id is its first; migration 00037
		// keeps them so whichever a write sends (docs/rest.md, "Task assignees").
		filter(w("assignee_id", UUID)), w("assignee_ids", UUIDs),
		w("due_date", Date), w("start_date", Date),
		doc(bounded(w("priority", Int), 0, 4), "0 (none) to 4 (urgent)"),
		filter(w("completed", Bool)), text(w("description", String)),
		doc(filter(w("is_private", Bool)), "visible only to its creator, assignees and admins"),
	}
	moneyFields = []Field{
		req("name", String), req("date", Date), doc(req("amount", Number), "a JSON number"),
		filter(req("type", String)), filter(enum(w("recurrence", String), "one_time", "monthly")),
		link(w("avatar_url", String)),
	}
	fileFields = []Field{ro("name", String), link(ro("url", String)), ro("mime_type", String), big(ro("size_bytes", Int))}
)

func concat(parts ...[]Field) []Field {
	var out []Field
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// catalog is every resource of the REST API, in the spec's order. It is unexported so that
// nothing outside can add, drop or reorder resources; Catalog hands out a copy.
var catalog = withTables([]*Resource{
	{Name: "deals", Scope: "deals", Feature: CRM, Paged: true, Custom: true,
		find: finding{search: []string{"name", "notes"}, names: []string{"name"}, sort: []string{"name", "value"}, ops: []string{"confidence"}, summary: []string{"name", "pipeline_stage_id", "status", "value"}},
		Doc:  "Deals in the CRM pipeline: a potential sale with its stage, status (open, won, lost), owner, value and company.",
		Fields: []Field{
			req("name", String), filter(req("pipeline_id", UUID)), filter(w("pipeline_stage_id", UUID)),
			filter(w("owner_id", UUID)), w("value", Number), w("confidence", Number), link(w("website", String)),
			link(w("instagram", String)), link(w("twitter", String)), text(w("notes", String)), filter(w("company_id", UUID)),
			doc(filter(enum(ro("status", String), "open", "won", "lost")),
				"the outcome of the deal's stage (pipeline_stages.outcome); open when it has no stage. Open deals: status=open"),
		}},
	{Name: "deal_people", Scope: "deals", Access: Detach, Feature: CRM, DetachKeys: [2]string{"deal_id", "person_id"},
		Doc: "Links between deals and people (contacts on a deal).",
		Fields: []Field{
			filter(req("deal_id", UUID)), filter(req("person_id", UUID)), w("role", String), w("is_primary", Bool),
		}},
	{Name: "deal_labels", Scope: "deals", Access: Detach, Feature: CRM, DetachKeys: [2]string{"deal_id", "label_id"},
		Doc:    "Links between deals and labels.",
		Fields: []Field{filter(req("deal_id", UUID)), filter(req("label_id", UUID))}},
	{Name: "crm_files", Scope: "deals", Access: ReadOnly, Feature: CRM, Paged: true, toolset: "files",
		find:   finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"deal_id", "name"}},
		Doc:    "Files attached to deals (metadata only).",
		Fields: concat([]Field{filter(ro("deal_id", UUID)), link(ro("storage_path", String))}, fileFields)},
	{Name: "people", Scope: "people", Feature: CRM, Paged: true, Custom: true, Mergeable: true,
		find:    finding{search: []string{"name", "company", "email", "position"}, names: []string{"name", "email"}, sort: []string{"name", "email"}, summary: []string{"name", "email", "company", "company_id"}},
		Doc:     "People (contacts) in the CRM.",
		Matches: []Match{{Name: "email", From: "email", Key: "lower(%s)", Column: `lower("email")`}},
		Fields: []Field{
			req("name", String), w("company", String), filter(w("company_id", UUID)), w("phone", String),
			filter(w("email", String)), doc(w("position", String), "job title"), link(w("linkedin_url", String)), link(w("twitter_url", String)),
			mergedInto,
		}},
	{Name: "companies", Scope: "companies", Feature: CRM, Paged: true, Custom: true, Mergeable: true,
		find:    finding{search: []string{"name", "industry", "notes", "website"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "industry", "website"}},
		Doc:     "Companies (accounts) in the CRM.",
		Matches: []Match{{Name: "domain", From: "website", Key: "ws_domain(%s)", Column: `ws_domain("website")`}},
		Fields: []Field{
			req("name", String), link(w("website", String)), link(w("instagram", String)), link(w("linkedin", String)),
			link(w("twitter", String)), filter(w("industry", String)), w("size", String), text(w("notes", String)),
			mergedInto,
		}},
	{Name: "pipelines", Scope: "pipelines", Feature: CRM, Paged: true,
		find:   finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
		Doc:    "Sales pipelines that deals move through.",
		Fields: []Field{req("name", String), w("position", Int)}},
	{Name: "pipeline_stages", Scope: "pipelines", Feature: CRM, Paged: true,
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"pipeline_id", "name", "outcome"}},
		Doc:  "Stages of a sales pipeline.",
		Fields: []Field{
			filter(req("pipeline_id", UUID)), req("name", String), w("position", Int),
			enum(w("metric_tag", String), "messages_sent", "responses", "positive_responses", "deals_closed"),
			doc(enum(w("outcome", String), "open", "won", "lost"), "open (the default), won or lost: the status of the stage's deals"),
		}},
	{Name: "deal_tasks", Scope: "tasks", Feature: CRM, Paged: true, Custom: true,
		find:   finding{search: []string{"name", "description"}, names: []string{"name"}, sort: []string{"name", "due_date"}, ops: []string{"priority"}, summary: []string{"deal_id", "name", "assignee_id", "due_date", "completed"}},
		Doc:    "Tasks attached to a deal (CRM tasks).",
		Fields: concat([]Field{filter(req("deal_id", UUID)), req("name", String)}, taskFields)},
	{Name: "tasks", Scope: "tasks", Paged: true, Custom: true,
		find: finding{search: []string{"name", "description"}, names: []string{"name"}, sort: []string{"name", "due_date"}, ops: []string{"priority"}, summary: []string{"name", "space_id", "project_id", "assignee_id", "due_date", "completed"}},
		Doc:  "Project tasks in client spaces.",
		Fields: concat([]Field{req("name", String), filter(w("space_id", UUID)), filter(w("project_id", UUID))}, taskFields,
			[]Field{filter(w("stage_id", UUID)), w("parent_task_id", UUID)})},
	{Name: "task_attachments", Scope: "tasks", Access: ReadOnly, Paged: true, toolset: "files",
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"task_id", "crm_task_id", "name"}},
		Doc:  "Files attached to tasks (metadata only).",
		Fields: concat([]Field{filter(ro("task_id", UUID)), filter(ro("crm_task_id", UUID)), filter(ro("space_id", UUID))},
			fileFields)},
	{Name: "spaces", Scope: "spaces", Paged: true,
		find: finding{search: []string{"name", "notes"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "status"}},
		Doc:  "Client spaces: one per client or internal team.",
		Fields: []Field{
			req("name", String), link(w("image_url", String)), filter(w("is_default", Bool)), filter(w("status", String)),
			text(w("notes", String)),
		}},
	{Name: "projects", Scope: "spaces", Paged: true, Custom: true,
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"space_id", "name"}},
		Doc:  "Projects inside a space.",
		Fields: []Field{
			filter(req("space_id", UUID)), req("name", String), w("position", Int), w("start_date", Date),
			w("end_date", Date), w("kanban_enabled", Bool),
		}},
	{Name: "project_stages", Scope: "spaces",
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"project_id", "name"}},
		Doc:  "Kanban stages of a project (one bounded page).",
		Fields: []Field{
			filter(req("project_id", UUID)), req("name", String), w("position", Int), w("color", String), w("icon", String),
		}},
	{Name: "space_members", Scope: "spaces", Access: Detach, DetachKeys: [2]string{"space_id", "user_id"},
		Doc:    "Members of a space.",
		Fields: []Field{filter(req("space_id", UUID)), filter(req("user_id", UUID))}},
	{Name: "space_updates", Scope: "spaces", Paged: true,
		find:   finding{search: []string{"content"}, summary: []string{"space_id", "status"}},
		Doc:    "Status updates posted in a space.",
		Fields: []Field{filter(req("space_id", UUID)), text(req("content", String)), filter(w("status", String))}},
	{Name: "labels", Scope: "labels", Paged: true,
		find:   finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
		Doc:    "Labels that can be put on deals.",
		Fields: []Field{req("name", String)}},
	{Name: "comments", Scope: "comments", Paged: true, Requester: "user_id", AuthorEdits: true,
		find:     finding{search: []string{"content"}, summary: []string{"entity_type", "entity_id", "user_id"}},
		Entities: map[string]Feature{"deal": CRM},
		Doc:      "Comments on deals and tasks. Comments on deals need the crm feature.",
		Fields: []Field{
			filter(enum(req("entity_type", String), "deal", "task")),
			doc(filter(req("entity_id", UUID)), "the deal's or task's id"),
			text(req("content", String)), ro("user_id", UUID),
		}},
	{Name: "activity", Scope: "activity", Access: ReadOnly, Paged: true, Entities: resourceFeatures,
		Doc: "The audit trail: one row for every create, update and detach made through the API, the console or the admin CLI.",
		Fields: []Field{
			filter(ro("entity_type", String)), filter(ro("entity_id", UUID)), ro("action", String),
			ro("actor_id", UUID), doc(ro("changes", JSON), "the fields written, with their new values"),
			doc(ro("credential", String), "what made the write: agent_key:<key id>, oauth:<access token id>, console:<session> or cli:<operating-system user>"),
			doc(ro("client", JSON), "the OAuth client that made the write, {id, name}; null for agent keys"),
			doc(ro("via", String), "the channel: rest, mcp, console or cli"),
		}},
	{Name: "metrics", Scope: "metrics", Feature: Metrics, Paged: true,
		find: finding{search: []string{"name", "slug"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "kind", "page_id"}},
		Doc:  "Metric definitions shown on metric pages.",
		Fields: []Field{
			req("name", String), filter(enum(w("kind", String), "formula", "date_diff", "manual")), text(w("formula", String)),
			enum(w("format", String), "number", "currency", "percent", "days", "hours"), w("date_range", String),
			w("date_from", Date), w("date_to", Date), enum(w("manual_type", String), "number", "date_range", "time_range"),
			enum(w("agg", String), "avg", "sum", "count", "latest"), filter(w("page_id", UUID)), w("position", Int),
			w("slug", String), w("member_ids", UUIDs), w("space_ids", UUIDs), w("pipeline_ids", UUIDs),
		}},
	{Name: "metric_pages", Scope: "metrics", Feature: Metrics, Paged: true,
		find:   finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
		Doc:    "Pages that group metrics.",
		Fields: []Field{req("name", String), w("position", Int)}},
	{Name: "metric_entries", Scope: "metrics", Feature: Metrics, Paged: true, Requester: "user_id",
		find: finding{search: []string{"note"}, summary: []string{"metric_id", "entry_kind", "value", "user_id"}},
		Doc:  "Manually entered values of a metric.",
		Fields: []Field{
			filter(req("metric_id", UUID)), filter(enum(req("entry_kind", String), "number", "date_range", "time_range")),
			w("value", Number), w("from_ts", Time), w("to_ts", Time), text(w("note", String)), ro("user_id", UUID),
		}},
	{Name: "income", Scope: "finance", Feature: Finance, Paged: true,
		find: finding{search: []string{"name", "type"}, names: []string{"name"}, sort: []string{"name", "date", "amount"}, summary: []string{"name", "date", "amount", "type"}},
		Doc:  "Income entries.", Fields: moneyFields},
	{Name: "expenses", Scope: "finance", Feature: Finance, Paged: true,
		find: finding{search: []string{"name", "type"}, names: []string{"name"}, sort: []string{"name", "date", "amount"}, summary: []string{"name", "date", "amount", "type"}},
		Doc:  "Expense entries.", Fields: moneyFields},
	{Name: "finance_categories", Scope: "finance", Feature: Finance, Paged: true,
		find: finding{search: []string{"key", "label"}, names: []string{"label"}, sort: []string{"label"}, summary: []string{"key", "label", "kind"}},
		Doc:  "Categories for the profit-and-loss report.",
		Fields: []Field{
			req("key", String), req("label", String), filter(enum(req("kind", String), "income", "expense")),
			filter(enum(req("pl_section", String), "revenue", "contra_revenue", "cm1", "cm2", "cm3")), w("sort", Int),
		}},
	{Name: "debts", Scope: "finance", Feature: Finance, Paged: true,
		find: finding{search: []string{"name", "notes"}, names: []string{"name"}, sort: []string{"name", "total_amount"}, summary: []string{"name", "total_amount", "paid_amount"}},
		Doc:  "Debts owed by the agency.",
		Fields: []Field{
			req("name", String), req("total_amount", Number), w("paid_amount", Number),
			filter(req("expense_type", String)), text(w("notes", String)),
		}},
	{Name: "debt_payments", Scope: "finance", Feature: Finance, Paged: true,
		find:   finding{sort: []string{"date", "amount"}, summary: []string{"debt_id", "amount", "date"}},
		Doc:    "Payments made against a debt.",
		Fields: []Field{filter(req("debt_id", UUID)), req("amount", Number), req("date", Date)}},
	{Name: "team_members", Scope: "hr", Feature: HR, Paged: true,
		find: finding{search: []string{"display_name", "email", "team_role", "location"}, names: []string{"display_name", "email"}, sort: []string{"display_name", "date_hired"}, summary: []string{"user_id", "display_name", "team_role", "email"}},
		Doc:  "HR records of the team.",
		Fields: []Field{
			filter(w("user_id", UUID)), req("display_name", String), filter(w("team_role", String)), w("squads", Strings),
			w("authority_user_id", UUID), w("salary", Number), w("date_hired", Date), w("left_date", Date),
			w("phone", String), w("email", String), link(w("contract_url", String)), w("contract_name", String),
			filter(w("archived", Bool)), link(w("avatar_url", String)), w("slack_user_id", String), w("location", String),
			filter(w("department_id", UUID)), text(w("summary", String)), w("gender", String),
		}},
	{Name: "departments", Scope: "hr", Feature: HR, Paged: true,
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
		Doc:  "Departments.", Fields: []Field{req("name", String)}},
	{Name: "leave_requests", Scope: "hr", Feature: HR, Paged: true, Requester: "user_id", Reviewed: true,
		find: finding{search: []string{"reason"}, sort: []string{"leave_date"}, summary: []string{"user_id", "leave_date", "return_date", "type", "status"}},
		Doc:  "Leave requests. A status change records the reviewer.",
		Fields: []Field{
			req("leave_date", Date), req("return_date", Date), text(req("reason", String)),
			filter(enum(w("type", String), "annual", "sick", "personal")),
			filter(enum(w("status", String), "pending", "approved", "rejected")), text(w("review_reason", String)),
			doc(filter(ro("user_id", UUID)), "the requester"), ro("reviewed_by", UUID), ro("reviewed_at", Time),
		}},
	{Name: "hr_contracts", Scope: "hr", Feature: HR, Paged: true,
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"date"}, summary: []string{"member_id", "name", "date", "is_current"}},
		Doc:  "Employment contracts of team members.",
		Fields: []Field{
			doc(filter(req("member_id", UUID)), "a team_members id"), w("name", String), w("type", String), link(w("url", String)),
			link(w("storage_path", String)), w("date", Date), filter(w("is_current", Bool)),
		}},
	{Name: "hr_change_requests", Scope: "hr", Feature: HR, Paged: true, Reviewed: true,
		find: finding{search: []string{"message"}, summary: []string{"member_id", "type", "status"}},
		Doc:  "Requests to change a team member's HR record. A status change records the reviewer.",
		Fields: []Field{
			doc(filter(req("member_id", UUID)), "a team_members id"), w("type", String), text(w("message", String)),
			filter(w("status", String)), ro("reviewed_by", UUID), ro("reviewed_at", Time),
		}},
	{Name: "org_chart", Scope: "hr", Feature: HR, Paged: true,
		find: finding{search: []string{"title"}, names: []string{"title"}, sort: []string{"title"}, summary: []string{"parent_id", "title", "user_id"}},
		Doc:  "Nodes of the organisation chart.",
		Fields: []Field{
			doc(filter(w("parent_id", UUID)), "the parent org_chart node"), w("title", String), filter(w("user_id", UUID)),
			w("kpis", JSON), w("sort_order", Int),
		}},
	{Name: "documents", Scope: "docs", Paged: true,
		find:   finding{search: []string{"name", "content"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name"}},
		Doc:    "Documents in the workspace.",
		Fields: []Field{req("name", String), text(w("content", String)), w("icon", String), w("icon_color", String)}},
	{Name: "knowledge", Scope: "docs", Paged: true,
		find: finding{search: []string{"name", "content"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "type", "source"}},
		Doc:  "Knowledge base entries.",
		Fields: []Field{
			req("name", String), filter(w("type", String)), link(w("url", String)), link(w("storage_path", String)),
			w("mime_type", String), big(w("size_bytes", Int)), filter(w("source", String)), text(w("content", String)),
			link(w("icon_url", String)), w("external_id", String),
		}},
	{Name: "canvases", Scope: "docs", Paged: true,
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "type", "folder_id"}},
		Doc:  "Canvases (whiteboards and flow diagrams).",
		Fields: []Field{
			w("name", String), filter(req("type", String)), w("data", JSON), filter(w("folder_id", UUID)),
			filter(w("is_knowledge_base", Bool)),
		}},
	{Name: "automations", Scope: "automations", Paged: true, AdminWrites: true,
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "enabled", "section"}},
		Doc:  "Automations (trigger, conditions, actions). Creating or updating one needs the admin role.",
		Fields: []Field{
			req("name", String), filter(w("enabled", Bool)), w("trigger", JSON), w("conditions", JSON),
			w("condition_logic", String), w("actions", JSON), filter(w("section", String)),
		}},
	{Name: "automation_logs", Scope: "automations", Access: ReadOnly, Paged: true,
		find: finding{search: []string{"message"}, summary: []string{"automation_id", "success"}},
		Doc:  "Runs of automations.",
		Fields: []Field{
			filter(ro("automation_id", UUID)), filter(ro("success", Bool)), text(ro("message", String)), ro("details", JSON),
		}},
	{Name: "webhook_endpoints", Scope: "webhooks", Paged: true, AdminOnly: true,
		Doc: "Webhook endpoints: HTTPS URLs that receive signed change events (docs/webhooks.md). Admin only; disable with enabled=false.",
		Fields: []Field{
			example(doc(link(req("url", String)), "https to a public address"), `"https://93.184.216.34/hooks"`),
			example(doc(w("events", Strings), "event types to send: deals.created, deals.*, * (the default)"), `["*"]`),
			w("description", String), w("enabled", Bool), ro("disabled_reason", String), ro("failing_since", Time),
			doc(ro("secret", String), "the whsec_ signing secret, only in the response that creates the endpoint or rotates its secret"),
		}},
	{Name: "webhook_deliveries", Scope: "webhooks", Access: ReadOnly, Paged: true, AdminOnly: true,
		Doc: "Deliveries of webhook events to endpoints, with their latest attempt. Admin only.",
		Fields: []Field{
			filter(ro("endpoint_id", UUID)), ro("event_id", UUID), ro("event_type", String),
			enum(ro("status", String), "pending", "succeeded", "failed", "cancelled"), ro("attempts", Int),
			ro("last_attempt_at", Time), ro("latency_ms", Int), ro("response_status", Int),
			doc(ro("response_body", String), "the first bytes of the response"), ro("error", String), ro("next_attempt_at", Time),
		}},
	{Name: "competitor_workflows", Scope: "competitors", Access: ReadOnly, Feature: Competitors, Paged: true,
		find: finding{search: []string{"name"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"name", "status", "space_id"}},
		Doc:  "Competitor research workflows.",
		Fields: []Field{
			ro("name", String), filter(ro("status", String)), filter(ro("space_id", UUID)), ro("config", JSON),
		}},
	{Name: "competitor_reports", Scope: "competitors", Access: ReadOnly, Feature: Competitors, Paged: true,
		find: finding{search: []string{"title", "content"}, names: []string{"title"}, sort: []string{"title"}, summary: []string{"workflow_id", "importance", "title"}},
		Doc:  "Findings of competitor research workflows.",
		Fields: []Field{
			filter(ro("workflow_id", UUID)), filter(ro("importance", String)), ro("title", String), text(ro("content", String)),
		}},
	{Name: "agents", Scope: "agents", Access: ReadOnly, Feature: Agents, Paged: true,
		find: finding{search: []string{"name", "description"}, names: []string{"name"}, sort: []string{"name"}, summary: []string{"user_id", "name"}},
		Doc:  "The workspace's AI agents; each acts as its own user.",
		Fields: []Field{
			filter(ro("user_id", UUID)), filter(ro("is_default", Bool)), ro("name", String), text(ro("description", String)),
		}},
	{Name: "users", Scope: "directory", Access: UpdateOnly, Paged: true, SelfOrAdmin: true,
		find: finding{search: []string{"display_name", "email"}, names: []string{"display_name", "email"}, sort: []string{"display_name", "email"}, summary: []string{"display_name", "email", "role", "is_agent", "status"}},
		Doc:  "Members of the workspace. Members may update only their own profile; role, grants and status are not writable.",
		Fields: []Field{
			w("display_name", String), link(w("avatar_url", String)), w("task_color", String), w("timezone", String),
			w("department", String), filter(ro("email", String)), filter(enum(ro("role", String), store.Roles()...)),
			filter(ro("is_agent", Bool)), filter(enum(ro("status", String), "active", "invited", "suspended")),
			doc(ro("grants", JSON), "feature grants: "+strings.Join(store.Features, ", ")+" -> "+store.GrantLevelsText()),
		}},
	{Name: customFieldsName, Scope: "directory", Paged: true, AdminWrites: true, Governed: "resource",
		Doc: "The workspace's own fields on deals, people, companies, tasks, deal_tasks and projects; records carry their values in custom_fields. Creating or updating one needs the admin role.",
		Fields: []Field{
			doc(filter(enum(req("resource", String), customResources...)), "the resource whose records carry the field; never changes"),
			example(doc(req("key", String), "snake_case, unique per resource, never a field of the resource; never changes"), `"tier"`),
			req("label", String),
			doc(filter(enum(req("type", String), customTypeNames()...)), "changes only when every stored value converts"),
			doc(w("options", JSON), "select and multi_select: [{key, label, order, archived}]"),
			doc(enum(w("reference_resource", String), customResources...), "reference: the resource its values name a record of"),
			doc(w("required", Bool), "required on create"), doc(w("unique", Bool), "no two records of the resource hold the same value"),
			doc(w("searchable", Bool), "q matches it (text-like types)"), text(w("description", String)),
			doc(filter(w("archived", Bool)), "hidden from records and schemas, values kept"), w("position", Int),
			doc(ro("ready", Bool), "filters and sorts on the field are index-backed (from its creation on)"),
		}},
	{Name: "workspace", Table: "workspaces", Scope: "directory", Access: Singleton, AdminWrites: true,
		Doc: "The workspace itself (one row). Updating it needs the admin role.",
		Fields: []Field{
			w("name", String), link(w("image_url", String)), w("timezone", String), w("okr_enabled", Bool),
			w("kb_ai_enabled", Bool), w("report_eod_enabled", Bool), w("report_eow_enabled", Bool),
			w("report_eom_enabled", Bool), w("security_contact_email", String),
		}},
	{Name: "credits", Table: "credit_balances", Scope: "credits", Access: ListOnly,
		Doc:    "The workspace's enrichment credit balance (one row).",
		Fields: []Field{big(ro("balance", Int))}},
	{Name: "enrich", Scope: "enrich", Access: WriteOnly,
		Doc:    "Company firmographic lookup by domain (name, website, industry, socials). Fresh lookups spend one credit; lookups cached within 30 days are free.",
		Fields: []Field{doc(req("domain", String), "the company's domain, e.g. example.com")}},
})

// resourceFeatures maps every resource's name to its feature: the entity types of the
// activity trail, whose entity_type is the resource written. withTables fills it.
var resourceFeatures = map[string]Feature{}

// withTables names each resource's table after the resource where the entry leaves it out,
// and fills resourceFeatures.
func withTables(rs []*Resource) []*Resource {
	for _, r := range rs {
		if r.Table == "" {
			r.Table = r.Name
		}
		if r.Feature != NoFeature {
			resourceFeatures[r.Name] = r.Feature
		}
		if r.Custom {
			r.Fields = append(r.Fields, customValuesField)
		}
		for _, n := range r.find.names {
			r.Field(n).trigram = true
		}
	}
	return rs
}

// Catalog returns every resource of the REST API, in the spec's order, as a fresh slice:
// callers may range over it or keep it, but cannot change the catalogue itself.
func Catalog() []*Resource { return slices.Clone(catalog) }

// Lookup finds a resource by name.
func Lookup(name string) *Resource {
	for _, r := range catalog {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Scopes lists the 35 scopes of docs/contract.md section 5.5 (its 33 and the 2 of
// docs/webhooks.md), in catalogue order.
func Scopes() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range catalog {
		if r.CanList() || r.CanGet() {
			add(r.ReadScope())
		}
		if r.CanCreate() || r.CanUpdate() || r.CanDetach() {
			add(r.WriteScope())
		}
	}
	return out
}

// RecordTables lists the tables that hold the catalogue's records of a workspace: every
// resource with a list, except the workspace row itself. Tests seed each of them
// (store.SeedEmptyTables) so a new resource needs no edit to a seed.
func RecordTables() []string {
	var out []string
	for _, r := range catalog {
		if r.CanList() && r.Access != Singleton {
			out = append(out, r.Table)
		}
	}
	return out
}
