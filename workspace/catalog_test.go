package workspace_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// specRow is one row of docs/contract.md section 2.1, transcribed as written.
type specRow struct {
	name, scope, access, required, filters string
}

// spec21 is the table of docs/contract.md section 2.1 (filters without their type notes).
var spec21 = []specRow{
	// Not in the spec: status, the outcome of the deal's stage (docs/rest.md, "Deal status"), additive.
	{"deals", "deals", "read, write", "name, pipeline_id", "pipeline_id, pipeline_stage_id, owner_id, company_id, status"},
	{"deal_people", "deals", "read, write, detach", "deal_id, person_id", "deal_id, person_id"},
	{"deal_labels", "deals", "read, write, detach", "deal_id, label_id", "deal_id, label_id"},
	{"crm_files", "deals", "read only", "", "deal_id"},
	{"people", "people", "read, write", "name", "company_id, email"},
	{"companies", "companies", "read, write", "name", "industry"},
	{"pipelines", "pipelines", "read, write", "name", ""},
	{"pipeline_stages", "pipelines", "read, write", "pipeline_id, name", "pipeline_id"},
	{"deal_tasks", "tasks", "read, write", "deal_id, name", "deal_id, assignee_id, completed, is_private"},
	{"tasks", "tasks", "read, write", "name", "space_id, project_id, assignee_id, stage_id, completed, is_private"},
	{"task_attachments", "tasks", "read only", "", "task_id, crm_task_id, space_id"},
	{"spaces", "spaces", "read, write", "name", "status, is_default"},
	{"projects", "spaces", "read, write", "space_id, name", "space_id"},
	{"project_stages", "spaces", "read, write", "project_id, name", "project_id"},
	{"space_members", "spaces", "read, write, detach", "space_id, user_id", "space_id, user_id"},
	{"space_updates", "spaces", "read, write", "space_id, content", "space_id, status"},
	{"labels", "labels", "read, write", "name", ""},
	{"comments", "comments", "read, write", "entity_type, entity_id, content", "entity_type, entity_id"},
	{"activity", "activity", "read only", "", "entity_type, entity_id"},
	{"metrics", "metrics", "read, write", "name", "page_id, kind"},
	{"metric_pages", "metrics", "read, write", "name", ""},
	{"metric_entries", "metrics", "read, write", "metric_id, entry_kind", "metric_id, entry_kind"},
	{"income", "finance", "read, write", "name, date, amount, type", "type, recurrence"},
	{"expenses", "finance", "read, write", "name, date, amount, type", "type, recurrence"},
	{"finance_categories", "finance", "read, write", "key, label, kind, pl_section", "kind, pl_section"},
	{"debts", "finance", "read, write", "name, total_amount, expense_type", "expense_type"},
	{"debt_payments", "finance", "read, write", "debt_id, amount, date", "debt_id"},
	{"team_members", "hr", "read, write", "display_name", "archived, department_id, user_id, team_role"},
	{"departments", "hr", "read, write", "name", ""},
	{"leave_requests", "hr", "read, write", "leave_date, return_date, reason", "user_id, status, type"},
	{"hr_contracts", "hr", "read, write", "member_id", "member_id, is_current"},
	{"hr_change_requests", "hr", "read, write", "member_id", "member_id, status"},
	{"org_chart", "hr", "read, write", "", "parent_id, user_id"},
	{"documents", "docs", "read, write", "name", ""},
	{"knowledge", "docs", "read, write", "name", "type, source"},
	{"canvases", "docs", "read, write", "type", "type, folder_id, is_knowledge_base"},
	{"automations", "automations", "read, write", "name", "enabled, section"},
	{"automation_logs", "automations", "read only", "", "automation_id, success"},
	// Not in the spec: webhooks (docs/webhooks.md), additive.
	{"webhook_endpoints", "webhooks", "read, write", "url", ""},
	{"webhook_deliveries", "webhooks", "read only", "", "endpoint_id"},
	{"competitor_workflows", "competitors", "read only", "", "status, space_id"},
	{"competitor_reports", "competitors", "read only", "", "workflow_id, importance"},
	{"agents", "agents", "read only", "", "user_id, is_default"},
	{"users", "directory", "read, update", "", "email, role, is_agent, status"},
	// Not in the spec: custom fields (docs/rest.md, "Custom fields"), additive.
	{"custom_fields", "directory", "read, write", "resource, key, label, type", "resource, type, archived"},
	{"workspace", "directory", "read, update", "", ""},
	{"credits", "credits", "read only", "", ""},
	{"enrich", "enrich", "write only", "domain", ""},
}

