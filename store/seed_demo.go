package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// seedAgency writes the demo's records into a workspace: a small agency with two
// pipelines (each with open, won and lost stages), 30 deals with values and owners,
// companies and people, spaces with projects and tasks (due dates relative to today, some
// overdue), comments, a month of income and expenses, and a record or two in every other
// table. users maps the keys demoSQL names (admin, member, mia, leo) to the members.
//
// It writes with no actor: the defaults that read the actor (created_by) stay empty and
// the triggers that record a write in the audit log or the webhook outbox, which record
// only writes an actor makes, record nothing (docs/console.md, "Audit log"). Columns that
// name a person (owners, assignees, authors) are set from users.
// The pg_temp functions it makes stay in the connection's session; each run replaces them.
func (s *Store) seedAgency(ctx context.Context, workspaceID string, users map[string]string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('app.workspace_id', $1, true), set_config('app.user_id', '', true)`,
			workspaceID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE seed_users (k text PRIMARY KEY, id uuid NOT NULL) ON COMMIT DROP`); err != nil {
			return err
		}
		for k, id := range users {
			if _, err := tx.Exec(ctx, `INSERT INTO seed_users VALUES ($1, $2)`, k, id); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, demoSQL, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("seed the demo: %w", err)
		}
		return nil
	})
}

