-- +goose Up
-- Webhook delivery, second part: the outbox trigger's cost, delivery slots shared by every process,
-- and periodic runs claimed by one process per interval.

-- Periodic tasks (the credit-hold, idempotency-key and token sweeps): one row per task with
-- its last run; store.ClaimRun lets one process per interval run it, whatever the number of
-- replicas. Outside RLS: only the service reads and writes it.
CREATE TABLE periodic_runs (
  name text PRIMARY KEY,
  ran_at timestamptz NOT NULL
);

-- The outbox trigger's cost on a write (docs/performance.md "Webhooks"):
-- - a write leaves an event only when an enabled endpoint of its workspace subscribes to
--   its type ('*', '<resource>.*' or the type itself: webhooks.Matches), read from the
--   endpoints at the write, so an endpoint's change or disabling counts from the next write
--   with nothing to keep in step; a workspace whose endpoints want only deals.* no longer
--   writes an outbox row (and its WAL) for every label;
-- - an update serialises the old row once, not once per field, to list the changed fields;
-- - the outbox drops its foreign key to workspaces: the trigger takes the workspace from
--   the write, whose own row was just checked against workspaces, and workspaces are never
--   deleted; the key cost each event a second referential check.

ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_workspace_id_fkey;

-- Delivery slots: the bound on concurrent deliveries to one endpoint holds across every
-- process (docs/webhooks.md). A process takes a free slot (held_until in the past) before
-- each attempt and frees it when it records the outcome; a slot of a process that died
-- frees itself when held_until passes. Rows (slots 0 .. bound-1) are made on first use.
-- Outside RLS: only the service reads and writes it.
CREATE TABLE webhook_slots (
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id),
  slot integer NOT NULL,
  held_until timestamptz NOT NULL DEFAULT '-infinity',
  PRIMARY KEY (endpoint_id, slot)
);

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

-- +goose Down
DROP TABLE periodic_runs;
DROP TABLE webhook_slots;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_workspace_id_fkey
  FOREIGN KEY (workspace_id) REFERENCES workspaces (id);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_event() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ws uuid := app_workspace_id();
  rec jsonb;
  diff text[];
  act text;
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE workspace_id = ws AND enabled) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    rec := to_jsonb(NEW); act := 'created';
  ELSIF TG_OP = 'UPDATE' THEN
    rec := to_jsonb(NEW); act := 'updated';
    SELECT coalesce(array_agg(n.key ORDER BY n.key), '{}') INTO diff
      FROM jsonb_each(rec) n
     WHERE n.key <> 'updated_at' AND n.value IS DISTINCT FROM (to_jsonb(OLD) -> n.key);
  ELSE
    rec := to_jsonb(OLD); act := 'detached';
  END IF;
  INSERT INTO webhook_events (workspace_id, type, object, object_id, record, changed)
  VALUES (ws, TG_ARGV[0] || '.' || act, TG_ARGV[0], (rec ->> 'id')::uuid, rec, diff);
  RETURN NULL;
END
$$;
-- +goose StatementEnd
