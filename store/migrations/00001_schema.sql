-- +goose Up
-- The whole workspace schema. Every workspace table carries workspace_id, composite foreign
-- keys (workspace_id, x_id) so no row can point into another workspace, the keyset index
-- (workspace_id, created_at desc, id desc), and row-level security (ENABLE and FORCE) whose
-- policies read the actor from transaction-local settings (decisions.md 3 and 10).

-- +goose StatementBegin
DO $$
BEGIN
  CREATE ROLE workspaced_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- roles are cluster-wide; another database's migration made it first
END
$$;
-- +goose StatementEnd
GRANT workspaced_app TO CURRENT_USER;
GRANT USAGE ON SCHEMA public TO workspaced_app;

-- The actor, as set per transaction by store.Store (set_config(..., true)). Wrapped in
-- (select ...) inside policies so PostgreSQL evaluates them once per query (an InitPlan).
CREATE FUNCTION app_workspace_id() RETURNS uuid LANGUAGE sql STABLE
  AS $$ SELECT nullif(current_setting('app.workspace_id', true), '')::uuid $$;
CREATE FUNCTION app_user_id() RETURNS uuid LANGUAGE sql STABLE
  AS $$ SELECT nullif(current_setting('app.user_id', true), '')::uuid $$;
CREATE FUNCTION app_is_admin() RETURNS boolean LANGUAGE sql STABLE
  AS $$ SELECT coalesce(current_setting('app.role', true), '') = 'admin' $$;
CREATE FUNCTION app_grant(feature text) RETURNS text LANGUAGE sql STABLE
  AS $$ SELECT coalesce(nullif(current_setting('app.grants', true), '')::jsonb ->> feature, 'none') $$;

-- +goose StatementBegin
CREATE FUNCTION ws_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END
$$;
-- +goose StatementEnd

-- ws_record_activity writes the audit row of every write made by an actor, in the same
-- transaction. TG_ARGV: resource name, feature ('' for none).
-- +goose StatementBegin
CREATE FUNCTION ws_record_activity() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  actor uuid := app_user_id();
  rec jsonb;
  diff jsonb;
  act text;
  owned text[] := ARRAY['id', 'workspace_id', 'created_by', 'created_at', 'updated_at'];
