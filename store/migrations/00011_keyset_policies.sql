-- +goose Up
-- Lists that use their keyset index whatever the table size and statistics.
--
-- ws_protect gave every feature-gated table two read policies: the permissive ws_isolation
-- (workspace_id = (SELECT app_workspace_id())) and a restrictive grant check,
-- (SELECT app_grant(f)) IN ('read', 'full'). The planner cannot know the grant check passes
-- for every row or none, so it estimated it at 1% of the rows; at some table sizes that made
-- reading and sorting the whole workspace look cheaper than walking (workspace_id,
-- created_at DESC, id DESC) for 51 rows (10,000 deals: 249 buffers instead of 4).
--
-- Folding the grant into the one workspace comparison leaves a single indexable equality,
-- workspace_id = (SELECT CASE WHEN <grant allows> THEN app_workspace_id() END): an actor
-- without the grant compares with NULL and sees nothing, as before, and the planner sees
-- the same condition it sees on tables without a feature. One policy per command, since
-- reading needs read or full and writing needs full:
--   ws_read   SELECT  the workspace, if the grant is read or full
--   ws_insert INSERT  the workspace, if the grant is full
--   ws_update UPDATE  rows of the workspace; the new row only if the grant is full (an
--                     update without the grant fails as before instead of matching nothing)
--   ws_delete DELETE  the workspace, if the grant is full
-- Tables without a feature keep ws_isolation. Other restrictive policies (private tasks,
-- admin-only writes, activity and comment visibility) are untouched.
--
-- Filtered lists get the same walk: every filter index (workspace_id, x ...) of a table
-- with a keyset index gains the keyset's order, (workspace_id, x ..., created_at DESC, id
-- DESC), so a page filtered by a value every row shares reads 51 rows, not the workspace,
-- and a rare value still reads only its own rows. With these, every list statement has an
-- ordered index that answers it without a sort; the request transaction turns sorting off
-- (store/actor.go) so that index is chosen even before the table's first ANALYZE, when the
-- planner's guess of the workspace's rows cannot be trusted.

-- +goose StatementBegin
CREATE FUNCTION ws_feature_policies(tbl text, feature text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  readable text := format('workspace_id = (SELECT CASE WHEN app_grant(%L) IN (''read'', ''full'') THEN app_workspace_id() END)', feature);
  writable text := format('workspace_id = (SELECT CASE WHEN app_grant(%L) = ''full'' THEN app_workspace_id() END)', feature);
BEGIN
  EXECUTE format('DROP POLICY IF EXISTS ws_isolation ON %I', tbl);
  EXECUTE format('DROP POLICY IF EXISTS ws_feature_read ON %I', tbl);
  EXECUTE format('DROP POLICY IF EXISTS ws_feature_insert ON %I', tbl);
  EXECUTE format('DROP POLICY IF EXISTS ws_feature_update ON %I', tbl);
  EXECUTE format('DROP POLICY IF EXISTS ws_feature_delete ON %I', tbl);
  EXECUTE format('CREATE POLICY ws_read ON %I FOR SELECT USING (%s)', tbl, readable);
  EXECUTE format('CREATE POLICY ws_insert ON %I FOR INSERT WITH CHECK (%s)', tbl, writable);
  EXECUTE format('CREATE POLICY ws_update ON %I FOR UPDATE USING (workspace_id = (SELECT app_workspace_id())) WITH CHECK (%s)',
    tbl, writable);
  EXECUTE format('CREATE POLICY ws_delete ON %I FOR DELETE USING (%s)', tbl, writable);
END
$$;
-- +goose StatementEnd

-- Every table ws_protect gated so far, whichever migration made it: the feature is read
-- back from its ws_feature_read policy.
-- +goose StatementBegin
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT c.relname AS tbl,
           substring(pg_get_expr(p.polqual, p.polrelid) FROM $re$app_grant\('([a-z_]+)'$re$) AS feature
      FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
     WHERE p.polname = 'ws_feature_read'
  LOOP
    IF t.feature IS NULL THEN
      RAISE EXCEPTION 'ws_feature_read on % names no feature', t.tbl;
    END IF;
    PERFORM ws_feature_policies(t.tbl, t.feature);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
  i record;
BEGIN
  FOR i IN
    SELECT c.relname AS tbl, ix.relname AS idx, pg_get_indexdef(x.indexrelid) AS def
      FROM pg_index x
      JOIN pg_class ix ON ix.oid = x.indexrelid
      JOIN pg_class c ON c.oid = x.indrelid
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = x.indkey[0]
     WHERE c.relnamespace = 'public'::regnamespace
       AND NOT x.indisunique AND x.indpred IS NULL AND x.indexprs IS NULL
       AND a.attname = 'workspace_id' AND x.indnatts > 1
       AND ix.relname <> c.relname || '_keyset'
       -- an index that orders by something itself (updated_at ...) is left as it is
       AND NOT EXISTS (SELECT 1 FROM unnest(x.indkey::int2[]) k
                         JOIN pg_attribute o ON o.attrelid = c.oid AND o.attnum = k
                        WHERE o.attname IN ('id', 'created_at', 'updated_at'))
       AND EXISTS (SELECT 1 FROM pg_class k WHERE k.relname = c.relname || '_keyset')
  LOOP
    EXECUTE regexp_replace(replace(i.def, 'INDEX ' || quote_ident(i.idx) || ' ON', 'INDEX ' || quote_ident(i.idx || '_ordered') || ' ON'),
      '\)$', ', created_at DESC, id DESC)');
    EXECUTE format('DROP INDEX %I', i.idx);
    EXECUTE format('ALTER INDEX %I RENAME TO %I', i.idx || '_ordered', i.idx);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- ws_protect, as in 00001, with the folded policies for tables created from now on.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_protect(tbl text, resource text, feature text, writes text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', tbl);
  EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', tbl);
  IF feature <> '' THEN
    PERFORM ws_feature_policies(tbl, feature);
  ELSE
    EXECUTE format($p$CREATE POLICY ws_isolation ON %I
        USING (workspace_id = (SELECT app_workspace_id()))
        WITH CHECK (workspace_id = (SELECT app_workspace_id()))$p$, tbl);
  END IF;
  EXECUTE format('GRANT SELECT ON %I TO workspaced_app', tbl);
  IF writes = 'write' OR writes = 'detach' THEN
    EXECUTE format('GRANT INSERT, UPDATE ON %I TO workspaced_app', tbl);
  END IF;
  IF writes = 'detach' THEN
    EXECUTE format('GRANT DELETE ON %I TO workspaced_app', tbl);
  END IF;
  EXECUTE format('CREATE INDEX %I ON %I (workspace_id, created_at DESC, id DESC)', tbl || '_keyset', tbl);
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
