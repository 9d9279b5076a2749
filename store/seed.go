package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Demo is what SeedDemo made, printed by the zero-config start and `admin seed-demo`.
type Demo struct {
	WorkspaceID   string `json:"workspace_id"`
	AdminUserID   string `json:"admin_user_id"`
	AdminEmail    string `json:"admin_email"`
	AdminPassword string `json:"admin_password"`
	MemberEmail   string `json:"member_email"`
	AgentKeyID    string `json:"agent_key_id"`
	AgentKey      string `json:"agent_key"`
}

// SeedDemo makes a demo workspace with an admin (password login), a member, two more
// members without a login (Mia Chen, Leo Park), an agent with a key, credits, and the
// records of a small agency (seedAgency). hashPassword turns the generated password into
// the stored hash (the oauth package owns the algorithm). Nothing it does is recorded in
// the audit log.
func (s *Store) SeedDemo(ctx context.Context, hashPassword func(string) (string, error)) (Demo, error) {
	suffix := time.Now().Format("20060102150405.000000")
	var d Demo
	var err error
	if d.WorkspaceID, err = s.CreateWorkspace(ctx, "Demo Agency", By{}); err != nil {
		return d, err
	}
	d.AdminEmail = "admin+" + suffix + "@demo.example"
	d.MemberEmail = "member+" + suffix + "@demo.example"
	plain, _ := NewSecret("")
	d.AdminPassword = plain[:20]
	hash, err := hashPassword(d.AdminPassword)
	if err != nil {
		return d, err
	}
	if d.AdminUserID, err = s.AddMember(ctx, Member{WorkspaceID: d.WorkspaceID, Email: d.AdminEmail, Name: "Demo Admin",
		Role: "admin", PasswordHash: hash}); err != nil {
		return d, err
	}
	users := map[string]string{"admin": d.AdminUserID}
	if users["member"], err = s.AddMember(ctx, Member{WorkspaceID: d.WorkspaceID, Email: d.MemberEmail, Name: "Demo Member",
		Grants: map[string]string{"crm": "full", "metrics": "read"}}); err != nil {
		return d, err
	}
	for key, name := range map[string]string{"mia": "Mia Chen", "leo": "Leo Park"} {
		if users[key], err = s.AddMember(ctx, Member{WorkspaceID: d.WorkspaceID, Email: key + "+" + suffix + "@demo.example",
			Name: name, Grants: map[string]string{"crm": "full"}}); err != nil {
			return d, err
		}
	}
	agent, err := s.CreateAgent(ctx, d.WorkspaceID, "Demo Agent", map[string]string{
		"crm": "full", "hr": "read", "finance": "read", "metrics": "full", "competitors": "read", "agents": "read"}, By{})
	if err != nil {
		return d, err
	}
	d.AgentKeyID, d.AgentKey = agent.KeyID, agent.Key
	if _, err := s.GrantCredits(ctx, d.WorkspaceID, 100, By{}); err != nil {
		return d, err
	}
	return d, s.seedAgency(ctx, d.WorkspaceID, users)
}

// SeedRecords writes one record into every resource table of a workspace, as its admin.
func (s *Store) SeedRecords(ctx context.Context, workspaceID, adminID string) error {
	return s.seedAs(ctx, workspaceID, adminID, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, seedSQL, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		return nil
	})
}