BEGIN
  IF actor IS NULL THEN
    RETURN NULL; -- seeding and the admin CLI act outside a request
  END IF;
  IF TG_OP = 'INSERT' THEN
    rec := to_jsonb(NEW); act := 'created'; diff := jsonb_strip_nulls(rec - owned);
  ELSIF TG_OP = 'UPDATE' THEN
    rec := to_jsonb(NEW); act := 'updated';
    SELECT coalesce(jsonb_object_agg(n.key, n.value), '{}') INTO diff
      FROM jsonb_each(rec) n
     WHERE n.key <> 'updated_at' AND n.value IS DISTINCT FROM (to_jsonb(OLD) -> n.key);
  ELSE
    rec := to_jsonb(OLD); act := 'detached'; diff := jsonb_strip_nulls(rec - owned);
  END IF;
  INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes, feature)
  VALUES (app_workspace_id(), TG_ARGV[0], (rec ->> 'id')::uuid, act, actor, diff, nullif(TG_ARGV[1], ''));
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- ws_protect applies the standard machinery to a workspace table: RLS enabled and forced,
-- isolation policy, the feature-grant policy, privileges for the request role, the keyset
-- index, updated_at and activity triggers.
-- +goose StatementBegin
CREATE FUNCTION ws_protect(tbl text, resource text, feature text, writes text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', tbl);
  EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', tbl);
  EXECUTE format($p$CREATE POLICY ws_isolation ON %I
      USING (workspace_id = (SELECT app_workspace_id()))
      WITH CHECK (workspace_id = (SELECT app_workspace_id()))$p$, tbl);
  IF feature <> '' THEN
    -- Second gate, again in the database: read or full to see, full to write.
    EXECUTE format($p$CREATE POLICY ws_feature_read ON %I AS RESTRICTIVE FOR SELECT
        USING ((SELECT app_grant(%L)) IN ('read', 'full'))$p$, tbl, feature);
    EXECUTE format($p$CREATE POLICY ws_feature_insert ON %I AS RESTRICTIVE FOR INSERT
        WITH CHECK ((SELECT app_grant(%L)) = 'full')$p$, tbl, feature);
    EXECUTE format($p$CREATE POLICY ws_feature_update ON %I AS RESTRICTIVE FOR UPDATE
        USING (true) WITH CHECK ((SELECT app_grant(%L)) = 'full')$p$, tbl, feature);
    EXECUTE format($p$CREATE POLICY ws_feature_delete ON %I AS RESTRICTIVE FOR DELETE
        USING ((SELECT app_grant(%L)) = 'full')$p$, tbl, feature);
  END IF;
  EXECUTE format('GRANT SELECT ON %I TO workspaced_app', tbl);
  IF writes = 'write' OR writes = 'detach' THEN
    EXECUTE format('GRANT INSERT, UPDATE ON %I TO workspaced_app', tbl);
  END IF;
  IF writes = 'detach' THEN
    EXECUTE format('GRANT DELETE ON %I TO workspaced_app', tbl);
  END IF;
  EXECUTE format('CREATE INDEX %I ON %I (workspace_id, created_at DESC, id DESC)', tbl || '_keyset', tbl);
  EXECUTE format('CREATE TRIGGER touch BEFORE UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION ws_touch()', tbl);
  IF writes <> 'none' THEN
    EXECUTE format('CREATE TRIGGER activity AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION ws_record_activity(%L, %L)',
      tbl, resource, feature);
  END IF;
END
$$;
-- +goose StatementEnd

-- Identity ---------------------------------------------------------------------------

CREATE TABLE workspaces (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  image_url text,
  timezone text NOT NULL DEFAULT 'UTC',
  okr_enabled boolean NOT NULL DEFAULT false,
  kb_ai_enabled boolean NOT NULL DEFAULT false,
  report_eod_enabled boolean NOT NULL DEFAULT false,
  report_eow_enabled boolean NOT NULL DEFAULT false,
  report_eom_enabled boolean NOT NULL DEFAULT false,
  security_contact_email text,
  plan text NOT NULL DEFAULT 'free', -- billing: never writable through the API
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE workspaces ENABLE ROW LEVEL SECURITY;
ALTER TABLE workspaces FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_isolation ON workspaces
  USING (id = (SELECT app_workspace_id())) WITH CHECK (id = (SELECT app_workspace_id()));
CREATE POLICY ws_admin_writes ON workspaces AS RESTRICTIVE FOR UPDATE
  USING (true) WITH CHECK ((SELECT app_is_admin()));
GRANT SELECT ON workspaces TO workspaced_app;
GRANT UPDATE (name, image_url, timezone, okr_enabled, kb_ai_enabled, report_eod_enabled,
  report_eow_enabled, report_eom_enabled, security_contact_email) ON workspaces TO workspaced_app;
CREATE TRIGGER touch BEFORE UPDATE ON workspaces FOR EACH ROW EXECUTE FUNCTION ws_touch();

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  email text NOT NULL,
  display_name text,
  avatar_url text,
  task_color text,
  timezone text,
  department text,
  role text NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'invited', 'suspended')),
  is_agent boolean NOT NULL DEFAULT false,
  grants jsonb NOT NULL DEFAULT '{}',
  upstream_subject text,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, id)
);
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE INDEX users_filters ON users (workspace_id, role, status);
ALTER TABLE users ADD FOREIGN KEY (workspace_id, created_by) REFERENCES users (workspace_id, id);
SELECT ws_protect('users', 'users', '', 'none');
-- Members write only profile columns; role, grants and status stay out of reach even for
-- admins acting through the API (spec 2.2 rule 2).
GRANT UPDATE (display_name, avatar_url, task_color, timezone, department) ON users TO workspaced_app;
CREATE POLICY ws_self_or_admin ON users AS RESTRICTIVE FOR UPDATE
  USING (true) WITH CHECK (id = (SELECT app_user_id()) OR (SELECT app_is_admin()));
CREATE TRIGGER activity AFTER UPDATE ON users FOR EACH ROW EXECUTE FUNCTION ws_record_activity('users', '');

