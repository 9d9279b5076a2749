-- +goose Up
-- Webhooks (docs/webhooks.md): endpoints an admin registers, an outbox of change
-- events written in the same transaction as the write, and one delivery row per event and
-- endpoint. Delivery itself runs on River (its own tables, applied by store.Migrate).

-- Endpoints are a catalogue resource (webhook_endpoints), admin-only for reads and writes.
-- The column secret is always NULL: it is the catalogue's field that create and rotation
-- fill in their one response; the secrets live in webhook_secrets, which the request role
-- can write but never read, so neither a list, a get nor the activity trail shows them.
SELECT ws_resource_table('webhook_endpoints', $c$
  url text NOT NULL, events text[] NOT NULL DEFAULT '{*}', description text,
  enabled boolean NOT NULL DEFAULT true, disabled_reason text, failing_since timestamptz,
  secret text CHECK (secret IS NULL)$c$);
SELECT ws_protect('webhook_endpoints', 'webhook_endpoints', '', 'write');
CREATE INDEX webhook_endpoints_enabled ON webhook_endpoints (workspace_id) WHERE enabled;
-- Admin-only (docs/webhooks.md): members see no endpoint. The service itself (the table's
-- owner, not the request role) reads them to deliver, with the workspace set.
CREATE POLICY ws_admin_only ON webhook_endpoints AS RESTRICTIVE
  USING ((SELECT app_is_admin()) OR current_user <> 'workspaced_app')
  WITH CHECK ((SELECT app_is_admin()) OR current_user <> 'workspaced_app');

CREATE TABLE webhook_secrets (
  endpoint_id uuid PRIMARY KEY REFERENCES webhook_endpoints (id),
  workspace_id uuid NOT NULL DEFAULT app_workspace_id() REFERENCES workspaces (id),
  secret text NOT NULL,
  previous_secret text,
  previous_expires_at timestamptz
);
ALTER TABLE webhook_secrets ENABLE ROW LEVEL SECURITY;
CREATE POLICY ws_isolation ON webhook_secrets
  USING (workspace_id = (SELECT app_workspace_id()))
  WITH CHECK (workspace_id = (SELECT app_workspace_id()));
-- The request role only inserts a new endpoint's secret (beside the create); rotation and
-- signing run as the service.
GRANT INSERT ON webhook_secrets TO workspaced_app;

-- The outbox: one row per committed write in a workspace with an enabled endpoint (and per
-- ping). seq orders events: it increases within every workspace, with gaps. endpoint_id
-- names the one endpoint of a ping. Outside RLS: only the service reads it.
CREATE TABLE webhook_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  type text NOT NULL,
  object text NOT NULL,
  object_id uuid,
  record jsonb,
  changed text[],
  endpoint_id uuid REFERENCES webhook_endpoints (id),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  dispatched_at timestamptz
);
CREATE INDEX webhook_events_pending ON webhook_events (seq) WHERE dispatched_at IS NULL;

-- Deliveries: one per event and endpoint, carrying its latest attempt. A catalogue resource
-- (webhook_deliveries, read only, admin only); the service writes it.
SELECT ws_resource_table('webhook_deliveries', $c$
  endpoint_id uuid NOT NULL, event_id uuid NOT NULL, event_type text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0, last_attempt_at timestamptz, latency_ms integer,
  response_status integer, response_body text, error text, next_attempt_at timestamptz,
  UNIQUE (endpoint_id, event_id),
  FOREIGN KEY (workspace_id, endpoint_id) REFERENCES webhook_endpoints (workspace_id, id)$c$);
SELECT ws_protect('webhook_deliveries', 'webhook_deliveries', '', 'none');
CREATE INDEX webhook_deliveries_endpoint_id ON webhook_deliveries (workspace_id, endpoint_id, created_at DESC, id DESC);
CREATE POLICY ws_admin_only ON webhook_deliveries AS RESTRICTIVE
  USING ((SELECT app_is_admin()) OR current_user <> 'workspaced_app')
  WITH CHECK ((SELECT app_is_admin()) OR current_user <> 'workspaced_app');

-- ws_record_event writes the outbox row of a write, beside (not inside) ws_record_activity:
-- the same tables, the same actor rule, the same transaction, so a rolled-back write leaves
-- no event. A workspace without an enabled endpoint pays one index probe. SECURITY DEFINER:
-- the request role can neither read endpoints as a member nor touch the outbox.
-- TG_ARGV: resource name, feature (unused).
-- +goose StatementBegin
CREATE FUNCTION ws_record_event() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ws uuid := app_workspace_id();
  rec jsonb;
  diff text[];
  act text;
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL; -- as ws_record_activity: seeding and the admin CLI act outside a request
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

-- Every table whose writes leave an activity row gets the event trigger, with the same
-- timing and arguments; ws_protect does not know of it, so a table added later needs its
-- own (restapi's TestDatabaseRulesFollowCatalogue expects it beside every activity trigger).
-- +goose StatementBegin
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgname = 'activity' AND NOT tgisinternal LOOP
    EXECUTE replace(replace(t.def, 'CREATE TRIGGER activity ', 'CREATE TRIGGER webhook_event '),
      'ws_record_activity(', 'ws_record_event(');
  END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT tgrelid::regclass AS tbl FROM pg_trigger WHERE tgname = 'webhook_event' LOOP
    EXECUTE format('DROP TRIGGER webhook_event ON %s', t.tbl);
  END LOOP;
END
$$;
-- +goose StatementEnd
DROP FUNCTION ws_record_event();
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhook_secrets;
DROP TABLE webhook_endpoints;
