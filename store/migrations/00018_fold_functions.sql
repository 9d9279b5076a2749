-- +goose Up
-- SQL you can read in one place.
--
-- 1. 00013's grant functions are dropped. 00017 replaced them with functions that also
--    authenticate the client (their argument lists differ) and kept the old ones only for
--    replicas still running the binary before 00017 during a rolling upgrade; no binary
--    that calls them can be running against a database migrated this far, and nothing in
--    this repository calls them. oauth_revoke_family (00013) stays: 00017's grants and
--    store.RevokeRefreshToken call it.
-- 2. ws_protect is defined once, here. Understanding it used to take three files: 00001
--    wrote it, 00011 rewrote it with one policy per command (ws_feature_policies), and
--    00012 renamed that to ws_protect_base behind a wrapper adding the sync index. The
--    tables those migrations protected keep what they made; ws_protect below makes the
--    same for tables created from now on (store's TestWsProtect compares the two).

DROP FUNCTION oauth_refresh_grant(bytea, text, timestamptz, timestamptz, text[], text, bytea, bytea, timestamptz, timestamptz);
DROP FUNCTION oauth_code_grant(bytea, text, timestamptz, boolean, text, text, text, bytea, bytea, timestamptz, timestamptz);
DROP FUNCTION oauth_issue_pair(uuid, text[], bytea, bytea, timestamptz, timestamptz, timestamptz);

DROP FUNCTION ws_protect(text, text, text, text);
DROP FUNCTION ws_protect_base(text, text, text, text);
DROP FUNCTION ws_feature_policies(text, text);

-- ws_protect applies the standard machinery to a workspace table tbl, served as resource:
--
--   - row-level security, enabled and forced (the owner too);
--   - workspace isolation. Without a feature: one policy, ws_isolation, for every command.
--     With a feature (crm, hr, ...), the second gate (docs/contract.md section 5.6) folded
--     into the same indexable equality, one policy per command, so the planner sees
--     workspace_id = <one value> and walks the keyset index (00011 tells why):
--       ws_read   SELECT  the workspace, if the grant is read or full
--       ws_insert INSERT  the workspace, if the grant is full
--       ws_update UPDATE  rows of the workspace; the new row only if the grant is full (an
--                         update without the grant fails instead of matching nothing)
--       ws_delete DELETE  the workspace, if the grant is full
--     An actor without the grant compares with NULL and sees nothing;
--   - privileges of the request role workspaced_app by writes: 'none' reads only, 'write'
--     also inserts and updates, 'detach' inserts and deletes (join records are created and
--     detached, never updated: 00016 took UPDATE back from the three join tables; a join
--     table protected from now on never gets it);
--   - the keyset index lists walk, (workspace_id, created_at DESC, id DESC), and the sync
--     index incremental sync walks, (workspace_id, updated_at, id);
--   - the updated_at trigger (ws_touch), and, on writable tables, the activity trigger.
-- +goose StatementBegin
CREATE FUNCTION ws_protect(tbl text, resource text, feature text, writes text) RETURNS void LANGUAGE plpgsql AS $$
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
  END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