-- Password hashes live apart from users so no request can ever select them.
CREATE TABLE user_passwords (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  hash text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Resource tables ---------------------------------------------------------------------
-- Base columns on every one: id, workspace_id, created_by, created_at, updated_at.

-- +goose StatementBegin
CREATE FUNCTION ws_resource_table(tbl text, cols text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($t$CREATE TABLE %I (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id uuid NOT NULL DEFAULT app_workspace_id() REFERENCES workspaces (id),
      created_by uuid DEFAULT app_user_id(),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      %s,
      UNIQUE (workspace_id, id),
      FOREIGN KEY (workspace_id, created_by) REFERENCES users (workspace_id, id)
    )$t$, tbl, cols);
END
$$;
-- +goose StatementEnd

SELECT ws_resource_table('agents', $c$
  user_id uuid NOT NULL, name text NOT NULL, description text, is_default boolean NOT NULL DEFAULT false,
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id)$c$);
SELECT ws_protect('agents', 'agents', 'agents', 'none');

SELECT ws_resource_table('companies', $c$
  name text NOT NULL, website text, instagram text, linkedin text, twitter text, industry text,
  size text, notes text$c$);
SELECT ws_protect('companies', 'companies', 'crm', 'write');
CREATE INDEX companies_industry ON companies (workspace_id, industry);

SELECT ws_resource_table('people', $c$
  name text NOT NULL, company text, company_id uuid, phone text, email text, position text,
  linkedin_url text, twitter_url text,
  FOREIGN KEY (workspace_id, company_id) REFERENCES companies (workspace_id, id)$c$);
SELECT ws_protect('people', 'people', 'crm', 'write');
CREATE INDEX people_company ON people (workspace_id, company_id);
CREATE INDEX people_email ON people (workspace_id, email);

SELECT ws_resource_table('pipelines', $c$ name text NOT NULL, position integer $c$);
SELECT ws_protect('pipelines', 'pipelines', 'crm', 'write');

SELECT ws_resource_table('pipeline_stages', $c$
  pipeline_id uuid NOT NULL, name text NOT NULL, position integer,
  metric_tag text CHECK (metric_tag IN ('messages_sent', 'responses', 'positive_responses', 'deals_closed')),
  FOREIGN KEY (workspace_id, pipeline_id) REFERENCES pipelines (workspace_id, id)$c$);
SELECT ws_protect('pipeline_stages', 'pipeline_stages', 'crm', 'write');
CREATE INDEX pipeline_stages_pipeline ON pipeline_stages (workspace_id, pipeline_id);

SELECT ws_resource_table('deals', $c$
  name text NOT NULL, pipeline_id uuid NOT NULL, pipeline_stage_id uuid, owner_id uuid,
  value numeric, confidence numeric, website text, instagram text, twitter text, notes text, company_id uuid,
  FOREIGN KEY (workspace_id, pipeline_id) REFERENCES pipelines (workspace_id, id),
  FOREIGN KEY (workspace_id, pipeline_stage_id) REFERENCES pipeline_stages (workspace_id, id),
  FOREIGN KEY (workspace_id, owner_id) REFERENCES users (workspace_id, id),
  FOREIGN KEY (workspace_id, company_id) REFERENCES companies (workspace_id, id)$c$);
SELECT ws_protect('deals', 'deals', 'crm', 'write');
CREATE INDEX deals_pipeline ON deals (workspace_id, pipeline_id);
CREATE INDEX deals_stage ON deals (workspace_id, pipeline_stage_id);
CREATE INDEX deals_owner ON deals (workspace_id, owner_id);
CREATE INDEX deals_company ON deals (workspace_id, company_id);

SELECT ws_resource_table('labels', $c$ name text NOT NULL $c$);
SELECT ws_protect('labels', 'labels', '', 'write');

SELECT ws_resource_table('deal_people', $c$
  deal_id uuid NOT NULL, person_id uuid NOT NULL, role text, is_primary boolean NOT NULL DEFAULT false,
  UNIQUE (workspace_id, deal_id, person_id),
  FOREIGN KEY (workspace_id, deal_id) REFERENCES deals (workspace_id, id),
  FOREIGN KEY (workspace_id, person_id) REFERENCES people (workspace_id, id)$c$);
SELECT ws_protect('deal_people', 'deal_people', 'crm', 'detach');
CREATE INDEX deal_people_person ON deal_people (workspace_id, person_id);

SELECT ws_resource_table('deal_labels', $c$
  deal_id uuid NOT NULL, label_id uuid NOT NULL,
  UNIQUE (workspace_id, deal_id, label_id),
  FOREIGN KEY (workspace_id, deal_id) REFERENCES deals (workspace_id, id),
  FOREIGN KEY (workspace_id, label_id) REFERENCES labels (workspace_id, id)$c$);
SELECT ws_protect('deal_labels', 'deal_labels', 'crm', 'detach');
CREATE INDEX deal_labels_label ON deal_labels (workspace_id, label_id);

SELECT ws_resource_table('crm_files', $c$
  deal_id uuid, name text, url text, storage_path text, mime_type text, size_bytes bigint,
  FOREIGN KEY (workspace_id, deal_id) REFERENCES deals (workspace_id, id)$c$);
SELECT ws_protect('crm_files', 'crm_files', 'crm', 'none');
CREATE INDEX crm_files_deal ON crm_files (workspace_id, deal_id);

SELECT ws_resource_table('spaces', $c$
  name text NOT NULL, image_url text, is_default boolean NOT NULL DEFAULT false, status text, notes text$c$);
SELECT ws_protect('spaces', 'spaces', '', 'write');
CREATE INDEX spaces_filters ON spaces (workspace_id, status);

SELECT ws_resource_table('projects', $c$
  space_id uuid NOT NULL, name text NOT NULL, position integer, start_date date, end_date date,
  kanban_enabled boolean NOT NULL DEFAULT false,
  FOREIGN KEY (workspace_id, space_id) REFERENCES spaces (workspace_id, id)$c$);
SELECT ws_protect('projects', 'projects', '', 'write');
CREATE INDEX projects_space ON projects (workspace_id, space_id);

SELECT ws_resource_table('project_stages', $c$
  project_id uuid NOT NULL, name text NOT NULL, position integer, color text, icon text,
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id)$c$);
SELECT ws_protect('project_stages', 'project_stages', '', 'write');
CREATE INDEX project_stages_project ON project_stages (workspace_id, project_id);

