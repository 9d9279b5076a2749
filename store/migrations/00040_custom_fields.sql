-- +goose Up
-- Custom fields (docs/rest.md, "Custom fields"): a workspace's own typed fields on deals,
-- people, companies, tasks, deal_tasks and projects.
--
-- Definitions are the catalogue resource custom_fields. Values live in the record's own
-- column custom_fields, {key: value}, the source of every read (no join); each value is
-- also kept in custom_values, one typed row per value (the "pivot index"), whose fixed
-- indexes answer filters, sorts and uniqueness for every field of every workspace. Adding a
-- field is one INSERT: no DDL, so it never locks a table's writes, and it is ready to
-- filter on at once (ready is true from the start). The column is NULL on a record without
-- values (reads show {}): ADD COLUMN without a default rewrites no row, and a record
-- without custom values is no wider than before.

SELECT ws_resource_table('custom_fields', $c$
  resource text NOT NULL CHECK (resource IN ('deals', 'people', 'companies', 'tasks', 'deal_tasks', 'projects')),
  key text NOT NULL CHECK (key ~ '^[a-z][a-z0-9_]{0,62}$'),
  label text NOT NULL,
  type text NOT NULL CHECK (type IN ('text', 'long_text', 'number', 'money', 'date', 'timestamp', 'boolean',
    'select', 'multi_select', 'url', 'email', 'phone', 'member', 'reference')),
  options jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(options) = 'array'),
  reference_resource text CHECK (reference_resource IN ('deals', 'people', 'companies', 'tasks', 'deal_tasks', 'projects')),
  required boolean NOT NULL DEFAULT false,
  "unique" boolean NOT NULL DEFAULT false,
  searchable boolean NOT NULL DEFAULT false,
  description text,
  archived boolean NOT NULL DEFAULT false,
  position integer NOT NULL DEFAULT 0,
  ready boolean NOT NULL DEFAULT true,
  CHECK ((type = 'reference') = (reference_resource IS NOT NULL)),
  UNIQUE (workspace_id, resource, key)$c$);
SELECT ws_protect('custom_fields', 'custom_fields', '', 'write');
CREATE INDEX custom_fields_position ON custom_fields (workspace_id, resource, position, id);
-- Definitions of a resource are read as its records are: those of the crm resources need
-- the crm grant (the operation also asks the resource's read scope, workspace/customfields.go);
-- only admins write them.
CREATE POLICY ws_target_grant ON custom_fields AS RESTRICTIVE FOR SELECT
  USING (resource IN ('tasks', 'projects') OR (SELECT app_grant('crm')) IN ('read', 'full'));
CREATE POLICY ws_admin_insert ON custom_fields AS RESTRICTIVE FOR INSERT WITH CHECK ((SELECT app_is_admin()));
CREATE POLICY ws_admin_update ON custom_fields AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK ((SELECT app_is_admin()));

-- key and resource never change: values are stored under the key, on the resource's table.
-- At most 200 fields per resource per workspace, counted under a lock so that concurrent
-- creates cannot pass it together.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_field_guard() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.key <> OLD.key OR NEW.resource <> OLD.resource THEN
      RAISE EXCEPTION 'a custom field''s key and resource never change' USING ERRCODE = '23514';
    END IF;
    RETURN NEW;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('custom_fields:' || NEW.workspace_id || ':' || NEW.resource, 0));
  IF (SELECT count(*) FROM custom_fields WHERE workspace_id = NEW.workspace_id AND resource = NEW.resource) >= 200 THEN
    RAISE EXCEPTION 'at most 200 custom fields per resource' USING ERRCODE = '23514', CONSTRAINT = 'custom_fields_limit';
  END IF;
  RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER guard BEFORE INSERT OR UPDATE ON custom_fields FOR EACH ROW EXECUTE FUNCTION ws_custom_field_guard();

