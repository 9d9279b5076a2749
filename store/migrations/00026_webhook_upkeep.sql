-- +goose Up
-- Webhook upkeep (docs/webhooks.md):
--
-- 1. ws_protect attaches the webhook outbox trigger beside the activity trigger, so a
--    workspace table added later feeds the outbox without a trigger written by hand. The
--    body is 00018's, plus the webhook_event trigger 00023 gave every table that had an
--    activity trigger then (same timing, events and arguments; store's TestWsProtect
--    compares).
-- 2. An outbox event the dispatcher cannot turn into deliveries (a constraint it breaks)
--    is set aside with the reason in dispatch_error instead of holding back the events
--    after it.
-- 3. Retention (webhooks/retention.go) deletes deliveries and dispatched events older than
--    WEBHOOK_RETENTION_DAYS in batches: BRIN indexes on created_at find the old rows
--    without a btree to maintain on every write, and the event_id index answers whether an
--    event still has a delivery.

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_protect(tbl text, resource text, feature text, writes text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  readable text := format('workspace_id = (SELECT CASE WHEN app_grant(%L) IN (''read'', ''full'') THEN app_workspace_id() END)', feature);
  writable text := format('workspace_id = (SELECT CASE WHEN app_grant(%L) = ''full'' THEN app_workspace_id() END)', feature);
BEGIN
  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', tbl);
  EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', tbl);
  IF feature = '' THEN
    EXECUTE format($p$CREATE POLICY ws_isolation ON %I
        USING (workspace_id = (SELECT app_workspace_id()))
        WITH CHECK (workspace_id = (SELECT app_workspace_id()))$p$, tbl);
  ELSE
    EXECUTE format('CREATE POLICY ws_read ON %I FOR SELECT USING (%s)', tbl, readable);
    EXECUTE format('CREATE POLICY ws_insert ON %I FOR INSERT WITH CHECK (%s)', tbl, writable);
    EXECUTE format('CREATE POLICY ws_update ON %I FOR UPDATE USING (workspace_id = (SELECT app_workspace_id())) WITH CHECK (%s)',
      tbl, writable);
    EXECUTE format('CREATE POLICY ws_delete ON %I FOR DELETE USING (%s)', tbl, writable);
  END IF;
  EXECUTE format('GRANT SELECT ON %I TO workspaced_app', tbl);
  IF writes = 'write' THEN
    EXECUTE format('GRANT INSERT, UPDATE ON %I TO workspaced_app', tbl);
  ELSIF writes = 'detach' THEN
    EXECUTE format('GRANT INSERT, DELETE ON %I TO workspaced_app', tbl);
  END IF;
  EXECUTE format('CREATE INDEX %I ON %I (workspace_id, created_at DESC, id DESC)', tbl || '_keyset', tbl);
  EXECUTE format('CREATE INDEX %I ON %I (workspace_id, updated_at, id)', tbl || '_sync', tbl);
  EXECUTE format('CREATE TRIGGER touch BEFORE UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION ws_touch()', tbl);
  IF writes <> 'none' THEN
    EXECUTE format('CREATE TRIGGER activity AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION ws_record_activity(%L, %L)',
      tbl, resource, feature);
    EXECUTE format('CREATE TRIGGER webhook_event AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION ws_record_event(%L, %L)',
      tbl, resource, feature);
  END IF;
END
$$;
-- +goose StatementEnd

ALTER TABLE webhook_events ADD COLUMN dispatch_error text;

CREATE INDEX webhook_events_created_at ON webhook_events USING brin (created_at);
CREATE INDEX webhook_deliveries_created_at ON webhook_deliveries USING brin (created_at);
CREATE INDEX webhook_deliveries_event_id ON webhook_deliveries (event_id);

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