SELECT ws_resource_table('space_members', $c$
  space_id uuid NOT NULL, user_id uuid NOT NULL,
  UNIQUE (workspace_id, space_id, user_id),
  FOREIGN KEY (workspace_id, space_id) REFERENCES spaces (workspace_id, id),
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id)$c$);
SELECT ws_protect('space_members', 'space_members', '', 'detach');
CREATE INDEX space_members_user ON space_members (workspace_id, user_id);

SELECT ws_resource_table('space_updates', $c$
  space_id uuid NOT NULL, content text NOT NULL, status text,
  FOREIGN KEY (workspace_id, space_id) REFERENCES spaces (workspace_id, id)$c$);
SELECT ws_protect('space_updates', 'space_updates', '', 'write');
CREATE INDEX space_updates_space ON space_updates (workspace_id, space_id);

-- Private tasks (decisions.md 3): visible to creator, assignee, assignee_ids and admins.
-- +goose StatementBegin
CREATE FUNCTION ws_protect_private(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($p$CREATE POLICY ws_private ON %I AS RESTRICTIVE
      USING (NOT is_private OR created_by = (SELECT app_user_id()) OR assignee_id = (SELECT app_user_id())
             OR (SELECT app_user_id()) = ANY (assignee_ids) OR (SELECT app_is_admin()))
      WITH CHECK (NOT is_private OR created_by = (SELECT app_user_id()) OR assignee_id = (SELECT app_user_id())
             OR (SELECT app_user_id()) = ANY (assignee_ids) OR (SELECT app_is_admin()))$p$, tbl);
END
$$;
-- +goose StatementEnd

SELECT ws_resource_table('deal_tasks', $c$
  deal_id uuid NOT NULL, name text NOT NULL, assignee_id uuid, assignee_ids uuid[] NOT NULL DEFAULT '{}',
  due_date date, start_date date, priority integer CHECK (priority BETWEEN 0 AND 4),
  completed boolean NOT NULL DEFAULT false, description text, is_private boolean NOT NULL DEFAULT false,
  FOREIGN KEY (workspace_id, deal_id) REFERENCES deals (workspace_id, id),
  FOREIGN KEY (workspace_id, assignee_id) REFERENCES users (workspace_id, id)$c$);
SELECT ws_protect('deal_tasks', 'deal_tasks', 'crm', 'write');
SELECT ws_protect_private('deal_tasks');
CREATE INDEX deal_tasks_deal ON deal_tasks (workspace_id, deal_id);
CREATE INDEX deal_tasks_assignee ON deal_tasks (workspace_id, assignee_id);

SELECT ws_resource_table('tasks', $c$
  name text NOT NULL, space_id uuid, project_id uuid, assignee_id uuid, assignee_ids uuid[] NOT NULL DEFAULT '{}',
  due_date date, start_date date, priority integer CHECK (priority BETWEEN 0 AND 4),
  completed boolean NOT NULL DEFAULT false, description text, is_private boolean NOT NULL DEFAULT false,
  stage_id uuid, parent_task_id uuid,
  FOREIGN KEY (workspace_id, space_id) REFERENCES spaces (workspace_id, id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id),
  FOREIGN KEY (workspace_id, assignee_id) REFERENCES users (workspace_id, id),
  FOREIGN KEY (workspace_id, stage_id) REFERENCES project_stages (workspace_id, id),
  FOREIGN KEY (workspace_id, parent_task_id) REFERENCES tasks (workspace_id, id)$c$);
SELECT ws_protect('tasks', 'tasks', '', 'write');
SELECT ws_protect_private('tasks');
CREATE INDEX tasks_space ON tasks (workspace_id, space_id);
CREATE INDEX tasks_project ON tasks (workspace_id, project_id);
CREATE INDEX tasks_assignee ON tasks (workspace_id, assignee_id);
CREATE INDEX tasks_stage ON tasks (workspace_id, stage_id);

SELECT ws_resource_table('task_attachments', $c$
  task_id uuid, crm_task_id uuid, space_id uuid, name text, url text, mime_type text, size_bytes bigint,
  FOREIGN KEY (workspace_id, task_id) REFERENCES tasks (workspace_id, id),
  FOREIGN KEY (workspace_id, crm_task_id) REFERENCES deal_tasks (workspace_id, id),
  FOREIGN KEY (workspace_id, space_id) REFERENCES spaces (workspace_id, id)$c$);
SELECT ws_protect('task_attachments', 'task_attachments', '', 'none');
-- Attachments of a private task are as hidden as the task.
CREATE POLICY ws_private_parent ON task_attachments AS RESTRICTIVE FOR SELECT
  USING ((task_id IS NULL OR EXISTS (SELECT 1 FROM tasks t WHERE t.id = task_id))
     AND (crm_task_id IS NULL OR EXISTS (SELECT 1 FROM deal_tasks t WHERE t.id = crm_task_id)));
CREATE INDEX task_attachments_task ON task_attachments (workspace_id, task_id);
CREATE INDEX task_attachments_crm_task ON task_attachments (workspace_id, crm_task_id);

SELECT ws_resource_table('comments', $c$
  entity_type text NOT NULL CHECK (entity_type IN ('deal', 'task')), entity_id uuid NOT NULL,
  content text NOT NULL, user_id uuid DEFAULT app_user_id(),
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id)$c$);
SELECT ws_protect('comments', 'comments', '', 'write');
CREATE INDEX comments_entity ON comments (workspace_id, entity_type, entity_id);
-- Comments exist only on things the actor can see: deals need the crm grant, comments on
-- private tasks are as hidden as the task (RLS of the subqueries applies).
CREATE POLICY ws_entity_visible ON comments AS RESTRICTIVE
  USING (CASE entity_type
           WHEN 'deal' THEN (SELECT app_grant('crm')) IN ('read', 'full')
           ELSE EXISTS (SELECT 1 FROM tasks t WHERE t.id = entity_id)
             OR EXISTS (SELECT 1 FROM deal_tasks t WHERE t.id = entity_id)
         END);
