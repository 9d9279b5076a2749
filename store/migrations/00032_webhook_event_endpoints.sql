-- +goose Up
-- An event goes to the endpoints subscribed to it at the write (docs/webhooks.md), not to
-- those subscribed when the dispatcher gets to it: an endpoint created, widened or enabled
-- between a write and the next poll received the write's event. The outbox trigger now
-- keeps the ids of the enabled endpoints whose events match, as the write's transaction
-- sees them, in the event's endpoint_ids, and the dispatcher (webhooks/service.go) makes
-- deliveries to those of them still enabled. Matching in the write's own transaction
-- leaves no race between clocks and commit order: a change to an endpoint applies to the
-- writes that see it committed when their trigger runs, and not to the others.
--
-- ws_record_event's body is 00029_search_doc_column.sql's, gathering the matching
-- endpoints where it asked whether one exists. Events written before this migration, or
-- by a transaction in flight while it ran, have no endpoint_ids: the dispatcher matches
-- them against the endpoints as they are at dispatch, as it did for every event before.
ALTER TABLE webhook_events ADD COLUMN endpoint_ids uuid[];

-- TG_ARGV: resource name, feature (unused).
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
      FROM jsonb_each(rec) n
     WHERE n.key <> 'updated_at' AND n.value IS DISTINCT FROM (prior -> n.key);
  END IF;
  INSERT INTO webhook_events (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  VALUES (ws, typ, TG_ARGV[0], (rec ->> 'id')::uuid, rec, diff, targets);
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
ALTER TABLE webhook_events DROP COLUMN endpoint_ids;
