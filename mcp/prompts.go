package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// Prompts (docs/mcp.md "Prompts"): the work agencies do with the tools, as templates a
// client offers as slash commands. Each names the tools it calls; it is listed only when
// the caller may run them (the check tools/list makes), and its arguments name records
// by name or id, which prompts/get resolves through the operation layer, so a record the
// caller cannot read is never named back.

// argKind is what a prompt argument names: a catalogue resource whose records complete
// and resolve by name, or a period.
type argKind string

const (
	kindPeriod argKind = "period"
)

// promptArg is one argument of a prompt.
type promptArg struct {
	name     string
	desc     string
	required bool
	kind     argKind // a resource name, or kindPeriod
}

// resolved is a prompt argument's record: its id and name.
type resolved struct{ id, name string }

// promptInput is what a prompt's text is written from.
type promptInput struct {
	records map[string]resolved // by argument name; absent when not given
	since   time.Time           // the period's first day
	period  string
	today   time.Time
	tool    func(name string) string // how to call a tool on this connection
	may     func(name string) bool   // whether the caller may run a tool
}

// promptDef is one prompt.
type promptDef struct {
	name, title, desc string
	args              []promptArg
	tools             []string // the tools it calls; listed only when all may run
	text              func(in promptInput) string
}

func (d *promptDef) arg(name string) *promptArg {
	for i := range d.args {
		if d.args[i].name == name {
			return &d.args[i]
		}
	}
	return nil
}

// periods are the values of a period argument and their length in days.
var periods = []period{{"week", 7}, {"month", 30}, {"quarter", 91}}

// period is a value of a period argument.
type period struct {
	name string
	days int
}

func periodNames() []string {
	var out []string
	for _, p := range periods {
		out = append(out, p.name)
	}
	return out
}

// where writes a list tool's where argument.
func where(conds ...string) string { return "where [" + strings.Join(conds, ", ") + "]" }

func cond(field, op, value string) string {
	return fmt.Sprintf(`{field: %s, op: %s, value: "%s"}`, field, op, value)
}

func day(t time.Time) string { return t.Format(time.DateOnly) }

