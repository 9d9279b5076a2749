-- +goose Up
-- Merging duplicates (docs/rest.md, "Merging duplicates"): POST /v1/people/{id}/merge and
-- /v1/companies/{id}/merge move every reference of the merged record to the kept one and
-- mark the merged record merged_into_id; it is never deleted. The mark is what the activity
-- trail and the webhook outbox call "merged": the UPDATE that sets merged_into_id leaves
-- one activity row with action merged and one <resource>.merged event, instead of updated.
-- The column is server-owned (the catalogue does not make it writable); the merge refuses
-- a record into itself before it writes.
ALTER TABLE people ADD COLUMN merged_into_id uuid,
  ADD CONSTRAINT people_merged_into_fkey FOREIGN KEY (workspace_id, merged_into_id) REFERENCES people (workspace_id, id);
ALTER TABLE companies ADD COLUMN merged_into_id uuid,
  ADD CONSTRAINT companies_merged_into_fkey FOREIGN KEY (workspace_id, merged_into_id) REFERENCES companies (workspace_id, id);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_activity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
    IF rec ->> 'merged_into_id' IS NOT NULL AND prior ->> 'merged_into_id' IS NULL THEN
      act := 'merged';
    END IF;
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
CREATE OR REPLACE FUNCTION ws_record_event() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
DECLARE
  ws uuid := app_workspace_id();
  act text := CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'detached' END;
  typ text;
  rec jsonb;
  prior jsonb;
  diff text[];
  targets uuid[];
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL; -- as ws_record_activity: seeding and the admin CLI act outside a request
  END IF;
  IF TG_OP = 'UPDATE' AND to_jsonb(NEW) ->> 'merged_into_id' IS NOT NULL AND to_jsonb(OLD) ->> 'merged_into_id' IS NULL THEN
    act := 'merged';
  END IF;
  typ := TG_ARGV[0] || '.' || act;
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
ALTER TABLE people DROP COLUMN merged_into_id;
ALTER TABLE companies DROP COLUMN merged_into_id;
