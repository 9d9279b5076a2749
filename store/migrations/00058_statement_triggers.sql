-- +goose Up
-- A statement that inserts many rows (a batch write or an import's chunk, one INSERT of
-- many rows: workspace/batchset.go) writes their activity, webhook events and custom
-- values in one statement each, not one per row: the INSERT side of the activity,
-- webhook_event and custom_index triggers becomes a statement trigger reading the inserted
-- rows from a transition table (activity_rows, webhook_event_rows, custom_index_rows). The
-- rows written are those the row triggers wrote for each inserted row (the INSERT branches
-- of ws_record_activity, ws_record_event and ws_custom_index); UPDATE and DELETE keep the
-- row triggers. A transition table serves one event only, hence the split.

-- +goose StatementBegin
CREATE FUNCTION ws_record_activity_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  actor uuid := app_user_id();
BEGIN
  IF actor IS NULL THEN
    RETURN NULL; -- seeding and the admin CLI act outside a request
  END IF;
  INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes, feature)
  SELECT app_workspace_id(), TG_ARGV[0], (r ->> 'id')::uuid, 'created', actor,
         ws_custom_changes(jsonb_strip_nulls(r - ARRAY['id', 'workspace_id', 'created_by', 'created_at', 'updated_at']), NULL::jsonb),
         nullif(TG_ARGV[1], '')
    FROM (SELECT to_jsonb(n) - 'search_doc' AS r FROM new_rows n) s;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION ws_record_event_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ws uuid := app_workspace_id();
  typ text := TG_ARGV[0] || '.created';
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
  INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  SELECT ws, typ, TG_ARGV[0], (r ->> 'id')::uuid, r, NULL, targets
    FROM (SELECT CASE WHEN TG_ARGV[0] = 'webhook_endpoints' AND jsonb_typeof(c -> 'url') = 'string'
                      THEN jsonb_set(c, '{url}', to_jsonb(ws_redact_url(c ->> 'url'))) ELSE c END AS r
            FROM (SELECT CASE WHEN r0 ? 'custom_fields' -- archived fields stay out of events
                              THEN jsonb_set(r0, '{custom_fields}', ws_custom_shown(ws, TG_ARGV[0], r0 -> 'custom_fields')) ELSE r0 END AS c
                    FROM (SELECT to_jsonb(n) - 'search_doc' AS r0 FROM new_rows n) a) b) s;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION ws_custom_index_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  k text;
BEGIN
  INSERT INTO custom_values
  SELECT r.* FROM new_rows n JOIN custom_fields f ON f.workspace_id = n.workspace_id AND f.resource = TG_ARGV[0] AND n.custom_fields ? f.key
   CROSS JOIN LATERAL ws_custom_rows(f, n.workspace_id, n.id, n.custom_fields -> f.key) r
   WHERE n.custom_fields IS NOT NULL AND n.custom_fields <> '{}';
  RETURN NULL;
EXCEPTION WHEN unique_violation THEN
  -- The field whose value another record holds; one taken by another row of this
  -- statement is not in custom_values (the INSERT was undone): its key stays unnamed.
  SELECT f.key INTO k FROM new_rows n JOIN custom_fields f
      ON f.workspace_id = n.workspace_id AND f.resource = TG_ARGV[0] AND f."unique" AND n.custom_fields ? f.key
   WHERE EXISTS (SELECT 1 FROM ws_custom_rows(f, n.workspace_id, n.id, n.custom_fields -> f.key) r
                  JOIN custom_values c ON c.field_id = f.id AND c.u = r.u AND c.record_id <> n.id)
   LIMIT 1;
  RAISE EXCEPTION 'a unique custom field''s value is taken' USING ERRCODE = '23505',
    CONSTRAINT = 'custom_values_unique', COLUMN = coalesce(k, '');
END
$$;
-- +goose StatementEnd

