-- +goose Up
-- Two indexes of custom_values held entries for values nothing reads through them
-- (docs/performance.md, "Imports"); an import of the benchmark's people
-- (imports/bench_test.go: a number, a date and a text per record) paid for them on each
-- record.
--
-- custom_values_t held every value, though a number's, a money's, a date's, a
-- timestamp's or a boolean's t is null and its own index (custom_values_n, _d, _b,
-- partial since 00065_custom_values_partial_indexes.sql) is what its probes and sorts
-- read: two btree insertions per record of the benchmark into the largest index of
-- custom_values. It now holds the values with t or s (the text-like types' and
-- long_text's), whose probes and sorts say so (workspace/customquery.go,
-- customValueSet), which lets the planner read it; a long_text's "has a value" probe
-- names the index's very condition, so the index alone still answers it.
--
-- A value sets its type's column (values are checked on write, and a type change first
-- checks every stored value converts), so each row is in custom_values_t or in one of
-- the n, d, b indexes, and ws_custom_reindex finds a field's rows through them (a
-- BitmapOr) where it read custom_values_t alone.
DROP INDEX custom_values_t;
CREATE INDEX custom_values_t ON custom_values (field_id, t, record_id) INCLUDE (workspace_id)
  WHERE t IS NOT NULL OR s IS NOT NULL;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_reindex() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF NEW.type = OLD.type AND NEW."unique" = OLD."unique" THEN
    RETURN NULL;
  END IF;
  -- The field's rows, each of which sets its type's column: the arms are the partial
  -- indexes' conditions.
  DELETE FROM custom_values WHERE field_id = NEW.id
     AND (t IS NOT NULL OR s IS NOT NULL OR n IS NOT NULL OR d IS NOT NULL OR b IS NOT NULL);
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

-- custom_values_search held the words of every text-like and long_text value, though q=
-- reads only those of searchable fields (workspace/customquery.go, customSearch): a GIN
-- insertion and a search document per value that no search read (the benchmark's text
-- field is not searchable). A value now says whether q= reads it (searched: its field is
-- searchable and it has t or s), which ws_custom_rows sets from the field, and the index
-- holds those values alone; customSearch says v.searched, which lets the planner read
-- it. A field made searchable or not sets its values' flag (ws_custom_searchable), under
-- the lock that record writes take shared while they copy values
-- (00059_custom_absent.sql, ws_custom_lock_key), so none is written meanwhile with the
-- flag the field had before.
DROP INDEX custom_values_search;
ALTER TABLE custom_values ADD COLUMN searched boolean NOT NULL DEFAULT false;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_rows(f custom_fields, ws uuid, rec uuid, v jsonb)
RETURNS SETOF custom_values LANGUAGE sql STABLE AS $$
  SELECT ws, f.id, rec, x.t, x.n, x.d, x.b,
         CASE WHEN f."unique" THEN coalesce(x.t, x.n::text, to_char(x.d AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), x.b::text)
           || CASE WHEN f.type = 'money' THEN ' ' || (v ->> 'currency') ELSE '' END END,
         CASE WHEN f.type = 'long_text' THEN left(v #>> '{}', 10000) END,
         f.searchable AND (x.t IS NOT NULL OR f.type = 'long_text') -- searched
  FROM (
    SELECT CASE WHEN f.type IN ('text', 'url', 'email', 'phone', 'select', 'member', 'reference') THEN v #>> '{}'
                WHEN f.type = 'multi_select' THEN e END AS t,
           CASE WHEN f.type = 'number' THEN (v #>> '{}')::numeric
                WHEN f.type = 'money' THEN (v ->> 'amount')::numeric END AS n,
           CASE WHEN f.type = 'timestamp' THEN (v #>> '{}')::timestamptz
                WHEN f.type = 'date' THEN (v #>> '{}')::date::timestamp AT TIME ZONE 'UTC' END AS d,
           CASE WHEN f.type = 'boolean' THEN (v #>> '{}')::boolean END AS b
    FROM (SELECT NULL::text AS e WHERE f.type <> 'multi_select'
          UNION ALL SELECT jsonb_array_elements_text(v) WHERE f.type = 'multi_select') o
  ) x
  WHERE v IS NOT NULL AND jsonb_typeof(v) <> 'null'
$$;
-- +goose StatementEnd

UPDATE custom_values v SET searched = true FROM custom_fields f
 WHERE f.id = v.field_id AND f.searchable AND (v.t IS NOT NULL OR v.s IS NOT NULL);
CREATE INDEX custom_values_search ON custom_values USING gin (field_id, ws_search_doc(CASE WHEN t IS NULL THEN s ELSE t END))
  WHERE searched;

-- +goose StatementBegin
CREATE FUNCTION ws_custom_searchable() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(ws_custom_lock_key(NEW.workspace_id, NEW.resource));
  UPDATE custom_values SET searched = NEW.searchable
   WHERE field_id = NEW.id AND (t IS NOT NULL OR s IS NOT NULL) AND searched <> NEW.searchable;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER searchable AFTER UPDATE OF searchable ON custom_fields FOR EACH ROW
  WHEN (NEW.searchable IS DISTINCT FROM OLD.searchable) EXECUTE FUNCTION ws_custom_searchable();

-- +goose Down
DROP TRIGGER searchable ON custom_fields;
DROP FUNCTION ws_custom_searchable();
DROP INDEX custom_values_search;
ALTER TABLE custom_values DROP COLUMN searched;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_rows(f custom_fields, ws uuid, rec uuid, v jsonb)
RETURNS SETOF custom_values LANGUAGE sql STABLE AS $$
  SELECT ws, f.id, rec, x.t, x.n, x.d, x.b,
         CASE WHEN f."unique" THEN coalesce(x.t, x.n::text, to_char(x.d AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), x.b::text)
           || CASE WHEN f.type = 'money' THEN ' ' || (v ->> 'currency') ELSE '' END END,
         CASE WHEN f.type = 'long_text' THEN left(v #>> '{}', 10000) END
  FROM (
    SELECT CASE WHEN f.type IN ('text', 'url', 'email', 'phone', 'select', 'member', 'reference') THEN v #>> '{}'
                WHEN f.type = 'multi_select' THEN e END AS t,
           CASE WHEN f.type = 'number' THEN (v #>> '{}')::numeric
                WHEN f.type = 'money' THEN (v ->> 'amount')::numeric END AS n,
           CASE WHEN f.type = 'timestamp' THEN (v #>> '{}')::timestamptz
                WHEN f.type = 'date' THEN (v #>> '{}')::date::timestamp AT TIME ZONE 'UTC' END AS d,
           CASE WHEN f.type = 'boolean' THEN (v #>> '{}')::boolean END AS b
    FROM (SELECT NULL::text AS e WHERE f.type <> 'multi_select'
          UNION ALL SELECT jsonb_array_elements_text(v) WHERE f.type = 'multi_select') o
  ) x
  WHERE v IS NOT NULL AND jsonb_typeof(v) <> 'null'
$$;
-- +goose StatementEnd
CREATE INDEX custom_values_search ON custom_values USING gin (field_id, ws_search_doc(CASE WHEN t IS NULL THEN s ELSE t END))
  WHERE t IS NOT NULL OR s IS NOT NULL;
DROP INDEX custom_values_t;
CREATE INDEX custom_values_t ON custom_values (field_id, t, record_id) INCLUDE (workspace_id);
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