// demoSQL finds records of the workspace by name with the pg_temp functions: u(key) is a
// member, co(name) a company, id(table, column, value) any other record, and so on. Dates are relative to the day it runs.
const demoSQL = `
CREATE OR REPLACE FUNCTION pg_temp.u(k text) RETURNS uuid LANGUAGE sql AS $$ SELECT id FROM seed_users WHERE seed_users.k = u.k $$;
CREATE OR REPLACE FUNCTION pg_temp.co(n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM companies WHERE workspace_id = app_workspace_id() AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.person(n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM people WHERE workspace_id = app_workspace_id() AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.pipeline(n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM pipelines WHERE workspace_id = app_workspace_id() AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.stage(p text, n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM pipeline_stages WHERE workspace_id = app_workspace_id() AND pipeline_id = pg_temp.pipeline(p) AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.deal(n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM deals WHERE workspace_id = app_workspace_id() AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.space(n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM spaces WHERE workspace_id = app_workspace_id() AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.project(n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM projects WHERE workspace_id = app_workspace_id() AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.pstage(p text, n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM project_stages WHERE workspace_id = app_workspace_id() AND project_id = pg_temp.project(p) AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.task(n text) RETURNS uuid LANGUAGE sql AS
  $$ SELECT id FROM tasks WHERE workspace_id = app_workspace_id() AND name = n $$;
CREATE OR REPLACE FUNCTION pg_temp.id(tbl text, col text, v text) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE r uuid;
BEGIN
  EXECUTE format('SELECT id FROM %I WHERE workspace_id = app_workspace_id() AND %I = $1', tbl, col) INTO STRICT r USING v;
  RETURN r;
END $$;

INSERT INTO companies (name, website, industry, size, notes) VALUES
  ('Northwind Logistics', 'https://northwind.example', 'Logistics', '201-500', 'Freight forwarder; new CMO since spring.'),
  ('Globex Foods', 'https://globex.example', 'Food & beverage', '51-200', NULL),
  ('Initech Software', 'https://initech.example', 'Software', '51-200', 'Support retainer since last year.'),
  ('Umbrella Health', 'https://umbrella.example', 'Healthcare', '501-1000', 'Procurement is slow: plan for a long cycle.'),
  ('Hooli Cloud', 'https://hooli.example', 'Software', '1000+', NULL),
  ('Stark Outdoor', 'https://starkoutdoor.example', 'Retail', '11-50', NULL),
  ('Wayne Property', 'https://wayneproperty.example', 'Real estate', '51-200', NULL),
  ('Acme Corp', 'https://acme.example', 'Manufacturing', '11-50', NULL),
  ('Soylent Kitchens', 'https://soylent.example', 'Food & beverage', '11-50', NULL),
  ('Vandelay Imports', 'https://vandelay.example', 'Wholesale', '11-50', NULL),
  ('Cyberdyne Robotics', 'https://cyberdyne.example', 'Robotics', '201-500', NULL),
  ('Pied Piper', 'https://piedpiper.example', 'Software', '11-50', 'Referred by Hooli.');

INSERT INTO people (name, company, company_id, email, phone, position)
SELECT p.name, p.company, pg_temp.co(p.company), p.email, p.phone, p.position FROM (VALUES
  ('Nora Lindqvist', 'Northwind Logistics', 'nora@northwind.example', '+46 8 555 0101', 'Chief Marketing Officer'),
  ('Tom Becker', 'Northwind Logistics', 'tom@northwind.example', NULL, 'Web Manager'),
  ('Grace Okafor', 'Globex Foods', 'grace@globex.example', '+44 20 5550 0102', 'Brand Director'),
  ('Peter Gibbons', 'Initech Software', 'peter@initech.example', NULL, 'Head of Operations'),
  ('Alice Moreau', 'Umbrella Health', 'alice@umbrella.example', '+33 1 55 50 01 03', 'Head of Digital'),
  ('Gavin Belson', 'Hooli Cloud', 'gavin@hooli.example', NULL, 'VP Developer Relations'),
  ('Denise Hooper', 'Hooli Cloud', 'denise@hooli.example', NULL, 'Events Lead'),
  ('Tony Ruiz', 'Stark Outdoor', 'tony@starkoutdoor.example', '+1 212 555 0104', 'Founder'),
  ('Bruce Adeyemi', 'Wayne Property', 'bruce@wayneproperty.example', NULL, 'Managing Director'),
  ('Wile Coyote', 'Acme Corp', 'wile@acme.example', NULL, 'Product Manager'),
  ('Sol Reyes', 'Soylent Kitchens', 'sol@soylent.example', NULL, 'Owner'),
  ('Art Vandelay', 'Vandelay Imports', 'art@vandelay.example', '+1 718 555 0105', 'CEO'),
  ('Miles Dyson', 'Cyberdyne Robotics', 'miles@cyberdyne.example', NULL, 'CFO'),
  ('Richard Hendricks', 'Pied Piper', 'richard@piedpiper.example', NULL, 'CEO')) AS p (name, company, email, phone, position);

INSERT INTO pipelines (name, position) VALUES ('New business', 1), ('Retainers', 2);
INSERT INTO pipeline_stages (pipeline_id, name, position, outcome, metric_tag)
SELECT pg_temp.pipeline(s.pipeline), s.name, s.position, s.outcome, s.tag FROM (VALUES
  ('New business', 'Lead', 1, 'open', 'messages_sent'),
  ('New business', 'Qualified', 2, 'open', 'responses'),
  ('New business', 'Proposal sent', 3, 'open', 'positive_responses'),
  ('New business', 'Negotiation', 4, 'open', NULL),
  ('New business', 'Won', 5, 'won', 'deals_closed'),
  ('New business', 'Lost', 6, 'lost', NULL),
  ('Retainers', 'Discovery', 1, 'open', NULL),
  ('Retainers', 'Proposal', 2, 'open', NULL),
  ('Retainers', 'Signed', 3, 'won', 'deals_closed'),
  ('Retainers', 'Declined', 4, 'lost', NULL)) AS s (pipeline, name, position, outcome, tag);

-- The biggest open deal is Northwind website relaunch (48,000); a bigger deal was won
-- and a bigger one lost.
INSERT INTO deals (name, pipeline_id, pipeline_stage_id, owner_id, company_id, value, confidence, notes)
SELECT d.name, pg_temp.pipeline(d.pipeline), pg_temp.stage(d.pipeline, d.stage), pg_temp.u(d.owner), pg_temp.co(d.company),
       d.value, d.confidence, d.notes FROM (VALUES
  ('Northwind website relaunch', 'New business', 'Negotiation', 'mia', 'Northwind Logistics', 48000, 0.7, 'Legal is reviewing the contract.'),
  ('Globex brand refresh', 'New business', 'Proposal sent', 'leo', 'Globex Foods', 22000, 0.5, NULL),
  ('Initech onboarding videos', 'New business', 'Qualified', 'admin', 'Initech Software', 9500, 0.3, NULL),
  ('Umbrella patient portal UX', 'New business', 'Negotiation', 'member', 'Umbrella Health', 41000, 0.6, 'Wants a phased start.'),
  ('Hooli developer docs site', 'New business', 'Proposal sent', 'mia', 'Hooli Cloud', 35000, 0.4, NULL),
  ('Stark Outdoor spring campaign', 'New business', 'Lead', 'leo', 'Stark Outdoor', 7500, 0.1, NULL),
  ('Wayne Property listings app', 'New business', 'Qualified', 'admin', 'Wayne Property', 28000, 0.3, NULL),
  ('Acme trade show microsite', 'New business', 'Lead', 'member', 'Acme Corp', 6000, 0.1, NULL),
  ('Soylent menu photography', 'New business', 'Proposal sent', 'leo', 'Soylent Kitchens', 4800, 0.5, NULL),
  ('Vandelay catalogue redesign', 'New business', 'Lead', 'mia', 'Vandelay Imports', 12500, 0.2, NULL),
  ('Cyberdyne investor deck', 'New business', 'Negotiation', 'admin', 'Cyberdyne Robotics', 15000, 0.8, NULL),
  ('Pied Piper launch video', 'New business', 'Qualified', 'member', 'Pied Piper', 18000, 0.35, NULL),
  ('Acme product configurator', 'New business', 'Lead', 'admin', 'Acme Corp', 31000, 0.15, NULL),
  ('Hooli conference booth', 'New business', 'Won', 'mia', 'Hooli Cloud', 62000, 1, 'Signed; delivery in the Hooli space.'),
  ('Globex packaging design', 'New business', 'Won', 'leo', 'Globex Foods', 26000, 1, NULL),
  ('Initech intranet', 'New business', 'Won', 'admin', 'Initech Software', 19500, 1, NULL),
  ('Stark Outdoor e-shop', 'New business', 'Won', 'member', 'Stark Outdoor', 23500, 1, NULL),
  ('Umbrella rebrand', 'New business', 'Lost', 'member', 'Umbrella Health', 75000, 0, 'Went to a larger network agency.'),
  ('Wayne Property SEO audit', 'New business', 'Lost', 'leo', 'Wayne Property', 5200, 0, NULL),
  ('Cyberdyne recruiting site', 'New business', 'Lost', 'mia', 'Cyberdyne Robotics', 14000, 0, 'Budget frozen.'),
  ('Northwind SEO retainer', 'Retainers', 'Discovery', 'leo', 'Northwind Logistics', 24000, 0.4, NULL),
  ('Globex social media retainer', 'Retainers', 'Proposal', 'mia', 'Globex Foods', 30000, 0.6, NULL),
  ('Hooli design system upkeep', 'Retainers', 'Proposal', 'admin', 'Hooli Cloud', 42000, 0.5, NULL),
  ('Pied Piper growth retainer', 'Retainers', 'Discovery', 'member', 'Pied Piper', 21000, 0.3, NULL),
  ('Cyberdyne analytics retainer', 'Retainers', 'Discovery', 'leo', 'Cyberdyne Robotics', 16800, 0.25, NULL),
  ('Initech support retainer', 'Retainers', 'Signed', 'admin', 'Initech Software', 18000, 1, NULL),
  ('Soylent content retainer', 'Retainers', 'Signed', 'leo', 'Soylent Kitchens', 14400, 1, NULL),
  ('Acme maintenance plan', 'Retainers', 'Signed', 'mia', 'Acme Corp', 7200, 1, NULL),
  ('Vandelay PPC management', 'Retainers', 'Declined', 'mia', 'Vandelay Imports', 9600, 0, NULL),
  ('Umbrella accessibility retainer', 'Retainers', 'Declined', 'member', 'Umbrella Health', 27000, 0, NULL))
  AS d (name, pipeline, stage, owner, company, value, confidence, notes);

INSERT INTO deal_people (deal_id, person_id, role, is_primary)
SELECT pg_temp.deal(x.deal), pg_temp.person(x.person), x.role, x.is_primary FROM (VALUES
  ('Northwind website relaunch', 'Nora Lindqvist', 'Decision maker', true),
  ('Northwind website relaunch', 'Tom Becker', 'Day-to-day contact', false),
  ('Globex brand refresh', 'Grace Okafor', 'Decision maker', true),
  ('Umbrella patient portal UX', 'Alice Moreau', 'Decision maker', true),
  ('Hooli developer docs site', 'Gavin Belson', 'Sponsor', true),
  ('Hooli conference booth', 'Denise Hooper', 'Decision maker', true),
  ('Cyberdyne investor deck', 'Miles Dyson', 'Decision maker', true),
  ('Pied Piper launch video', 'Richard Hendricks', 'Decision maker', true)) AS x (deal, person, role, is_primary);
INSERT INTO custom_fields (resource, key, label, type, options) VALUES ('deals', 'tier', 'Account tier', 'select',
  '[{"key": "gold", "label": "Gold", "order": 1, "archived": false}, {"key": "silver", "label": "Silver", "order": 2, "archived": false}]');
UPDATE deals SET custom_fields = jsonb_build_object('tier', CASE WHEN value >= 20000 THEN 'gold' ELSE 'silver' END)
 WHERE workspace_id = app_workspace_id() AND value IS NOT NULL;
INSERT INTO labels (name) VALUES ('Hot'), ('Referral'), ('Enterprise');
INSERT INTO deal_labels (deal_id, label_id)
SELECT pg_temp.deal(x.deal), (SELECT id FROM labels WHERE workspace_id = app_workspace_id() AND name = x.label) FROM (VALUES
  ('Northwind website relaunch', 'Hot'), ('Cyberdyne investor deck', 'Hot'), ('Pied Piper launch video', 'Referral'),
  ('Umbrella patient portal UX', 'Enterprise'), ('Hooli design system upkeep', 'Enterprise')) AS x (deal, label);
INSERT INTO crm_files (deal_id, name, url, mime_type, size_bytes) VALUES
  (pg_temp.deal('Northwind website relaunch'), 'proposal-v2.pdf', 'https://files.example/northwind/proposal-v2.pdf', 'application/pdf', 48213);
INSERT INTO deal_tasks (deal_id, name, assignee_id, due_date, priority, completed)
SELECT pg_temp.deal(x.deal), x.name, pg_temp.u(x.who), current_date + x.due, x.priority, x.done FROM (VALUES
  ('Northwind website relaunch', 'Send the revised contract', 'mia', 2, 3, false),
  ('Hooli developer docs site', 'Follow up on the proposal', 'mia', -3, 2, false),
  ('Umbrella patient portal UX', 'Price a phased start', 'member', 1, 3, false),
  ('Globex brand refresh', 'Book a call with Grace', 'leo', -1, 2, false),
  ('Cyberdyne investor deck', 'Share the first draft', 'admin', -6, 2, true)) AS x (deal, name, who, due, priority, done);

INSERT INTO spaces (name, status, is_default, notes) VALUES
  ('Internal', 'active', true, 'The agency''s own work.'),
  ('Northwind Logistics', 'active', false, NULL),
  ('Hooli Cloud', 'active', false, NULL);
INSERT INTO space_members (space_id, user_id)
SELECT pg_temp.space(x.space), pg_temp.u(x.who) FROM (VALUES
  ('Internal', 'admin'), ('Internal', 'member'), ('Internal', 'mia'), ('Internal', 'leo'),
  ('Northwind Logistics', 'mia'), ('Northwind Logistics', 'leo'), ('Hooli Cloud', 'mia'), ('Hooli Cloud', 'member')) AS x (space, who);
INSERT INTO projects (space_id, name, position, start_date, end_date, kanban_enabled)
SELECT pg_temp.space(x.space), x.name, x.position, current_date + x.starts, current_date + x.ends, true FROM (VALUES
  ('Northwind Logistics', 'Northwind discovery', 1, -20, 10),
  ('Hooli Cloud', 'Conference booth build', 1, -30, 21),
  ('Internal', 'Agency website refresh', 1, -10, 40)) AS x (space, name, position, starts, ends);
INSERT INTO project_stages (project_id, name, position)
SELECT p.id, s.name, s.position FROM projects p
  CROSS JOIN (VALUES ('To do', 1), ('In progress', 2), ('Review', 3), ('Done', 4)) AS s (name, position)
 WHERE p.workspace_id = app_workspace_id();
-- Some tasks are overdue: open and due before today. A few have two assignees
-- (assignee_ids; assignee_id is the first).
INSERT INTO tasks (name, space_id, project_id, stage_id, assignee_ids, due_date, priority, completed, description)
SELECT x.name, (SELECT space_id FROM projects WHERE id = pg_temp.project(x.project)), pg_temp.project(x.project),
       pg_temp.pstage(x.project, x.stage), (SELECT array_agg(pg_temp.u(k)) FROM unnest(x.who) k), current_date + x.due,
       x.priority, x.stage = 'Done', x.description FROM (VALUES
  ('Stakeholder interviews', 'Northwind discovery', 'Done', '{mia}'::text[], -12, 2, NULL),
  ('Audit the current site', 'Northwind discovery', 'Done', '{leo}'::text[], -8, 2, NULL),
  ('Write the discovery report', 'Northwind discovery', 'In progress', '{mia,leo}'::text[], -2, 3, 'Findings, sitemap and a phased plan.'),
  ('Sitemap draft', 'Northwind discovery', 'Review', '{leo}'::text[], -1, 2, NULL),
  ('Present findings to Nora', 'Northwind discovery', 'To do', '{mia}'::text[], 5, 3, NULL),
  ('Booth floor plan', 'Conference booth build', 'Done', '{member}'::text[], -15, 2, NULL),
  ('Order printed panels', 'Conference booth build', 'In progress', '{member}'::text[], -4, 4, 'The printer needs files ten days ahead.'),
  ('Demo screen content', 'Conference booth build', 'In progress', '{mia,member}'::text[], 3, 3, NULL),
  ('Ship the booth', 'Conference booth build', 'To do', '{member}'::text[], 14, 3, NULL),
  ('Staff rota for the event', 'Conference booth build', 'To do', '{admin}'::text[], 10, 1, NULL),
  ('New case studies', 'Agency website refresh', 'In progress', '{leo}'::text[], -5, 2, NULL),
  ('Refresh team photos', 'Agency website refresh', 'To do', '{admin}'::text[], 0, 1, NULL),
  ('Rewrite the services page', 'Agency website refresh', 'To do', '{member,admin}'::text[], 7, 2, NULL),
  ('Set up analytics goals', 'Agency website refresh', 'Review', '{leo}'::text[], 2, 2, NULL),
  ('Quarterly pricing review', 'Agency website refresh', 'To do', '{admin}'::text[], 21, 1, NULL))
  AS x (name, project, stage, who, due, priority, description);
INSERT INTO task_attachments (task_id, space_id, name, url, mime_type, size_bytes) VALUES
  (pg_temp.task('Booth floor plan'), pg_temp.space('Hooli Cloud'), 'floor-plan.png', 'https://files.example/hooli/floor-plan.png', 'image/png', 182044);
INSERT INTO space_updates (space_id, content, status) VALUES
  (pg_temp.space('Northwind Logistics'), 'Discovery on track; report due this week.', 'on_track'),
  (pg_temp.space('Hooli Cloud'), 'Panel printing is late: the files went out four days behind.', 'at_risk');
INSERT INTO comments (entity_type, entity_id, content, user_id) VALUES
  ('deal', pg_temp.deal('Northwind website relaunch'), 'Nora confirmed the budget; legal wants two changes to the contract.', pg_temp.u('mia')),
  ('deal', pg_temp.deal('Umbrella rebrand'), 'Lost on price. Worth another try next year.', pg_temp.u('member')),
  ('task', pg_temp.task('Order printed panels'), 'Printer says three working days once the files are in.', pg_temp.u('member')),
  ('task', pg_temp.task('Write the discovery report'), 'First draft is in the shared folder.', pg_temp.u('leo'));

INSERT INTO finance_categories (key, label, kind, pl_section, sort) VALUES
  ('retainer', 'Retainers', 'income', 'revenue', 1), ('project', 'Projects', 'income', 'revenue', 2),
  ('freelance', 'Freelancers', 'expense', 'cm1', 3), ('salaries', 'Salaries', 'expense', 'cm2', 4),
  ('software', 'Software', 'expense', 'cm3', 5), ('office', 'Office', 'expense', 'cm3', 6);
-- This month's income and expenses, on days of the month up to today.
INSERT INTO income (name, date, amount, type, recurrence)
SELECT x.name, least(date_trunc('month', current_date)::date + x.day, current_date), x.amount, x.type, x.recurrence FROM (VALUES
  ('Initech support retainer', 0, 1500, 'retainer', 'monthly'),
  ('Soylent content retainer', 0, 1200, 'retainer', 'monthly'),
  ('Acme maintenance plan', 0, 600, 'retainer', 'monthly'),
  ('Hooli conference booth: first half', 4, 31000, 'project', 'one_time'),
  ('Stark Outdoor e-shop: deposit', 9, 11750, 'project', 'one_time')) AS x (name, day, amount, type, recurrence);
INSERT INTO expenses (name, date, amount, type, recurrence)
SELECT x.name, least(date_trunc('month', current_date)::date + x.day, current_date), x.amount, x.type, x.recurrence FROM (VALUES
  ('Salaries', 0, 18500, 'salaries', 'monthly'),
  ('Office rent', 0, 2400, 'office', 'monthly'),
  ('Design and project software', 2, 640, 'software', 'monthly'),
  ('Hosting', 2, 180, 'software', 'monthly'),
  ('Freelance illustrator (Hooli booth)', 6, 1800, 'freelance', 'one_time')) AS x (name, day, amount, type, recurrence);
INSERT INTO debts (name, total_amount, paid_amount, expense_type, notes) VALUES ('Laptop financing', 6000, 1500, 'equipment', 'Twelve monthly payments.');
INSERT INTO debt_payments (debt_id, amount, date) VALUES (pg_temp.id('debts', 'name', 'Laptop financing'), 500, date_trunc('month', current_date)::date);

INSERT INTO metric_pages (name, position) VALUES ('Sales', 1);
INSERT INTO metrics (name, kind, format, agg, page_id, position) VALUES
  ('Outreach messages sent', 'manual', 'number', 'sum', pg_temp.id('metric_pages', 'name', 'Sales'), 1);
INSERT INTO metric_entries (metric_id, entry_kind, value, note, user_id)
SELECT pg_temp.id('metrics', 'name', 'Outreach messages sent'), 'number', x.value, x.note, pg_temp.u(x.who) FROM (VALUES
  (42, 'LinkedIn follow-ups', 'leo'), (18, 'Conference leads', 'mia')) AS x (value, note, who);

INSERT INTO departments (name) VALUES ('Delivery'), ('Sales');
INSERT INTO team_members (user_id, display_name, team_role, department_id, squads, email, date_hired, location)
SELECT pg_temp.u(x.who), x.name, x.role, pg_temp.id('departments', 'name', x.dept), x.squads, x.email, current_date - x.days, x.location FROM (VALUES
  ('admin', 'Demo Admin', 'Managing Director', 'Sales', '{leadership}'::text[], NULL, 1500, 'Berlin'),
  ('member', 'Demo Member', 'Project Manager', 'Delivery', '{events}'::text[], NULL, 700, 'Berlin'),
  ('mia', 'Mia Chen', 'Account Director', 'Sales', '{web}'::text[], NULL, 900, 'Remote'),
  ('leo', 'Leo Park', 'SEO & Content Lead', 'Delivery', '{web,content}'::text[], NULL, 400, 'Lisbon'))
  AS x (who, name, role, dept, squads, email, days, location);
INSERT INTO leave_requests (leave_date, return_date, reason, type, user_id) VALUES
  (current_date + 14, current_date + 21, 'Summer holiday', 'annual', pg_temp.u('leo'));
INSERT INTO hr_contracts (member_id, name, type, is_current) VALUES (pg_temp.id('team_members', 'display_name', 'Mia Chen'), 'Employment contract', 'full_time', true);
INSERT INTO hr_change_requests (member_id, type, message, status) VALUES (pg_temp.id('team_members', 'display_name', 'Leo Park'), 'title', 'Promote to Head of Content', 'open');
INSERT INTO org_chart (title, user_id, kpis, sort_order) VALUES ('Managing Director', pg_temp.u('admin'), '["revenue", "margin"]', 1);
INSERT INTO org_chart (title, user_id, kpis, sort_order, parent_id)
SELECT x.title, pg_temp.u(x.who), x.kpis::jsonb, x.sort, (SELECT id FROM org_chart WHERE workspace_id = app_workspace_id() AND title = 'Managing Director')
  FROM (VALUES ('Account Director', 'mia', '["new business"]', 2), ('Project Manager', 'member', '["on-time delivery"]', 3),
               ('SEO & Content Lead', 'leo', '["organic traffic"]', 4)) AS x (title, who, kpis, sort);

INSERT INTO documents (name, content) VALUES
  ('Onboarding', 'Welcome aboard. Start with the brand guide and the project playbook.'),
  ('Proposal template', 'Context, goals, approach, timeline, investment.');
INSERT INTO knowledge (name, type, source, content) VALUES ('Brand guide', 'note', 'manual', 'Blue #1D4ED8 for links; Inter for body text.');
INSERT INTO canvases (name, type, data) VALUES ('Sales funnel', 'flow', '{"nodes": []}');
INSERT INTO automations (name, enabled, trigger, actions, section) VALUES
  ('Welcome mail', true, '{"on": "deal.created"}', '[{"do": "email"}]', 'crm');
INSERT INTO automation_logs (automation_id, success, message) VALUES (pg_temp.id('automations', 'name', 'Welcome mail'), true, 'sent');
INSERT INTO competitor_workflows (name, status, space_id) VALUES ('Watch rival agencies', 'active', pg_temp.space('Internal'));
INSERT INTO competitor_reports (workflow_id, importance, title, content) VALUES
  (pg_temp.id('competitor_workflows', 'name', 'Watch rival agencies'), 'high', 'A rival cut web prices', 'Their entry package is now 10% cheaper.');
INSERT INTO enrichment_cache (domain, result) VALUES ('acme.example', '{"name": "Acme Corp"}');
`