// prompts are the server's prompts, in the order docs/mcp.md lists them.
var prompts = []promptDef{
	{name: "pipeline_review", title: "Pipeline review",
		desc: "Review a sales pipeline over a period: value per stage, what moved, what is stuck, next steps.",
		args: []promptArg{
			{name: "pipeline", desc: "the pipeline's name or id", required: true, kind: "pipelines"},
			{name: "period", desc: "week (default), month or quarter", kind: kindPeriod},
		},
		tools: []string{"list_pipeline_stages", "list_deals"},
		text: func(in promptInput) string {
			pl := in.records["pipeline"]
			var b strings.Builder
			fmt.Fprintf(&b, "Review the sales pipeline %q (id %s) for the last %s, %s to %s.\n\n", pl.name, pl.id, in.period, day(in.since), day(in.today))
			fmt.Fprintf(&b, "1. Its stages, in order: %s with %s (or read the resource %s).\n", in.tool("list_pipeline_stages"),
				where(cond("pipeline_id", "eq", pl.id)), uriPipelines)
			fmt.Fprintf(&b, "2. Its deals: %s with %s and fields \"name,pipeline_stage_id,value,confidence,owner_id,updated_at\"; follow next_cursor until it is null.\n",
				in.tool("list_deals"), where(cond("pipeline_id", "eq", pl.id)))
			fmt.Fprintf(&b, "3. What changed in the period: the same list with %s.\n",
				where(cond("pipeline_id", "eq", pl.id), cond("updated_at", "gte", day(in.since))))
			if in.may("list_deal_tasks") {
				fmt.Fprintf(&b, "4. Open tasks on the largest deals: %s with %s.\n", in.tool("list_deal_tasks"),
					where(cond("deal_id", "in", "<deal ids>"), cond("completed", "eq", "false")))
			}
			b.WriteString("\nThen write the review: total and weighted value per stage, deals that moved or were won, deals not updated " +
				"since " + day(in.since) + " (stuck), the five largest open deals, risks, and next steps with an owner each. " +
				"Change no record unless I ask.")
			return b.String()
		}},
	{name: "overdue_triage", title: "Overdue task triage",
		desc: "Triage overdue tasks of a member or a space: what to do now, reschedule, reassign or close.",
		args: []promptArg{
			{name: "assignee", desc: "a member's name, email or id", kind: "users"},
			{name: "space", desc: "a space's name or id", kind: "spaces"},
		},
		tools: []string{"list_tasks"},
		text: func(in promptInput) string {
			conds := []string{cond("due_date", "lt", day(in.today)), cond("completed", "eq", "false")}
			scope := ""
			if a, ok := in.records["assignee"]; ok {
				conds = append(conds, cond("assignee_id", "eq", a.id))
				scope += fmt.Sprintf(" assigned to %s (id %s)", a.name, a.id)
			}
			if sp, ok := in.records["space"]; ok {
				conds = append(conds, cond("space_id", "eq", sp.id))
				scope += fmt.Sprintf(" in the space %q (id %s)", sp.name, sp.id)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Triage the overdue tasks%s: due before %s and not completed.\n\n", scope, day(in.today))
			fmt.Fprintf(&b, "1. %s with %s, sort \"due_date\"; follow next_cursor until it is null.\n", in.tool("list_tasks"), where(conds...))
			if in.may("get_tasks") {
				fmt.Fprintf(&b, "2. Read a task's description with %s when the name does not say enough.\n", in.tool("get_tasks"))
			}
			b.WriteString("\nGroup them by how late they are (over 30 days, 8-30, up to 7) and by assignee. For each, propose one of: " +
				"do now, reschedule (a new due_date), reassign, or close as no longer needed, with a one-line reason.")
			if in.may("update_tasks") {
				fmt.Fprintf(&b, " When I approve, apply each change with %s (due_date, assignee_id or completed), one call per task.", in.tool("update_tasks"))
			}
			return b.String()
		}},
	{name: "account_brief", title: "Account brief",
		desc:  "Brief on a company: who they are, contacts, deals and where each stands, risks and the next step.",
		args:  []promptArg{{name: "company", desc: "the company's name or id", required: true, kind: "companies"}},
		tools: []string{"get_companies", "list_people", "list_deals"},
		text: func(in promptInput) string {
			c := in.records["company"]
			var b strings.Builder
			fmt.Fprintf(&b, "Prepare a brief on the account %q (company id %s, resource %s).\n\n", c.name, c.id, recordURI("companies", c.id))
			fmt.Fprintf(&b, "1. The company: %s with id %s.\n", in.tool("get_companies"), c.id)
			fmt.Fprintf(&b, "2. Its contacts: %s with %s.\n", in.tool("list_people"), where(cond("company_id", "eq", c.id)))
			fmt.Fprintf(&b, "3. Its deals: %s with %s and fields \"name,pipeline_stage_id,value,confidence,owner_id,updated_at\".\n",
				in.tool("list_deals"), where(cond("company_id", "eq", c.id)))
			if in.may("list_activity") {
				fmt.Fprintf(&b, "4. Recent changes to those deals: %s with %s.\n", in.tool("list_activity"), where(cond("entity_id", "in", "<deal ids>")))
			}
			b.WriteString("\nThen write the brief: who they are (industry, size, website), key contacts and their roles, open deals with " +
				"stage and value, what happened recently, risks and opportunities, and the one next step you recommend.")
			return b.String()
		}},
	{name: "meeting_prep", title: "Meeting prep",
		desc:  "Prepare for a meeting with a person: who they are, their company, shared deals, talking points.",
		args:  []promptArg{{name: "person", desc: "the person's name, email or id", required: true, kind: "people"}},
		tools: []string{"get_people"},
		text: func(in promptInput) string {
			pe := in.records["person"]
			var b strings.Builder
			fmt.Fprintf(&b, "Prepare me for a meeting with %s (person id %s, resource %s).\n\n", pe.name, pe.id, recordURI("people", pe.id))
			fmt.Fprintf(&b, "1. The person: %s with id %s (position, company, contact details).\n", in.tool("get_people"), pe.id)
			n := 2
			if in.may("get_companies") {
				fmt.Fprintf(&b, "%d. Their company, when company_id is set: %s.\n", n, in.tool("get_companies"))
				n++
			}
			if in.may("list_deal_people") && in.may("get_deals") {
				fmt.Fprintf(&b, "%d. Deals they are on: %s with %s, then %s for each deal_id.\n", n, in.tool("list_deal_people"),
					where(cond("person_id", "eq", pe.id)), in.tool("get_deals"))
				n++
			}
			if in.may("list_comments") {
				fmt.Fprintf(&b, "%d. The latest comments on those deals: %s with %s.\n", n, in.tool("list_comments"),
					where(cond("entity_type", "eq", "deal"), cond("entity_id", "in", "<deal ids>")))
			}
			b.WriteString("\nThen write a one-page prep: who they are, their company, each shared deal and where it stands, open " +
				"questions, and three talking points.")
			return b.String()
		}},
	{name: "weekly_client_update", title: "Weekly client update",
		desc:  "Draft the weekly update for a client space: done, in progress, next, and what we need from the client.",
		args:  []promptArg{{name: "space", desc: "the client space's name or id", required: true, kind: "spaces"}},
		tools: []string{"get_spaces", "list_tasks", "list_space_updates"},
		text: func(in promptInput) string {
			sp := in.records["space"]
			var b strings.Builder
			fmt.Fprintf(&b, "Draft this week's update for the client space %q (space id %s), covering %s to %s.\n\n", sp.name, sp.id,
				day(in.since), day(in.today))
			fmt.Fprintf(&b, "1. The space: %s with id %s.\n", in.tool("get_spaces"), sp.id)
			fmt.Fprintf(&b, "2. Tasks changed this week: %s with %s; open tasks due next week: %s.\n", in.tool("list_tasks"),
				where(cond("space_id", "eq", sp.id), cond("updated_at", "gte", day(in.since))),
				where(cond("space_id", "eq", sp.id), cond("completed", "eq", "false"), cond("due_date", "lte", day(in.today.AddDate(0, 0, 7)))))
			fmt.Fprintf(&b, "3. The last updates, to keep their voice: %s with %s, limit 3.\n", in.tool("list_space_updates"),
				where(cond("space_id", "eq", sp.id)))
			b.WriteString("\nThen write a short client-facing update: done this week, in progress, planned for next week, and " +
				"blockers or what we need from the client. No internal names of tools or ids.")
			if in.may("create_space_updates") {
				fmt.Fprintf(&b, " When I approve the draft, post it with %s {space_id: %q, content}.", in.tool("create_space_updates"), sp.id)
			}
			return b.String()
		}},
}

// promptList is every prompt as MCP describes it.
func (s *Server) promptList() []mcpgo.Prompt {
	out := make([]mcpgo.Prompt, 0, len(prompts))
	for _, d := range prompts {
		out = append(out, describePrompt(d))
	}
	return out
}

func describePrompt(d promptDef) mcpgo.Prompt {
	pr := mcpgo.Prompt{Name: d.name, Title: d.title, Description: d.desc}
	for _, a := range d.args {
		pr.Arguments = append(pr.Arguments, mcpgo.PromptArgument{Name: a.name, Description: a.desc, Required: a.required})
	}
	return pr
}

// findPrompt returns the named prompt's definition.
func findPrompt(name string) (*promptDef, bool) {
	i := slices.IndexFunc(prompts, func(d promptDef) bool { return d.name == name })
	if i < 0 {
		return nil, false
	}
	return &prompts[i], true
}

// addPrompts registers every prompt.
func (s *Server) addPrompts(m *server.MCPServer) {
	for i := range prompts {
		m.AddPrompt(describePrompt(prompts[i]), s.getPrompt(&prompts[i]))
	}
}

// promptVisible reports whether the caller may run every tool the prompt calls.
func (s *Server) promptVisible(ctx context.Context, d *promptDef) bool {
	for _, t := range d.tools {
		if !s.may(ctx, t) {
			return false
		}
	}
	return true
}

// visiblePrompts is the prompt filter: mcp-go runs it on prompts/list and, with the one
// prompt asked for, on prompts/get, which then answers as for an unknown prompt.
func (s *Server) visiblePrompts(ctx context.Context, list []mcpgo.Prompt) []mcpgo.Prompt {
	out := list[:0:0]
	for _, pr := range list {
		if d, ok := findPrompt(pr.Name); ok && s.promptVisible(ctx, d) || s.fixtureVisible(ctx, pr.Name) {
			out = append(out, pr)
		}
	}
	return out
}

// toolRef is how a prompt names a tool: by name when this connection lists it, else
// through call_tool, which runs any tool the caller may use.
func (s *Server) toolRef(ctx context.Context, name string) string {
	if viewFrom(ctx).shows(s.specs[name]) {
		return "`" + name + "`"
	}
	return "`" + toolCall + "` with name `" + name + "`"
}

// getPrompt answers prompts/get: arguments checked (unknown, missing, or naming no record
// the caller can read: invalid params), records resolved by name or id through the
// operation layer, the call charged to the caller's budget as one tool call.
func (s *Server) getPrompt(d *promptDef) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		p := httpx.PrincipalFrom(ctx)
		if p == nil {
			return nil, invalidParams(ctx, "prompt %q not found", d.name)
		}
		args := req.Params.Arguments
		for name := range args {
			if d.arg(name) == nil {
				return nil, invalidParams(ctx, "prompt %s takes no argument %q; it takes %s", d.name, name, argNames(d))
			}
		}
		in := promptInput{records: map[string]resolved{}, today: time.Now().UTC().Truncate(24 * time.Hour), period: periods[0].name,
			tool: func(n string) string { return s.toolRef(ctx, n) }, may: func(n string) bool { return s.may(ctx, n) }}
		in.since = in.today.AddDate(0, 0, -periods[0].days)
		// Arguments checked without the database first, so a bad period is answered as
		// such whatever the other arguments name; then records are resolved.
		names := map[string]string{}
		for _, a := range d.args {
			v := strings.TrimSpace(args[a.name])
			switch {
			case v == "" && a.required:
				return nil, invalidParams(ctx, "prompt %s needs the argument %s (%s)", d.name, a.name, a.desc)
			case v == "":
			case a.kind == kindPeriod:
				i := slices.IndexFunc(periods, func(pd period) bool { return strings.EqualFold(pd.name, v) })
				if i < 0 {
					return nil, invalidParams(ctx, "%s must be one of %s, not %q", a.name, strings.Join(periodNames(), ", "), v)
				}
				in.period, in.since = periods[i].name, in.today.AddDate(0, 0, -periods[i].days)
			default:
				names[a.name] = v
			}
		}
		if len(names) > 0 {
			if err := s.takeRate(ctx, p); err != nil {
				return nil, s.failure(ctx, err, "")
			}
		}
		for _, a := range d.args {
			if v, ok := names[a.name]; ok {
				rec, err := s.resolve(ctx, p, workspace.Lookup(string(a.kind)), v)
				if err != nil {
					return nil, err
				}
				in.records[a.name] = rec
			}
		}
		text := d.text(in)
		return mcpgo.NewGetPromptResult(d.desc, []mcpgo.PromptMessage{
			mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent(text)),
		}), nil
	}
}

