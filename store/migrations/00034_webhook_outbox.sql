-- +goose Up
-- The outbox a write pays for holds pending events alone (a write's cost,
-- docs/performance.md "An outbox of pending events"). Until now the trigger inserted each
-- event into webhook_events, the event log, with its random uuid key, a pending index and
-- a BRIN index on created_at, and the dispatcher marked it dispatched there: 28 µs a row
-- of a 10,000-label insert against 9 µs with no endpoint. Now the trigger appends to
-- webhook_outbox, keyed by seq alone (one append-only index on the write's path; no uuid,
-- no foreign key): 23 µs. The dispatcher (webhooks/service.go) moves what it dispatches
-- from webhook_outbox to webhook_events in the transaction that makes its deliveries,
-- giving each event its id there (a ping, whose id its caller is told at once, brings
-- its own). seq keeps coming from webhook_events' sequence, so it goes on increasing.
--
-- Outside RLS: only the service reads it, and the trigger (SECURITY DEFINER) writes it.
CREATE TABLE webhook_outbox (
  seq bigint PRIMARY KEY DEFAULT nextval('webhook_events_seq_seq'),
  id uuid,
  workspace_id uuid NOT NULL,
  type text NOT NULL,
  object text NOT NULL,
  object_id uuid,
  record jsonb,
  changed text[],
  endpoint_id uuid,
  endpoint_ids uuid[],
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- A pending event inserted into webhook_events, whoever inserts it (a transaction whose
-- trigger ran 00032's function while this migration committed; a ping from a process
-- started before it), goes to the outbox instead. The WHEN clause keeps the dispatcher's
-- own inserts, dispatched at once, from calling the function.
-- +goose StatementBegin
CREATE FUNCTION ws_event_to_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_outbox (seq, id, workspace_id, type, object, object_id, record, changed, endpoint_id, endpoint_ids, created_at)
  VALUES (NEW.seq, NEW.id, NEW.workspace_id, NEW.type, NEW.object, NEW.object_id, NEW.record, NEW.changed,
          NEW.endpoint_id, NEW.endpoint_ids, NEW.created_at);
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER to_outbox BEFORE INSERT ON webhook_events FOR EACH ROW
  WHEN (NEW.dispatched_at IS NULL) EXECUTE FUNCTION ws_event_to_outbox();

-- What is pending now moves to the outbox. An event the trigger wrote before 00032 names
-- no endpoints; it takes those subscribed to it now, as the dispatcher gave it until this
-- migration, so every outbox event names its endpoints.
WITH pending AS (DELETE FROM webhook_events WHERE dispatched_at IS NULL RETURNING *)
INSERT INTO webhook_outbox (seq, id, workspace_id, type, object, object_id, record, changed, endpoint_id, endpoint_ids, created_at)
SELECT e.seq, e.id, e.workspace_id, e.type, e.object, e.object_id, e.record, e.changed, e.endpoint_id,
       CASE WHEN e.endpoint_id IS NULL THEN coalesce(e.endpoint_ids, ARRAY(
         SELECT p.id FROM webhook_endpoints p
          WHERE p.workspace_id = e.workspace_id AND p.enabled AND p.events && ARRAY['*', e.object || '.*', e.type]))
       END,
       e.created_at
  FROM pending e;

DROP INDEX webhook_events_pending;

-- TG_ARGV: resource name, feature (unused). 00032_webhook_event_endpoints.sql's body,
-- writing to the outbox.
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
  targets uuid[];
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL;
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
CREATE INDEX webhook_events_pending ON webhook_events (seq) WHERE dispatched_at IS NULL;
DROP TRIGGER to_outbox ON webhook_events;
DROP FUNCTION ws_event_to_outbox();
INSERT INTO webhook_events (seq, id, workspace_id, type, object, object_id, record, changed, endpoint_id, endpoint_ids, created_at)
OVERRIDING SYSTEM VALUE
SELECT seq, coalesce(id, gen_random_uuid()), workspace_id, type, object, object_id, record, changed, endpoint_id, endpoint_ids, created_at
  FROM webhook_outbox;
DROP TABLE webhook_outbox;
