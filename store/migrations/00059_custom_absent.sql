-- +goose Up
-- [null]=true on a custom field, and the records without a value at the end of a custom
-- sort, read an index instead of every record: custom_absent holds one row per record and
-- field of its resource for which the record has no value, that is no custom_values row
-- (00040_custom_fields.sql: no key, JSON null, or an empty multi_select). A record thus
-- has, for each field, value rows or one absent row. workspace/customquery.go probes it.
--
-- It is written where custom_values is: by the record triggers (ws_custom_index, and
-- ws_custom_index_rows of 00058_statement_triggers.sql for many inserted rows), and for a
-- new field by ws_custom_absent_fill, one row per record of the workspace's resource (no
-- record has a value for a field that did not exist). A record written while a field is
-- being added would be missed by both (neither statement sees the other's uncommitted
-- row): the field's insert holds the advisory lock its guard takes
-- (ws_custom_field_guard, exclusive) and the record triggers take the same lock shared, so
-- each waits for the other's commit and then reads it. A record write waits at most for
-- the fill of one field: one narrow row per record of one workspace's resource.
--
-- Derived rows, written only by the service's triggers: no foreign keys (a check per row
-- would double the fill's cost; fields and records are never deleted under it).
CREATE TABLE custom_absent (
  workspace_id uuid NOT NULL,
  field_id uuid NOT NULL,
  record_id uuid NOT NULL
);
ALTER TABLE custom_absent ENABLE ROW LEVEL SECURITY;
ALTER TABLE custom_absent FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_isolation ON custom_absent
  USING (workspace_id = (SELECT app_workspace_id()))
  WITH CHECK (workspace_id = (SELECT app_workspace_id()));
GRANT SELECT ON custom_absent TO workspaced_app;
-- workspace_id included: the policy is checked on the index entry (as 00063_custom_values_indexes.sql).
-- The only index: a record's update finds its rows by (field, record) for the fields whose
-- presence it changes, so a field's fill writes one index, in its order.
CREATE INDEX custom_absent_field ON custom_absent (field_id, record_id) INCLUDE (workspace_id);