func argNames(d *promptDef) string {
	var out []string
	for _, a := range d.args {
		out = append(out, a.name)
	}
	return strings.Join(out, ", ")
}

// resolve finds the record of r a prompt argument names: an id is read as get_ reads it;
// a name is looked up with list_'s q (the best match, an exact one first). Both pass the
// gates and row-level security, so a record the caller cannot read names nothing.
func (s *Server) resolve(ctx context.Context, p *auth.Principal, r *workspace.Resource, v string) (resolved, error) {
	names := r.NameFields()
	if uuid.Validate(v) == nil && len(v) == 36 {
		rec, err := s.cfg.Ops.GetFields(ctx, p, r, v, names)
		if err != nil {
			if store.AsError(err).Code == apierr.CodeNotFound {
				return resolved{}, invalidParams(ctx, "no %s with id %s that you can read", human(r.Name), v)
			}
			return resolved{}, s.failure(ctx, err, "")
		}
		var m map[string]json.RawMessage
		_ = json.Unmarshal(rec, &m)
		return resolved{id: v, name: recordName(r, m)}, nil
	}
	found, _, err := s.matches(ctx, p, r, v, 5)
	if err != nil {
		return resolved{}, s.failure(ctx, err, "")
	}
	if len(found) == 0 {
		return resolved{}, invalidParams(ctx, "no %s matching %q that you can read", human(r.Name), v)
	}
	for _, f := range found {
		if strings.EqualFold(f.name, v) || slices.ContainsFunc(f.alt, func(a string) bool { return strings.EqualFold(a, v) }) {
			return f.resolved, nil
		}
	}
	return found[0].resolved, nil
}