-- The polymorphic reference cannot be a foreign key, so a trigger checks it (as the actor,
-- so a hidden or foreign record counts as missing) and fails like a foreign key would.
-- +goose StatementBegin
CREATE FUNCTION ws_comment_entity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.entity_type = 'deal' THEN
    PERFORM 1 FROM deals WHERE id = NEW.entity_id AND workspace_id = NEW.workspace_id;
  ELSE
    PERFORM 1 FROM tasks WHERE id = NEW.entity_id AND workspace_id = NEW.workspace_id
    UNION ALL SELECT 1 FROM deal_tasks WHERE id = NEW.entity_id AND workspace_id = NEW.workspace_id;
  END IF;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'comment entity % % does not exist', NEW.entity_type, NEW.entity_id
      USING ERRCODE = 'foreign_key_violation', COLUMN = 'entity_id';
  END IF;
  RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER entity_check BEFORE INSERT OR UPDATE OF entity_type, entity_id ON comments
  FOR EACH ROW EXECUTE FUNCTION ws_comment_entity();

SELECT ws_resource_table('activity', $c$
  entity_type text NOT NULL, entity_id uuid, action text NOT NULL, actor_id uuid, changes jsonb,
  feature text$c$);
SELECT ws_protect('activity', 'activity', '', 'none');
GRANT INSERT ON activity TO workspaced_app; -- written only by ws_record_activity
CREATE INDEX activity_entity ON activity (workspace_id, entity_type, entity_id);
-- Activity is as visible as what it describes: the feature grant of its resource, and
-- private tasks.
CREATE POLICY ws_entity_visible ON activity AS RESTRICTIVE FOR SELECT
  USING ((feature IS NULL OR (SELECT app_grant(feature)) IN ('read', 'full'))
     AND (entity_type NOT IN ('tasks', 'deal_tasks')
          OR EXISTS (SELECT 1 FROM tasks t WHERE t.id = entity_id)
          OR EXISTS (SELECT 1 FROM deal_tasks t WHERE t.id = entity_id)));