-- ws_custom_set is whether v, a record's entry for a field of type typ, gives the record a
-- value: one or more custom_values rows from ws_custom_rows.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_set(typ text, v jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT v IS NOT NULL AND jsonb_typeof(v) <> 'null'
     AND (typ <> 'multi_select' OR (jsonb_typeof(v) = 'array' AND jsonb_array_length(v) > 0))
$$;
-- +goose StatementEnd

-- ws_custom_lock_key is the advisory lock of a workspace's fields of a resource, the one
-- ws_custom_field_guard takes.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_lock_key(ws uuid, res text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT hashtextextended('custom_fields:' || ws || ':' || res, 0)
$$;
-- +goose StatementEnd

-- ws_custom_index as in 00040_custom_fields.sql, with the lock and the absent rows.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_index() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  k text;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.custom_fields IS NOT DISTINCT FROM OLD.custom_fields THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(ws_custom_lock_key(NEW.workspace_id, TG_ARGV[0]));
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM custom_values WHERE record_id = NEW.id;
    -- Only the fields the update gives a value to or takes it from.
    DELETE FROM custom_absent a USING custom_fields f
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0]
       AND ws_custom_set(f.type, NEW.custom_fields -> f.key) AND NOT ws_custom_set(f.type, OLD.custom_fields -> f.key)
       AND a.field_id = f.id AND a.record_id = NEW.id;
  END IF;
  INSERT INTO custom_absent
  SELECT NEW.workspace_id, f.id, NEW.id FROM custom_fields f
   WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND NOT ws_custom_set(f.type, NEW.custom_fields -> f.key)
     AND (TG_OP = 'INSERT' OR ws_custom_set(f.type, OLD.custom_fields -> f.key));
  IF NEW.custom_fields IS NULL OR NEW.custom_fields = '{}' THEN
    RETURN NULL;
  END IF;
  BEGIN
    INSERT INTO custom_values
    SELECT r.* FROM custom_fields f CROSS JOIN LATERAL ws_custom_rows(f, NEW.workspace_id, NEW.id, NEW.custom_fields -> f.key) r
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND NEW.custom_fields ? f.key;
  EXCEPTION WHEN unique_violation THEN
    SELECT f.key INTO k FROM custom_fields f
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND f."unique" AND NEW.custom_fields ? f.key
       AND EXISTS (SELECT 1 FROM ws_custom_rows(f, NEW.workspace_id, NEW.id, NEW.custom_fields -> f.key) r
                    JOIN custom_values c ON c.field_id = f.id AND c.u = r.u AND c.record_id <> NEW.id)
     LIMIT 1;
    RAISE EXCEPTION 'a unique custom field''s value is taken' USING ERRCODE = '23505',
      CONSTRAINT = 'custom_values_unique', COLUMN = coalesce(k, '');
  END;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- ws_custom_index_rows as in 00058_statement_triggers.sql, with the lock and the absent rows.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_index_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  k text;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(ws_custom_lock_key(w, TG_ARGV[0]))
     FROM (SELECT DISTINCT n.workspace_id AS w FROM new_rows n ORDER BY 1) x;
  INSERT INTO custom_absent
  SELECT n.workspace_id, f.id, n.id FROM new_rows n JOIN custom_fields f ON f.workspace_id = n.workspace_id AND f.resource = TG_ARGV[0]
   WHERE NOT ws_custom_set(f.type, n.custom_fields -> f.key);
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

-- ws_custom_absent_fill: a new field is absent from every record of its workspace's
-- resource. Its guard (BEFORE INSERT) holds the fields' lock, so a record written
-- meanwhile is either seen here or waits and sees the field.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_absent_fill() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  EXECUTE format('INSERT INTO custom_absent SELECT $1, $2, t.id FROM %I t WHERE t.workspace_id = $1 ORDER BY t.id', NEW.resource)
    USING NEW.workspace_id, NEW.id;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER absent_fill AFTER INSERT ON custom_fields FOR EACH ROW EXECUTE FUNCTION ws_custom_absent_fill();

-- ws_custom_reindex as in 00040_custom_fields.sql, rebuilding the field's absent rows too.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_reindex() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF NEW.type = OLD.type AND NEW."unique" = OLD."unique" THEN
    RETURN NULL;
  END IF;
  DELETE FROM custom_values WHERE field_id = NEW.id;
  DELETE FROM custom_absent WHERE field_id = NEW.id;
  EXECUTE format('INSERT INTO custom_absent SELECT t.workspace_id, $1.id, t.id FROM %I t
     WHERE t.workspace_id = $1.workspace_id AND NOT ws_custom_set($1.type, t.custom_fields -> $1.key) ORDER BY t.id', NEW.resource) USING NEW;
  BEGIN
    EXECUTE format('INSERT INTO custom_values SELECT r.* FROM %I t CROSS JOIN LATERAL ws_custom_rows($1, t.workspace_id, t.id, t.custom_fields -> $1.key) r
       WHERE t.workspace_id = $1.workspace_id AND t.custom_fields ? $1.key', NEW.resource) USING NEW;
  EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'two records hold the same value' USING ERRCODE = '23505',
      CONSTRAINT = 'custom_values_unique', COLUMN = NEW.key;
  END;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- The absent rows of the records already written.
-- +goose StatementBegin
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['deals', 'people', 'companies', 'tasks', 'deal_tasks', 'projects'] LOOP
    EXECUTE format('INSERT INTO custom_absent SELECT f.workspace_id, f.id, r.id FROM custom_fields f JOIN %I r ON r.workspace_id = f.workspace_id
      WHERE f.resource = %L AND NOT ws_custom_set(f.type, r.custom_fields -> f.key) ORDER BY f.id, r.id', t, t);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER absent_fill ON custom_fields;
DROP FUNCTION ws_custom_absent_fill();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_reindex() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF NEW.type = OLD.type AND NEW."unique" = OLD."unique" THEN
    RETURN NULL;
  END IF;
  DELETE FROM custom_values WHERE field_id = NEW.id;
  BEGIN
    EXECUTE format('INSERT INTO custom_values SELECT r.* FROM %I t CROSS JOIN LATERAL ws_custom_rows($1, t.workspace_id, t.id, t.custom_fields -> $1.key) r
       WHERE t.workspace_id = $1.workspace_id AND t.custom_fields ? $1.key', NEW.resource) USING NEW;
  EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'two records hold the same value' USING ERRCODE = '23505',
      CONSTRAINT = 'custom_values_unique', COLUMN = NEW.key;
  END;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_index_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  k text;
BEGIN
  INSERT INTO custom_values
  SELECT r.* FROM new_rows n JOIN custom_fields f ON f.workspace_id = n.workspace_id AND f.resource = TG_ARGV[0] AND n.custom_fields ? f.key
   CROSS JOIN LATERAL ws_custom_rows(f, n.workspace_id, n.id, n.custom_fields -> f.key) r
   WHERE n.custom_fields IS NOT NULL AND n.custom_fields <> '{}';
  RETURN NULL;
EXCEPTION WHEN unique_violation THEN
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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_index() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  k text;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.custom_fields IS NOT DISTINCT FROM OLD.custom_fields THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM custom_values WHERE record_id = NEW.id;
  END IF;
  IF NEW.custom_fields IS NULL OR NEW.custom_fields = '{}' THEN
    RETURN NULL;
  END IF;
  BEGIN
    INSERT INTO custom_values
    SELECT r.* FROM custom_fields f CROSS JOIN LATERAL ws_custom_rows(f, NEW.workspace_id, NEW.id, NEW.custom_fields -> f.key) r
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND NEW.custom_fields ? f.key;
  EXCEPTION WHEN unique_violation THEN
    SELECT f.key INTO k FROM custom_fields f
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND f."unique" AND NEW.custom_fields ? f.key
       AND EXISTS (SELECT 1 FROM ws_custom_rows(f, NEW.workspace_id, NEW.id, NEW.custom_fields -> f.key) r
                    JOIN custom_values c ON c.field_id = f.id AND c.u = r.u AND c.record_id <> NEW.id)
     LIMIT 1;
    RAISE EXCEPTION 'a unique custom field''s value is taken' USING ERRCODE = '23505',
      CONSTRAINT = 'custom_values_unique', COLUMN = coalesce(k, '');
  END;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP FUNCTION ws_custom_lock_key(uuid, text);
DROP FUNCTION ws_custom_set(text, jsonb);
DROP TABLE custom_absent;