-- The typed copy of every value. t: text-like values, a select's option key, each option
-- of a multi_select (one row each), a member's or a reference's id; n: numbers and a money
-- value's amount; d: timestamps, and dates as midnight UTC; b: booleans; u: the value's
-- canonical text when the field is unique, whose index makes the database refuse a
-- second record with it. long_text values are not copied (too long for a btree): a row
-- with every column null says the record has one. Only the service writes it (the
-- triggers below); the request role reads its own workspace's rows.
CREATE TABLE custom_values (
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  field_id uuid NOT NULL REFERENCES custom_fields (id),
  record_id uuid NOT NULL,
  t text,
  n numeric,
  d timestamptz,
  b boolean,
  u text
);
ALTER TABLE custom_values ENABLE ROW LEVEL SECURITY;
ALTER TABLE custom_values FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_isolation ON custom_values
  USING (workspace_id = (SELECT app_workspace_id()))
  WITH CHECK (workspace_id = (SELECT app_workspace_id()));
GRANT SELECT ON custom_values TO workspaced_app;
CREATE INDEX custom_values_record ON custom_values (record_id, field_id);
CREATE INDEX custom_values_t ON custom_values (field_id, t, record_id);
CREATE INDEX custom_values_n ON custom_values (field_id, n, record_id);
CREATE INDEX custom_values_d ON custom_values (field_id, d, record_id);
CREATE INDEX custom_values_b ON custom_values (field_id, b, record_id);
CREATE UNIQUE INDEX custom_values_unique ON custom_values (field_id, u);
-- q over searchable fields: the words of each text value, as search_doc holds a record's.
CREATE INDEX custom_values_search ON custom_values USING gin (field_id, ws_search_doc(t)) WHERE t IS NOT NULL;