SELECT ws_resource_table('metric_pages', $c$ name text NOT NULL, position integer $c$);
SELECT ws_protect('metric_pages', 'metric_pages', 'metrics', 'write');

SELECT ws_resource_table('metrics', $c$
  name text NOT NULL, kind text CHECK (kind IN ('formula', 'date_diff', 'manual')), formula text,
  format text CHECK (format IN ('number', 'currency', 'percent', 'days', 'hours')), date_range text,
  date_from date, date_to date, manual_type text CHECK (manual_type IN ('number', 'date_range', 'time_range')),
  agg text CHECK (agg IN ('avg', 'sum', 'count', 'latest')), page_id uuid, position integer, slug text,
  member_ids uuid[], space_ids uuid[], pipeline_ids uuid[],
  FOREIGN KEY (workspace_id, page_id) REFERENCES metric_pages (workspace_id, id)$c$);
SELECT ws_protect('metrics', 'metrics', 'metrics', 'write');
CREATE INDEX metrics_page ON metrics (workspace_id, page_id);

SELECT ws_resource_table('metric_entries', $c$
  metric_id uuid NOT NULL, entry_kind text NOT NULL CHECK (entry_kind IN ('number', 'date_range', 'time_range')),
  value numeric, from_ts timestamptz, to_ts timestamptz, note text, user_id uuid DEFAULT app_user_id(),
  FOREIGN KEY (workspace_id, metric_id) REFERENCES metrics (workspace_id, id),
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id)$c$);
SELECT ws_protect('metric_entries', 'metric_entries', 'metrics', 'write');
CREATE INDEX metric_entries_metric ON metric_entries (workspace_id, metric_id);

SELECT ws_resource_table('income', $c$
  name text NOT NULL, date date NOT NULL, amount numeric NOT NULL, type text NOT NULL,
  recurrence text CHECK (recurrence IN ('one_time', 'monthly')), avatar_url text$c$);
SELECT ws_protect('income', 'income', 'finance', 'write');
CREATE INDEX income_type ON income (workspace_id, type);

SELECT ws_resource_table('expenses', $c$
  name text NOT NULL, date date NOT NULL, amount numeric NOT NULL, type text NOT NULL,
  recurrence text CHECK (recurrence IN ('one_time', 'monthly')), avatar_url text$c$);
SELECT ws_protect('expenses', 'expenses', 'finance', 'write');
CREATE INDEX expenses_type ON expenses (workspace_id, type);