// spec22 is the table of docs/contract.md section 2.2: writable fields, enumerations in
// parentheses as the spec writes them. Not in the spec, additive: pipeline_stages.outcome
// (docs/rest.md, "Deal status"); custom_fields on the records that take custom fields
// and the resource of their definitions (docs/rest.md, "Custom fields").
var spec22 = map[string]string{
	"custom_fields":      "resource (deals, people, companies, tasks, deal_tasks, projects), key, label, type (text, long_text, number, money, date, timestamp, boolean, select, multi_select, url, email, phone, member, reference), options, reference_resource (deals, people, companies, tasks, deal_tasks, projects), required, unique, searchable, description, archived, position",
	"webhook_endpoints":  "url, events, description, enabled",
	"deals":              "name, pipeline_id, pipeline_stage_id, owner_id, value, confidence, website, instagram, twitter, notes, company_id, custom_fields",
	"deal_people":        "deal_id, person_id, role, is_primary",
	"deal_labels":        "deal_id, label_id",
	"people":             "name, company, company_id, phone, email, position, linkedin_url, twitter_url, custom_fields",
	"companies":          "name, website, instagram, linkedin, twitter, industry, size, notes, custom_fields",
	"pipelines":          "name, position",
	"pipeline_stages":    "pipeline_id, name, position, metric_tag (messages_sent, responses, positive_responses, deals_closed), outcome (open, won, lost)",
	"deal_tasks":         "deal_id, name, assignee_id, assignee_ids, due_date, start_date, priority, completed, description, is_private, custom_fields",
	"tasks":              "name, space_id, project_id, assignee_id, assignee_ids, due_date, start_date, priority, completed, description, is_private, stage_id, parent_task_id, custom_fields",
	"spaces":             "name, image_url, is_default, status, notes",
	"projects":           "space_id, name, position, start_date, end_date, kanban_enabled, custom_fields",
	"project_stages":     "project_id, name, position, color, icon",
	"space_members":      "space_id, user_id",
	"space_updates":      "space_id, content, status",
	"labels":             "name",
	"comments":           "entity_type (deal, task), entity_id, content",
	"metrics":            "name, kind (formula, date_diff, manual), formula, format (number, currency, percent, days, hours), date_range, date_from, date_to, manual_type (number, date_range, time_range), agg (avg, sum, count, latest), page_id, position, slug, member_ids, space_ids, pipeline_ids",
	"metric_pages":       "name, position",
	"metric_entries":     "metric_id, entry_kind (number, date_range, time_range), value, from_ts, to_ts, note",
	"income":             "name, date, amount, type, recurrence (one_time, monthly), avatar_url",
	"expenses":           "name, date, amount, type, recurrence (one_time, monthly), avatar_url",
	"finance_categories": "key, label, kind (income, expense), pl_section (revenue, contra_revenue, cm1, cm2, cm3), sort",
	"debts":              "name, total_amount, paid_amount, expense_type, notes",
	"debt_payments":      "debt_id, amount, date",
	"team_members":       "user_id, display_name, team_role, squads, authority_user_id, salary, date_hired, left_date, phone, email, contract_url, contract_name, archived, avatar_url, slack_user_id, location, department_id, summary, gender",
	"departments":        "name",
	"leave_requests":     "leave_date, return_date, reason, type (annual, sick, personal), status (pending, approved, rejected), review_reason",
	"hr_contracts":       "member_id, name, type, url, storage_path, date, is_current",
	"hr_change_requests": "member_id, type, message, status",
	"org_chart":          "parent_id, title, user_id, kpis, sort_order",
	"documents":          "name, content, icon, icon_color",
	"knowledge":          "name, type, url, storage_path, mime_type, size_bytes, source, content, icon_url, external_id",
	"canvases":           "name, type, data, folder_id, is_knowledge_base",
	"automations":        "name, enabled, trigger, conditions, condition_logic, actions, section",
	"users":              "display_name, avatar_url, task_color, timezone, department",
	"workspace":          "name, image_url, timezone, okr_enabled, kb_ai_enabled, report_eod_enabled, report_eow_enabled, report_eom_enabled, security_contact_email",
	"enrich":             "domain",
}