// match is a record a name search found: its id, its name, and its other name fields.
type match struct {
	resolved
	alt []string
}

// matches looks up to limit records of r by name, best first: with q when v has a letter
// or digit (word prefixes, case and accents ignored, through the search indexes), else
// by name order (the sort index). It reports whether there were more.
func (s *Server) matches(ctx context.Context, p *auth.Principal, r *workspace.Resource, v string, limit int) ([]match, bool, error) {
	names := r.NameFields()
	params := workspace.ListParams{Limit: limit + 1, Fields: names}
	if strings.IndexFunc(v, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }) >= 0 {
		if rs := []rune(v); len(rs) > workspace.MaxQLen {
			v = string(rs[:workspace.MaxQLen])
		}
		params.Q = &v
	} else if len(names) > 0 && slices.Contains(r.SortFields(), names[0]) {
		params.Sort = &names[0]
	}
	page, err := s.cfg.Ops.List(ctx, p, r, params)
	if err != nil {
		return nil, false, err
	}
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(page.Data, &rows); err != nil {
		return nil, false, fmt.Errorf("mcp: decode %s page: %w", r.Name, err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	out := make([]match, 0, len(rows))
	for _, row := range rows {
		m := match{resolved: resolved{id: plain(row["id"]), name: recordName(r, row)}}
		for _, n := range names {
			if a := plain(row[n]); a != "" {
				m.alt = append(m.alt, a)
			}
		}
		out = append(out, m)
	}
	return out, more, nil
}

// recordName is a record's first non-empty name field, else its id.
func recordName(r *workspace.Resource, row map[string]json.RawMessage) string {
	for _, n := range r.NameFields() {
		if v := plain(row[n]); v != "" {
			return v
		}
	}
	return plain(row["id"])
}