SELECT ws_resource_table('finance_categories', $c$
  key text NOT NULL, label text NOT NULL, kind text NOT NULL CHECK (kind IN ('income', 'expense')),
  pl_section text NOT NULL CHECK (pl_section IN ('revenue', 'contra_revenue', 'cm1', 'cm2', 'cm3')),
  sort integer$c$);
SELECT ws_protect('finance_categories', 'finance_categories', 'finance', 'write');

SELECT ws_resource_table('debts', $c$
  name text NOT NULL, total_amount numeric NOT NULL, paid_amount numeric, expense_type text NOT NULL,
  notes text$c$);
SELECT ws_protect('debts', 'debts', 'finance', 'write');

SELECT ws_resource_table('debt_payments', $c$
  debt_id uuid NOT NULL, amount numeric NOT NULL, date date NOT NULL,
  FOREIGN KEY (workspace_id, debt_id) REFERENCES debts (workspace_id, id)$c$);
SELECT ws_protect('debt_payments', 'debt_payments', 'finance', 'write');
CREATE INDEX debt_payments_debt ON debt_payments (workspace_id, debt_id);

SELECT ws_resource_table('departments', $c$ name text NOT NULL $c$);
SELECT ws_protect('departments', 'departments', 'hr', 'write');

SELECT ws_resource_table('team_members', $c$
  user_id uuid, display_name text NOT NULL, team_role text, squads text[], authority_user_id uuid,
  salary numeric, date_hired date, left_date date, phone text, email text, contract_url text,
  contract_name text, archived boolean NOT NULL DEFAULT false, avatar_url text, slack_user_id text,
  location text, department_id uuid, summary text, gender text,
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id),
  FOREIGN KEY (workspace_id, authority_user_id) REFERENCES users (workspace_id, id),
  FOREIGN KEY (workspace_id, department_id) REFERENCES departments (workspace_id, id)$c$);
SELECT ws_protect('team_members', 'team_members', 'hr', 'write');
CREATE INDEX team_members_user ON team_members (workspace_id, user_id);
CREATE INDEX team_members_department ON team_members (workspace_id, department_id);

-- Reviews (spec 2.2 rule 1): a status change stamps the reviewer, in the database.
-- +goose StatementBegin
CREATE FUNCTION ws_stamp_review() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    NEW.reviewed_by := app_user_id();
    NEW.reviewed_at := now();
  END IF;
  RETURN NEW;
END
$$;
-- +goose StatementEnd

SELECT ws_resource_table('leave_requests', $c$
  leave_date date NOT NULL, return_date date NOT NULL, reason text NOT NULL,
  type text CHECK (type IN ('annual', 'sick', 'personal')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  review_reason text, user_id uuid DEFAULT app_user_id(), reviewed_by uuid, reviewed_at timestamptz,
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id),
  FOREIGN KEY (workspace_id, reviewed_by) REFERENCES users (workspace_id, id)$c$);
SELECT ws_protect('leave_requests', 'leave_requests', 'hr', 'write');
CREATE TRIGGER review BEFORE UPDATE ON leave_requests FOR EACH ROW EXECUTE FUNCTION ws_stamp_review();
CREATE INDEX leave_requests_user ON leave_requests (workspace_id, user_id);

SELECT ws_resource_table('hr_contracts', $c$
  member_id uuid NOT NULL, name text, type text, url text, storage_path text, date date,
  is_current boolean NOT NULL DEFAULT false,
  FOREIGN KEY (workspace_id, member_id) REFERENCES team_members (workspace_id, id)$c$);
SELECT ws_protect('hr_contracts', 'hr_contracts', 'hr', 'write');
CREATE INDEX hr_contracts_member ON hr_contracts (workspace_id, member_id);

SELECT ws_resource_table('hr_change_requests', $c$
  member_id uuid NOT NULL, type text, message text, status text, reviewed_by uuid, reviewed_at timestamptz,
  FOREIGN KEY (workspace_id, member_id) REFERENCES team_members (workspace_id, id),
  FOREIGN KEY (workspace_id, reviewed_by) REFERENCES users (workspace_id, id)$c$);
SELECT ws_protect('hr_change_requests', 'hr_change_requests', 'hr', 'write');
CREATE TRIGGER review BEFORE UPDATE ON hr_change_requests FOR EACH ROW EXECUTE FUNCTION ws_stamp_review();
CREATE INDEX hr_change_requests_member ON hr_change_requests (workspace_id, member_id);