-- ws_custom_rows are the custom_values rows of one record's value v of field f.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_rows(f custom_fields, ws uuid, rec uuid, v jsonb)
RETURNS SETOF custom_values LANGUAGE sql STABLE AS $$
  SELECT ws, f.id, rec, x.t, x.n, x.d, x.b,
         CASE WHEN f."unique" THEN coalesce(x.t, x.n::text, to_char(x.d AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), x.b::text)
           || CASE WHEN f.type = 'money' THEN ' ' || (v ->> 'currency') ELSE '' END END
  FROM (
    SELECT CASE WHEN f.type IN ('text', 'url', 'email', 'phone', 'select', 'member', 'reference') THEN v #>> '{}'
                WHEN f.type = 'multi_select' THEN e END AS t,
           CASE WHEN f.type = 'number' THEN (v #>> '{}')::numeric
                WHEN f.type = 'money' THEN (v ->> 'amount')::numeric END AS n,
           CASE WHEN f.type = 'timestamp' THEN (v #>> '{}')::timestamptz
                WHEN f.type = 'date' THEN (v #>> '{}')::date::timestamp AT TIME ZONE 'UTC' END AS d,
           CASE WHEN f.type = 'boolean' THEN (v #>> '{}')::boolean END AS b
    FROM (SELECT NULL::text AS e WHERE f.type <> 'multi_select'
          UNION ALL SELECT jsonb_array_elements_text(v) WHERE f.type = 'multi_select') o
  ) x
  WHERE v IS NOT NULL AND jsonb_typeof(v) <> 'null'
$$;
-- +goose StatementEnd

-- ws_custom_index rewrites a record's custom_values after a write of its custom_fields.
-- A value the database refuses twice for a unique field is 23505 naming the field's key
-- as the column (workspace/customfields.go words it). TG_ARGV: the resource.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_index() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  k text;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.custom_fields IS NOT DISTINCT FROM OLD.custom_fields THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM custom_values WHERE record_id = NEW.id;
  END IF;
  IF NEW.custom_fields IS NULL OR NEW.custom_fields = '{}' THEN
    RETURN NULL;
  END IF;
  BEGIN
    INSERT INTO custom_values
    SELECT r.* FROM custom_fields f CROSS JOIN LATERAL ws_custom_rows(f, NEW.workspace_id, NEW.id, NEW.custom_fields -> f.key) r
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND NEW.custom_fields ? f.key;
  EXCEPTION WHEN unique_violation THEN
    SELECT f.key INTO k FROM custom_fields f
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND f."unique" AND NEW.custom_fields ? f.key
       AND EXISTS (SELECT 1 FROM ws_custom_rows(f, NEW.workspace_id, NEW.id, NEW.custom_fields -> f.key) r
                    JOIN custom_values c ON c.field_id = f.id AND c.u = r.u AND c.record_id <> NEW.id)
     LIMIT 1;
    RAISE EXCEPTION 'a unique custom field''s value is taken' USING ERRCODE = '23505',
      CONSTRAINT = 'custom_values_unique', COLUMN = coalesce(k, '');
  END;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- ws_custom_reindex rebuilds a field's custom_values from the records when its type or
-- uniqueness changes (the operation has checked that every stored value converts).
-- +goose StatementBegin
CREATE FUNCTION ws_custom_reindex() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF NEW.type = OLD.type AND NEW."unique" = OLD."unique" THEN
    RETURN NULL;
  END IF;
  DELETE FROM custom_values WHERE field_id = NEW.id;
  BEGIN
    EXECUTE format('INSERT INTO custom_values SELECT r.* FROM %I t CROSS JOIN LATERAL ws_custom_rows($1, t.workspace_id, t.id, t.custom_fields -> $1.key) r
       WHERE t.workspace_id = $1.workspace_id AND t.custom_fields ? $1.key', NEW.resource) USING NEW;
  EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'two records hold the same value' USING ERRCODE = '23505',
      CONSTRAINT = 'custom_values_unique', COLUMN = NEW.key;
  END;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER reindex AFTER UPDATE OF type, "unique" ON custom_fields FOR EACH ROW EXECUTE FUNCTION ws_custom_reindex();

-- ws_custom_shown is a record's custom_fields as webhook events show them: without archived
-- fields, {} for none (a record's to_jsonb holds JSON null then).
-- +goose StatementBegin
CREATE FUNCTION ws_custom_shown(ws uuid, res text, v jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN v IS NULL OR jsonb_typeof(v) <> 'object' OR v = '{}' THEN '{}'::jsonb
    ELSE v - coalesce((SELECT array_agg(f.key) FROM custom_fields f
                        WHERE f.workspace_id = ws AND f.resource = res AND f.archived), '{}') END
$$;
-- +goose StatementEnd

-- ws_custom_changes spreads a change of custom_fields into one entry per key,
-- custom_fields.<key>, as activity and webhook events name built-in fields.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_changes(diff jsonb, prior jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  -- A record without values holds NULL (JSON null in to_jsonb): no keys.
  SELECT CASE WHEN diff IS NULL OR NOT diff ? 'custom_fields' THEN diff
    ELSE (diff - 'custom_fields') || coalesce((
      SELECT jsonb_object_agg('custom_fields.' || k, n.v -> k)
        FROM (SELECT CASE WHEN jsonb_typeof(diff -> 'custom_fields') = 'object' THEN diff -> 'custom_fields' ELSE '{}' END AS v,
                     CASE WHEN jsonb_typeof(prior) = 'object' THEN prior ELSE '{}' END AS p) n,
             LATERAL (SELECT jsonb_object_keys(n.v) AS k UNION SELECT jsonb_object_keys(n.p)) ks
       WHERE (n.v -> k) IS DISTINCT FROM (n.p -> k)), '{}') END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['deals', 'people', 'companies', 'tasks', 'deal_tasks', 'projects'] LOOP
    EXECUTE format($s$ALTER TABLE %I ADD COLUMN custom_fields jsonb CHECK (jsonb_typeof(custom_fields) = 'object')$s$, t);
    EXECUTE format('CREATE TRIGGER custom_index AFTER INSERT OR UPDATE OF custom_fields ON %I FOR EACH ROW EXECUTE FUNCTION ws_custom_index(%L)', t, t);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- Activity and webhook events: the bodies of 00031_activity_cost.sql and
-- 00039_webhook_event_redact.sql, with a change of custom_fields named per key.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_activity() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  actor uuid := app_user_id();
  rec jsonb;
  prior jsonb;
  diff jsonb;
  act text;
  owned text[] := ARRAY['id', 'workspace_id', 'created_by', 'created_at', 'updated_at'];
BEGIN
  IF actor IS NULL THEN
    RETURN NULL; -- seeding and the admin CLI act outside a request
  END IF;
  IF TG_OP = 'INSERT' THEN
    rec := to_jsonb(NEW) - 'search_doc'; act := 'created'; diff := jsonb_strip_nulls(rec - owned);
  ELSIF TG_OP = 'UPDATE' THEN
    rec := to_jsonb(NEW) - 'search_doc'; act := 'updated'; prior := to_jsonb(OLD);
    SELECT coalesce(jsonb_object_agg(n.key, n.value), '{}') INTO diff
      FROM jsonb_each(rec) n
     WHERE n.key <> 'updated_at' AND n.value IS DISTINCT FROM (prior -> n.key);
  ELSE
    rec := to_jsonb(OLD) - 'search_doc'; act := 'detached'; diff := jsonb_strip_nulls(rec - owned);
  END IF;
  diff := ws_custom_changes(diff, prior -> 'custom_fields');
  INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes, feature)
  VALUES (app_workspace_id(), TG_ARGV[0], (rec ->> 'id')::uuid, act, actor, diff, nullif(TG_ARGV[1], ''));
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_event() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ws uuid := app_workspace_id();
  act text := CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'detached' END;
  typ text := TG_ARGV[0] || '.' || act;
  rec jsonb;
  prior jsonb;
  diff text[];
  targets uuid[];
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL; -- as ws_record_activity: seeding and the admin CLI act outside a request
  END IF;
  SELECT array_agg(id) INTO targets FROM webhook_endpoints
   WHERE workspace_id = ws AND enabled AND events && ARRAY['*', TG_ARGV[0] || '.*', typ];
  IF targets IS NULL THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    rec := to_jsonb(OLD) - 'search_doc';
  ELSE
    rec := to_jsonb(NEW) - 'search_doc';
  END IF;
  IF TG_OP = 'UPDATE' THEN
    prior := to_jsonb(OLD);
    SELECT coalesce(array_agg(n.key ORDER BY n.key), '{}') INTO diff
      FROM jsonb_object_keys(ws_custom_changes((SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(rec) e
              WHERE e.key <> 'updated_at' AND e.value IS DISTINCT FROM (prior -> e.key)), prior -> 'custom_fields')) n(key);
  END IF;
  IF rec ? 'custom_fields' THEN -- archived fields stay out of events, as out of reads
    rec := jsonb_set(rec, '{custom_fields}', ws_custom_shown(ws, TG_ARGV[0], rec -> 'custom_fields'));
  END IF;
  IF TG_ARGV[0] = 'webhook_endpoints' AND jsonb_typeof(rec -> 'url') = 'string' THEN
    rec := jsonb_set(rec, '{url}', to_jsonb(ws_redact_url(rec ->> 'url')));
  END IF;
  INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  VALUES (ws, typ, TG_ARGV[0], (rec ->> 'id')::uuid, rec, diff, targets);
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['deals', 'people', 'companies', 'tasks', 'deal_tasks', 'projects'] LOOP
    EXECUTE format('DROP TRIGGER custom_index ON %I', t);
    EXECUTE format('ALTER TABLE %I DROP COLUMN custom_fields', t);
  END LOOP;
END
$$;
-- +goose StatementEnd
DROP TABLE custom_values;
DROP TABLE custom_fields;
DROP FUNCTION ws_custom_index();
DROP FUNCTION ws_custom_reindex();
DROP FUNCTION ws_custom_field_guard();
