-- +goose Up
-- The activity trigger's cost on an update: it listed the changed fields comparing each
-- field of the new row with to_jsonb(OLD) -> key, serialising the old row once per field.
-- It now serialises it once, as 00027_webhooks_cost_slots.sql did for the outbox trigger
-- (ws_record_event); what it records is unchanged (docs/performance.md, "REST writes"):
-- as since 00029_search_doc_column.sql, the stored search document is left out, and Down
-- goes back to 00029's body.
-- TG_ARGV: resource name, feature ('' for none).
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
  INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes, feature)
  VALUES (app_workspace_id(), TG_ARGV[0], (rec ->> 'id')::uuid, act, actor, diff, nullif(TG_ARGV[1], ''));
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
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