SELECT ws_resource_table('org_chart', $c$
  parent_id uuid, title text, user_id uuid, kpis jsonb, sort_order integer,
  FOREIGN KEY (workspace_id, parent_id) REFERENCES org_chart (workspace_id, id),
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id)$c$);
SELECT ws_protect('org_chart', 'org_chart', 'hr', 'write');
CREATE INDEX org_chart_parent ON org_chart (workspace_id, parent_id);

SELECT ws_resource_table('documents', $c$ name text NOT NULL, content text, icon text, icon_color text $c$);
SELECT ws_protect('documents', 'documents', '', 'write');

SELECT ws_resource_table('knowledge', $c$
  name text NOT NULL, type text, url text, storage_path text, mime_type text, size_bytes bigint,
  source text, content text, icon_url text, external_id text$c$);
SELECT ws_protect('knowledge', 'knowledge', '', 'write');

SELECT ws_resource_table('canvases', $c$
  name text, type text NOT NULL, data jsonb, folder_id uuid, is_knowledge_base boolean NOT NULL DEFAULT false$c$);
SELECT ws_protect('canvases', 'canvases', '', 'write');

SELECT ws_resource_table('automations', $c$
  name text NOT NULL, enabled boolean NOT NULL DEFAULT false, trigger jsonb, conditions jsonb,
  condition_logic text, actions jsonb, section text$c$);
SELECT ws_protect('automations', 'automations', '', 'write');
-- Spec 5.7: creating or updating an automation requires admin, enforced in the database.
CREATE POLICY ws_admin_insert ON automations AS RESTRICTIVE FOR INSERT WITH CHECK ((SELECT app_is_admin()));
CREATE POLICY ws_admin_update ON automations AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK ((SELECT app_is_admin()));

SELECT ws_resource_table('automation_logs', $c$
  automation_id uuid, success boolean NOT NULL DEFAULT false, message text, details jsonb,
  FOREIGN KEY (workspace_id, automation_id) REFERENCES automations (workspace_id, id)$c$);
SELECT ws_protect('automation_logs', 'automation_logs', '', 'none');

SELECT ws_resource_table('competitor_workflows', $c$
  name text, status text, space_id uuid, config jsonb,
  FOREIGN KEY (workspace_id, space_id) REFERENCES spaces (workspace_id, id)$c$);
SELECT ws_protect('competitor_workflows', 'competitor_workflows', 'competitors', 'none');

SELECT ws_resource_table('competitor_reports', $c$
  workflow_id uuid, importance text, title text, content text,
  FOREIGN KEY (workspace_id, workflow_id) REFERENCES competitor_workflows (workspace_id, id)$c$);
SELECT ws_protect('competitor_reports', 'competitor_reports', 'competitors', 'none');

-- Credits and enrichment -------------------------------------------------------------

SELECT ws_resource_table('credit_balances', $c$
  balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0), UNIQUE (workspace_id)$c$);
SELECT ws_protect('credit_balances', 'credits', '', 'none');
-- The atomic charge of decisions.md 6 runs as the actor.
GRANT UPDATE (balance) ON credit_balances TO workspaced_app;

SELECT ws_resource_table('credit_ledger', $c$
  delta bigint NOT NULL, reason text NOT NULL, domain text$c$);
SELECT ws_protect('credit_ledger', 'credit_ledger', '', 'none');
GRANT INSERT ON credit_ledger TO workspaced_app;

SELECT ws_resource_table('enrichment_cache', $c$
  domain text NOT NULL, result jsonb NOT NULL, fetched_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, domain)$c$);
SELECT ws_protect('enrichment_cache', 'enrichment_cache', '', 'none');
GRANT INSERT, UPDATE ON enrichment_cache TO workspaced_app;

-- Credentials --------------------------------------------------------------------------
-- Not reachable by the request role at all: credentials are resolved by the service
-- before any actor exists.

CREATE TABLE agent_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  agent_id uuid NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  hint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  last_used_at timestamptz,
  FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id)
);

-- Service-wide settings the service makes for itself (the generated apikey).
CREATE TABLE service_settings (
  key text PRIMARY KEY,
  value text NOT NULL
);

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