// spec55Features is the feature each scope's resources need (docs/contract.md section 4.1 rule 5, 5.6).
var specFeatures = map[string]workspace.Feature{
	"deals": workspace.CRM, "deal_people": workspace.CRM, "deal_labels": workspace.CRM, "crm_files": workspace.CRM,
	"people": workspace.CRM, "companies": workspace.CRM, "pipelines": workspace.CRM, "pipeline_stages": workspace.CRM,
	"deal_tasks": workspace.CRM, "metrics": workspace.Metrics, "metric_pages": workspace.Metrics, "metric_entries": workspace.Metrics,
	"income": workspace.Finance, "expenses": workspace.Finance, "finance_categories": workspace.Finance, "debts": workspace.Finance,
	"debt_payments": workspace.Finance, "team_members": workspace.HR, "departments": workspace.HR, "leave_requests": workspace.HR,
	"hr_contracts": workspace.HR, "hr_change_requests": workspace.HR, "org_chart": workspace.HR,
	"competitor_workflows": workspace.Competitors, "competitor_reports": workspace.Competitors, "agents": workspace.Agents,
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ", ")
}

// TestCatalogMatchesSpec compares Catalog with the spec's tables row by row.
func TestCatalogMatchesSpec(t *testing.T) {
	if len(workspace.Catalog()) != len(spec21) {
		t.Fatalf("catalogue has %d resources, docs/contract.md section 2.1 has %d", len(workspace.Catalog()), len(spec21))
	}
	for i, want := range spec21 {
		r := workspace.Catalog()[i]
		t.Run(want.name, func(t *testing.T) {
			got := specRow{r.Name, r.Scope, r.Access.String(), strings.Join(names(r.Required()), ", "),
				strings.Join(names(r.Filters()), ", ")}
			// Filters are compared as sets: the spec's order is not the schema's.
			gotF, wantF := split(got.filters), split(want.filters)
			slices.Sort(gotF)
			slices.Sort(wantF)
			got.filters, want.filters = strings.Join(gotF, ", "), strings.Join(wantF, ", ")
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(specRow{})); diff != "" {
				t.Errorf("2.1 row (-spec +catalogue):\n%s", diff)
			}
			var writable []string
			for _, f := range r.Writable() {
				w := f.Name
				if len(f.Enum) > 0 && r.Name != "users" {
					w += " (" + strings.Join(f.Enum, ", ") + ")"
				}
				writable = append(writable, w)
			}
			if diff := cmp.Diff(spec22[r.Name], strings.Join(writable, ", ")); diff != "" {
				t.Errorf("2.2 writable fields (-spec +catalogue):\n%s", diff)
			}
			if r.Feature != specFeatures[r.Name] {
				t.Errorf("feature %q, spec says %q", r.Feature, specFeatures[r.Name])
			}
			if wantPaged := !slices.Contains([]string{"deal_people", "deal_labels", "space_members", "project_stages",
				"credits", "workspace", "enrich"}, r.Name); r.Paged != wantPaged {
				t.Errorf("paged %v, docs/contract.md section 4.1 rule 2 says %v", r.Paged, wantPaged)
			}
		})
	}
	// The scopes (docs/contract.md section 5.5) follow from the rows of section 2.1: a read
	// scope for what can be read, a write scope for what can be changed.
	var wantScopes []string
	for _, row := range spec21 {
		if row.access != "write only" {
			wantScopes = append(wantScopes, row.scope+":read")
		}
		if row.access != "read only" {
			wantScopes = append(wantScopes, row.scope+":write")
		}
	}
	slices.Sort(wantScopes)
	if diff := cmp.Diff(slices.Compact(wantScopes), slices.Sorted(slices.Values(workspace.Scopes()))); diff != "" {
		t.Errorf("scopes (-want, from docs/contract.md sections 2.1 and 5.5; +got, the catalogue):\n%s", diff)
	}
}

