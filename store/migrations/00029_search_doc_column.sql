-- +goose Up
-- Each searchable table stores its search document (docs/performance.md, "Finding
-- records"). A q= or /v1/search read its matches through the GIN index on the expression
-- ws_search_doc(fields...) (00019, led by workspace_id since 00024), then rebuilt each
-- candidate's document: once for the recheck, once more for the filter (a trigram match
-- is lossy, so every candidate row is rechecked) and once for ts_rank; at 100,000 deals a
-- q of five letters rechecked 142 rows, 3 documents each, most of a search's time. The
-- document is now the column search_doc, GENERATED ALWAYS AS (the index's expression)
-- STORED, computed once per write, and the index is GIN (workspace_id, search_doc).
--
-- Each table's expression is taken from its <table>_search index, so 00019's per-table
-- declarations stay the one list of what is searched (TestFindIndexes checks the column
-- and the index against the catalogue). The old index is dropped before the column is
-- added, so the table's rewrite does not rebuild it.
-- +goose StatementBegin
DO $$
DECLARE ix record;
BEGIN
  FOR ix IN SELECT t.relname AS tbl, i.relname AS idx, pg_get_indexdef(i.oid, 2, false) AS doc
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relnamespace = 'public'::regnamespace AND i.relname = t.relname || '_search'
      ORDER BY t.relname LOOP
    EXECUTE format('DROP INDEX %I', ix.idx);
    EXECUTE format('ALTER TABLE %I ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (%s) STORED', ix.tbl, ix.doc);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (workspace_id, search_doc)', ix.idx, ix.tbl);
  END LOOP;
END $$;
-- +goose StatementEnd

-- The column is storage for the search, not a field: the catalogue does not list it, so
-- responses, webhooks (webhooks.Service.shape keeps catalogue columns) and the OpenAPI
-- document never show it. The two triggers that serialise whole rows drop it, so the
-- activity log never records it as a created or changed field and the webhook outbox
-- does not store it. Otherwise their bodies are those of 00001_schema.sql
-- (ws_record_activity) and 00027_webhooks_cost_slots.sql (ws_record_event).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_activity() RETURNS trigger LANGUAGE plpgsql AS $$
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
    rec := to_jsonb(NEW) - 'search_doc'; act := 'created'; diff := jsonb_strip_nulls(rec - owned);
  ELSIF TG_OP = 'UPDATE' THEN
    rec := to_jsonb(NEW) - 'search_doc'; act := 'updated';
    SELECT coalesce(jsonb_object_agg(n.key, n.value), '{}') INTO diff
      FROM jsonb_each(rec) n
     WHERE n.key <> 'updated_at' AND n.value IS DISTINCT FROM (to_jsonb(OLD) -> n.key);
  ELSE
    rec := to_jsonb(OLD) - 'search_doc'; act := 'detached'; diff := jsonb_strip_nulls(rec - owned);
  END IF;
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
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL; -- as ws_record_activity: seeding and the admin CLI act outside a request
  END IF;
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE workspace_id = ws AND enabled
                   AND events && ARRAY['*', TG_ARGV[0] || '.*', typ]) THEN
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
      FROM jsonb_each(rec) n
     WHERE n.key <> 'updated_at' AND n.value IS DISTINCT FROM (prior -> n.key);
  END IF;
  INSERT INTO webhook_events (workspace_id, type, object, object_id, record, changed)
  VALUES (ws, typ, TG_ARGV[0], (rec ->> 'id')::uuid, rec, diff);
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_event() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ws uuid := app_workspace_id();
  act text := CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'detached' END;
  typ text := TG_ARGV[0] || '.' || act;
  rec jsonb;
  prior jsonb;
  diff text[];
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL; -- as ws_record_activity: seeding and the admin CLI act outside a request
  END IF;
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE workspace_id = ws AND enabled
                   AND events && ARRAY['*', TG_ARGV[0] || '.*', typ]) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    rec := to_jsonb(OLD);
  ELSE
    rec := to_jsonb(NEW);
  END IF;
  IF TG_OP = 'UPDATE' THEN
    prior := to_jsonb(OLD);
    SELECT coalesce(array_agg(n.key ORDER BY n.key), '{}') INTO diff
      FROM jsonb_each(rec) n
     WHERE n.key <> 'updated_at' AND n.value IS DISTINCT FROM (prior -> n.key);
  END IF;
  INSERT INTO webhook_events (workspace_id, type, object, object_id, record, changed)
  VALUES (ws, typ, TG_ARGV[0], (rec ->> 'id')::uuid, rec, diff);
  RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_activity() RETURNS trigger LANGUAGE plpgsql AS $$
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
-- Each index is put back on the column's expression, led by workspace_id as in 00024.
-- +goose StatementBegin
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT t.relname AS tbl, pg_get_expr(d.adbin, d.adrelid) AS doc
      FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid
      JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE t.relnamespace = 'public'::regnamespace AND a.attname = 'search_doc' AND a.attgenerated = 's'
      ORDER BY t.relname LOOP
    EXECUTE format('DROP INDEX %I', c.tbl || '_search');
    EXECUTE format('ALTER TABLE %I DROP COLUMN search_doc', c.tbl);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (workspace_id, %s)', c.tbl || '_search', c.tbl, c.doc);
  END LOOP;
END $$;
-- +goose StatementEnd
