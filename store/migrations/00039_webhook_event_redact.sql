-- +goose Up
-- An event about a webhook endpoint goes to the workspace's other endpoints (a "*"
-- subscriber, such as an automation service's hook), and its record held the endpoint's
-- whole URL: the path and query of a chat service's hook URL are its credential. The event
-- now keeps the URL as 00035_admin_activity.sql keeps it in activity, scheme, host and port
-- only (ws_redact_url), when it is written, so no stored event holds the secret; data.changed
-- still names url when it changed (docs/webhooks.md, "Endpoints").

-- TG_ARGV: resource name, feature (unused). 00034_webhook_outbox.sql's body, redacting the
-- URL of an endpoint's record after the changed fields are found.
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
  IF TG_ARGV[0] = 'webhook_endpoints' AND jsonb_typeof(rec -> 'url') = 'string' THEN
    rec := jsonb_set(rec, '{url}', to_jsonb(ws_redact_url(rec ->> 'url')));
  END IF;
  INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  VALUES (ws, typ, TG_ARGV[0], (rec ->> 'id')::uuid, rec, diff, targets);
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Events written before this migration, pending in the outbox or in the log, lose their
-- URLs' secrets too.
UPDATE webhook_outbox SET record = jsonb_set(record, '{url}', to_jsonb(ws_redact_url(record ->> 'url')))
 WHERE object = 'webhook_endpoints' AND jsonb_typeof(record -> 'url') = 'string';
UPDATE webhook_events SET record = jsonb_set(record, '{url}', to_jsonb(ws_redact_url(record ->> 'url')))
 WHERE object = 'webhook_endpoints' AND jsonb_typeof(record -> 'url') = 'string';

-- +goose Down
-- The redacted URLs stay redacted: the secrets are gone.
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
  INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  VALUES (ws, typ, TG_ARGV[0], (rec ->> 'id')::uuid, rec, diff, targets);
  RETURN NULL;
END
$$;
-- +goose StatementEnd