func names(fs []workspace.Field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// TestCatalogMatchesDatabase checks every catalogue field against its table: the column
// exists, its type fits the field's type, required fields and booleans are NOT NULL (the
// OpenAPI record schemas rely on it), and the base columns the records show exist.
func TestCatalogMatchesDatabase(t *testing.T) {
	type column struct {
		typ, udt string
		nullable bool
	}
	cols := map[string]map[string]column{}
	rows, err := storetest.Pool(t).Query(context.Background(), `SELECT table_name, column_name, data_type, udt_name, is_nullable = 'YES'
		FROM information_schema.columns WHERE table_schema = 'public'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl, col string
		var c column
		if err := rows.Scan(&tbl, &col, &c.typ, &c.udt, &c.nullable); err != nil {
			t.Fatal(err)
		}
		if cols[tbl] == nil {
			cols[tbl] = map[string]column{}
		}
		cols[tbl][col] = c
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	// castTo is PostgreSQL's name of the type a field's values are cast to: its column must
	// be of that type (an Int's, integer or bigint as Big says).
	castTo := func(tp workspace.Type) string {
		var name string
		if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT typname FROM pg_type WHERE oid = $1::regtype`,
			tp.SQLType()).Scan(&name); err != nil {
			t.Fatalf("type %s: %v", tp.SQLType(), err)
		}
		return name
	}
	for _, r := range workspace.Catalog() {
		if r.Access == workspace.WriteOnly {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			table := cols[r.Table]
			if table == nil {
				t.Fatalf("no table %s", r.Table)
			}
			for _, name := range workspace.Columns(r) {
				if _, ok := table[name]; !ok {
					t.Errorf("%s.%s: no such column", r.Table, name)
				}
			}
			for _, f := range r.Fields {
				c, ok := table[f.Name]
				if !ok {
					continue
				}
				if f.Type == workspace.Int {
					if want := map[bool]string{false: "int4", true: "int8"}[f.Big]; c.udt != want {
						t.Errorf("%s.%s is %s, the catalogue says Big %v", r.Table, f.Name, c.udt, f.Big)
					}
				} else if want := castTo(f.Type); c.udt != want {
					t.Errorf("%s.%s is %s, the catalogue says %s", r.Table, f.Name, c.udt, f.Type.SQLType())
				}
				if (f.Required || f.Type == workspace.Bool) && c.nullable {
					t.Errorf("%s.%s is nullable but required or boolean", r.Table, f.Name)
				}
			}
		})
	}
}

// TestCatalogIsACopy checks that a caller changing the slice Catalog returns does not
// change the catalogue every other caller sees.
func TestCatalogIsACopy(t *testing.T) {
	first := workspace.Catalog()
	name := first[0].Name
	first[0] = &workspace.Resource{Name: "tampered"}
	_ = append(first[:1], first[2:]...)
	if got := workspace.Catalog(); got[0].Name != name || len(got) != len(first) || workspace.Lookup(name) == nil {
		t.Fatalf("changing Catalog's result changed the catalogue: first resource %q, %d resources", got[0].Name, len(got))
	}
}