-- ws_protect as 00026_webhook_upkeep.sql made it, with the INSERT triggers split as above.
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
    EXECUTE format('CREATE TRIGGER activity AFTER UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION ws_record_activity(%L, %L)',
      tbl, resource, feature);
    EXECUTE format('CREATE TRIGGER activity_rows AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ws_record_activity_rows(%L, %L)',
      tbl, resource, feature);
    EXECUTE format('CREATE TRIGGER webhook_event AFTER UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION ws_record_event(%L, %L)',
      tbl, resource, feature);
    EXECUTE format('CREATE TRIGGER webhook_event_rows AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ws_record_event_rows(%L, %L)',
      tbl, resource, feature);
  END IF;
END
$$;
-- +goose StatementEnd

-- Every table's INSERT triggers of the three, split: the row trigger keeps its other
-- events (bits of tgtype: 8 DELETE, 16 UPDATE), the statement trigger takes INSERT (4).
-- +goose StatementBegin
DO $$
DECLARE
  t record;
  events text[];
BEGIN
  FOR t IN SELECT c.relname AS tbl, tg.tgname AS name, tg.tgtype, tg.tgfoid::regproc::text AS fn,
                  substring(pg_get_triggerdef(tg.oid) FROM 'EXECUTE FUNCTION \w+\((.*)\)$') AS args
             FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid JOIN pg_namespace s ON s.oid = c.relnamespace
            WHERE s.nspname = 'public' AND NOT tg.tgisinternal AND tg.tgname IN ('activity', 'webhook_event', 'custom_index')
              AND tg.tgtype & 4 <> 0
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', t.name, t.tbl);
    events := '{}';
    IF t.tgtype & 16 <> 0 THEN
      events := events || CASE WHEN t.name = 'custom_index' THEN 'UPDATE OF custom_fields' ELSE 'UPDATE' END;
    END IF;
    IF t.tgtype & 8 <> 0 THEN
      events := events || 'DELETE'::text;
    END IF;
    IF cardinality(events) > 0 THEN
      EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I FOR EACH ROW EXECUTE FUNCTION %s(%s)',
        t.name, array_to_string(events, ' OR '), t.tbl, t.fn, t.args);
    END IF;
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)',
      t.name || '_rows', t.tbl, t.fn || '_rows', t.args);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
  t record;
  events text[];
BEGIN
  FOR t IN SELECT c.relname AS tbl, tg.tgname AS name, tg.tgfoid::regproc::text AS fn,
                  substring(pg_get_triggerdef(tg.oid) FROM 'EXECUTE FUNCTION \w+\((.*)\)$') AS args,
                  (SELECT r.tgtype FROM pg_trigger r WHERE r.tgrelid = tg.tgrelid AND r.tgname = left(tg.tgname, -5)) AS rowtype
             FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid JOIN pg_namespace s ON s.oid = c.relnamespace
            WHERE s.nspname = 'public' AND tg.tgname IN ('activity_rows', 'webhook_event_rows', 'custom_index_rows')
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', t.name, t.tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', left(t.name, -5), t.tbl);
    events := ARRAY['INSERT'];
    IF coalesce(t.rowtype, 0) & 16 <> 0 THEN
      events := events || CASE WHEN t.name = 'custom_index_rows' THEN 'UPDATE OF custom_fields' ELSE 'UPDATE' END;
    END IF;
    IF coalesce(t.rowtype, 0) & 8 <> 0 THEN
      events := events || 'DELETE'::text;
    END IF;
    EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I FOR EACH ROW EXECUTE FUNCTION %s(%s)',
      left(t.name, -5), array_to_string(events, ' OR '), t.tbl, left(t.fn, -5), t.args);
  END LOOP;
END
$$;
-- +goose StatementEnd

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

DROP FUNCTION ws_custom_index_rows();
DROP FUNCTION ws_record_event_rows();
DROP FUNCTION ws_record_activity_rows();