// seedAs runs fn in a transaction of the service's own role with the workspace's admin as
// the actor: defaults (workspace_id, created_by) read the actor, and the seed names the
// workspace in every lookup itself.
func (s *Store) seedAs(ctx context.Context, workspaceID, adminID string, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('app.workspace_id', $1, true), set_config('app.user_id', $2, true),
			set_config('app.role', 'admin', true)`, workspaceID, adminID); err != nil {
			return err
		}
		return fn(tx)
	})
}

// SeedEmptyTables gives each of tables that has no row in the workspace one row made from
// the schema alone, as the workspace's admin. Tests that want a record in every resource
// table call it with the catalogue's tables after SeedRecords, so a new resource is covered
// without an edit to the seed. Each NOT NULL column without a default gets a value of its
// type (the first value its CHECK allows), each (workspace_id, x) foreign key a row of x in
// the workspace; a table waits for its parents, so tables are filled in as many passes as
// the references are deep.
func (s *Store) SeedEmptyTables(ctx context.Context, workspaceID, adminID string, tables []string) error {
	return s.seedAs(ctx, workspaceID, adminID, func(tx pgx.Tx) error {
		for len(tables) > 0 {
			var waiting []string
			for _, table := range tables {
				filled, err := fillTable(ctx, tx, workspaceID, table)
				if err != nil {
					return fmt.Errorf("seed %s: %w", table, err)
				}
				if !filled {
					waiting = append(waiting, table)
				}
			}
			if len(waiting) == len(tables) {
				return fmt.Errorf("seed: cannot fill %v: a NOT NULL reference names a table that stays empty", waiting)
			}
			tables = waiting
		}
		return nil
	})
}

// fillTable inserts the row of SeedEmptyTables into table unless the workspace has one; it
// reports false when a table a NOT NULL reference names has no row yet.
func fillTable(ctx context.Context, tx pgx.Tx, workspaceID, table string) (bool, error) {
	name := pgx.Identifier{table}.Sanitize()
	var has bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+name+` WHERE workspace_id = $1)`, workspaceID).Scan(&has); err != nil || has {
		return true, err
	}
	rows, err := tx.Query(ctx, `
		SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull AND NOT a.atthasdef,
		       coalesce((SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
		                  WHERE c.conrelid = a.attrelid AND c.contype = 'c' AND c.conkey = ARRAY[a.attnum] LIMIT 1), ''),
		       coalesce((SELECT c.confrelid::regclass::text FROM pg_constraint c
		                  WHERE c.conrelid = a.attrelid AND c.contype = 'f' AND a.attnum = ANY (c.conkey)
		                    AND cardinality(c.conkey) = 2 LIMIT 1), '')
		  FROM pg_attribute a
		 WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
		   AND a.attname NOT IN ('id', 'workspace_id', 'created_by', 'created_at', 'updated_at')
		 ORDER BY a.attnum`, table)
	if err != nil {
		return false, err
	}
	type column struct {
		name, typ     string
		needed        bool // NOT NULL without a default
		check, parent string
	}
	cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (column, error) {
		var c column
		return c, r.Scan(&c.name, &c.typ, &c.needed, &c.check, &c.parent)
	})
	if err != nil {
		return false, err
	}
	names, values, args := []string{"workspace_id"}, []string{"$1::uuid"}, []any{workspaceID}
	for _, c := range cols {
		var v string
		switch {
		case c.parent != "":
			var id *string
			err := tx.QueryRow(ctx, `SELECT id::text FROM `+pgx.Identifier{c.parent}.Sanitize()+
				` WHERE workspace_id = $1 LIMIT 1`, workspaceID).Scan(&id)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return false, err
			}
			if id == nil {
				if c.needed {
					return false, nil // its parent is filled in a later pass
				}
				continue
			}
			args = append(args, *id)
			v = fmt.Sprintf("$%d::uuid", len(args))
		case !c.needed:
			continue
		case strings.Contains(c.check, "ANY (ARRAY['"): // an enumeration: CHECK (x = ANY (ARRAY['a'::text, ...]))
			first := c.check[strings.Index(c.check, "'"):]
			v = first[:strings.Index(first[1:], "'")+2] + "::" + c.typ
		default:
			if v = seedValue[c.typ]; v == "" {
				return false, fmt.Errorf("no seed value for %s %s", c.name, c.typ)
			}
		}
		names = append(names, pgx.Identifier{c.name}.Sanitize())
		values = append(values, v)
	}
	_, err = tx.Exec(ctx, `INSERT INTO `+name+` (`+strings.Join(names, ", ")+`) VALUES (`+strings.Join(values, ", ")+`)`, args...)
	return err == nil, err
}

// seedValue is the value fillTable gives a NOT NULL column of each type.
var seedValue = map[string]string{
	"text": "'seed'", "uuid": "gen_random_uuid()", "integer": "1", "bigint": "1", "numeric": "1",
	"boolean": "false", "date": "current_date", "timestamp with time zone": "now()",
	"jsonb": "'{}'::jsonb", "text[]": "'{}'::text[]", "uuid[]": "'{}'::uuid[]",
}

// seedSQL uses w() for the workspace and pick(table) for a record of this workspace.
const seedSQL = `
CREATE TEMP TABLE IF NOT EXISTS seed_ids (tbl text, id uuid) ON COMMIT DROP;
CREATE OR REPLACE FUNCTION pg_temp.pick(t text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM seed_ids WHERE tbl = t LIMIT 1 $$;
WITH r AS (INSERT INTO companies (name, website, industry, size) VALUES ('Acme Corp', 'https://acme.example', 'Manufacturing', '11-50') RETURNING id)
  INSERT INTO seed_ids SELECT 'companies', id FROM r;
WITH r AS (INSERT INTO people (name, company_id, email, position) VALUES ('Ada Lovelace', pg_temp.pick('companies'), 'ada@acme.example', 'CTO') RETURNING id)
  INSERT INTO seed_ids SELECT 'people', id FROM r;
WITH r AS (INSERT INTO pipelines (name, position) VALUES ('Sales', 1) RETURNING id)
  INSERT INTO seed_ids SELECT 'pipelines', id FROM r;
WITH r AS (INSERT INTO pipeline_stages (pipeline_id, name, position, metric_tag) VALUES (pg_temp.pick('pipelines'), 'Contacted', 1, 'messages_sent') RETURNING id)
  INSERT INTO seed_ids SELECT 'pipeline_stages', id FROM r;
WITH r AS (INSERT INTO deals (name, pipeline_id, pipeline_stage_id, owner_id, company_id, value, confidence)
  VALUES ('Acme website', pg_temp.pick('pipelines'), pg_temp.pick('pipeline_stages'), app_user_id(), pg_temp.pick('companies'), 12000, 0.6) RETURNING id)
  INSERT INTO seed_ids SELECT 'deals', id FROM r;
WITH r AS (INSERT INTO labels (name) VALUES ('Hot') RETURNING id) INSERT INTO seed_ids SELECT 'labels', id FROM r;
INSERT INTO deal_people (deal_id, person_id, role, is_primary) VALUES (pg_temp.pick('deals'), pg_temp.pick('people'), 'Decision maker', true);
INSERT INTO deal_labels (deal_id, label_id) VALUES (pg_temp.pick('deals'), pg_temp.pick('labels'));
INSERT INTO crm_files (deal_id, name, url, mime_type, size_bytes) VALUES (pg_temp.pick('deals'), 'proposal.pdf', 'https://files.example/proposal.pdf', 'application/pdf', 48213);
WITH r AS (INSERT INTO deal_tasks (deal_id, name, priority) VALUES (pg_temp.pick('deals'), 'Send proposal', 2) RETURNING id)
  INSERT INTO seed_ids SELECT 'deal_tasks', id FROM r;
WITH r AS (INSERT INTO spaces (name, status, is_default) VALUES ('Acme', 'active', true) RETURNING id)
  INSERT INTO seed_ids SELECT 'spaces', id FROM r;
WITH r AS (INSERT INTO projects (space_id, name, kanban_enabled) VALUES (pg_temp.pick('spaces'), 'Website relaunch', true) RETURNING id)
  INSERT INTO seed_ids SELECT 'projects', id FROM r;
WITH r AS (INSERT INTO project_stages (project_id, name, position) VALUES (pg_temp.pick('projects'), 'To do', 1) RETURNING id)
  INSERT INTO seed_ids SELECT 'project_stages', id FROM r;
INSERT INTO space_members (space_id, user_id) VALUES (pg_temp.pick('spaces'), app_user_id());
INSERT INTO space_updates (space_id, content, status) VALUES (pg_temp.pick('spaces'), 'Kick-off done.', 'on_track');
WITH r AS (INSERT INTO tasks (name, space_id, project_id, stage_id, priority) VALUES ('Wireframes', pg_temp.pick('spaces'), pg_temp.pick('projects'), pg_temp.pick('project_stages'), 3) RETURNING id)
  INSERT INTO seed_ids SELECT 'tasks', id FROM r;
INSERT INTO task_attachments (task_id, space_id, name, url, mime_type, size_bytes) VALUES (pg_temp.pick('tasks'), pg_temp.pick('spaces'), 'wireframe.png', 'https://files.example/wf.png', 'image/png', 1024);
INSERT INTO comments (entity_type, entity_id, content) VALUES ('deal', pg_temp.pick('deals'), 'Call went well.');
INSERT INTO comments (entity_type, entity_id, content) VALUES ('task', pg_temp.pick('tasks'), 'First draft attached.');
WITH r AS (INSERT INTO metric_pages (name, position) VALUES ('Sales', 1) RETURNING id) INSERT INTO seed_ids SELECT 'metric_pages', id FROM r;
WITH r AS (INSERT INTO metrics (name, kind, format, agg, page_id) VALUES ('Messages sent', 'manual', 'number', 'sum', pg_temp.pick('metric_pages')) RETURNING id)
  INSERT INTO seed_ids SELECT 'metrics', id FROM r;
INSERT INTO metric_entries (metric_id, entry_kind, value) VALUES (pg_temp.pick('metrics'), 'number', 42);
INSERT INTO income (name, date, amount, type, recurrence) VALUES ('Acme retainer', current_date, 5000, 'retainer', 'monthly');
INSERT INTO expenses (name, date, amount, type, recurrence) VALUES ('Hosting', current_date, 120, 'software', 'monthly');
INSERT INTO finance_categories (key, label, kind, pl_section, sort) VALUES ('retainer', 'Retainers', 'income', 'revenue', 1);
WITH r AS (INSERT INTO debts (name, total_amount, paid_amount, expense_type) VALUES ('Laptop loan', 3000, 500, 'equipment') RETURNING id)
  INSERT INTO seed_ids SELECT 'debts', id FROM r;
INSERT INTO debt_payments (debt_id, amount, date) VALUES (pg_temp.pick('debts'), 250, current_date);
WITH r AS (INSERT INTO departments (name) VALUES ('Delivery') RETURNING id) INSERT INTO seed_ids SELECT 'departments', id FROM r;
WITH r AS (INSERT INTO team_members (user_id, display_name, team_role, department_id, squads) VALUES (app_user_id(), 'Demo Admin', 'Lead', pg_temp.pick('departments'), '{core}') RETURNING id)
  INSERT INTO seed_ids SELECT 'team_members', id FROM r;
INSERT INTO leave_requests (leave_date, return_date, reason, type) VALUES (current_date + 7, current_date + 9, 'Family visit', 'annual');
INSERT INTO hr_contracts (member_id, name, type, is_current) VALUES (pg_temp.pick('team_members'), 'Employment contract', 'full_time', true);
INSERT INTO hr_change_requests (member_id, type, message, status) VALUES (pg_temp.pick('team_members'), 'title', 'Promote to lead', 'open');
INSERT INTO org_chart (title, user_id, kpis, sort_order) VALUES ('Managing Director', app_user_id(), '["revenue"]', 1);
INSERT INTO documents (name, content) VALUES ('Onboarding', 'Welcome aboard.');
INSERT INTO knowledge (name, type, source, content) VALUES ('Brand guide', 'note', 'manual', 'Use the blue.');
INSERT INTO canvases (name, type, data) VALUES ('Funnel', 'flow', '{"nodes": []}');
WITH r AS (INSERT INTO automations (name, enabled, trigger, actions, section) VALUES ('Welcome mail', true, '{"on": "deal.created"}', '[{"do": "email"}]', 'crm') RETURNING id)
  INSERT INTO seed_ids SELECT 'automations', id FROM r;
INSERT INTO automation_logs (automation_id, success, message) VALUES (pg_temp.pick('automations'), true, 'sent');
WITH r AS (INSERT INTO competitor_workflows (name, status, space_id) VALUES ('Watch rivals', 'active', pg_temp.pick('spaces')) RETURNING id)
  INSERT INTO seed_ids SELECT 'competitor_workflows', id FROM r;
INSERT INTO competitor_reports (workflow_id, importance, title, content) VALUES (pg_temp.pick('competitor_workflows'), 'high', 'Rival price cut', 'They cut prices by 10%.');
INSERT INTO enrichment_cache (domain, result) VALUES ('acme.example', '{"name": "Acme Corp"}');
`
