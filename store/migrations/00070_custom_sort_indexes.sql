-- +goose Up
-- A sort on a custom field walked the field's custom_values index (field_id, value,
-- record_id) and fetched each record of the page by its primary key: four buffers a
-- record at 100,000 deals, 211 a page (docs/performance.md, "Custom fields"). A page read
-- from an index of the record table itself, in the sort's order, reads the page's heap
-- pages and a few index pages, as the built-in sorts do with their (workspace_id, field,
-- id) indexes.
--
-- Such an index is one per resource table, custom key and value column (t, n, d or b, as
-- custom_values has them), shared by every workspace whose field of that key sorts by
-- that column: (workspace_id, ws_custom_sort_<col>(custom_fields -> 'key'), id) WHERE
-- custom_fields ? 'key', so it holds only the records carrying the key. The service
-- builds it CONCURRENTLY, outside any transaction, in the background when a field is
-- defined or first sorted (workspace/sortindex.go): adding a field locks no write.
--
-- The functions below are the value of a record's entry as custom_values holds it
-- (ws_custom_rows, 00040_custom_fields.sql), for every entry a field of that column's
-- types holds: the same values in the same order (t in the database's collation, as
-- custom_values.t). An index is shared by workspaces whose fields of one key may be of
-- other types, so the functions must accept any JSON: they never raise (an error would
-- refuse the write of another workspace's record) and return NULL for what is not a value
-- of their column. IMMUTABLE is true of them: the timestamps they read carry their
-- offset (RFC 3339, as the service checks them), so TimeZone never enters, and dates are
-- midnight UTC. They are PL/pgSQL: never inlined, so the index's expression and a list's are
-- the same call, and an eighth of the cost of a call of a SQL function that is not
-- inlined (which plans its body at every call), on every write of a record carrying the key.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_t(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF jsonb_typeof(v) IN ('string', 'number', 'boolean') THEN
    RETURN v #>> '{}';
  END IF;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- number: the JSON number; money: its amount. A numeric string (as custom_values reads
-- one) converts when numeric_in takes it without error: no other text, nor one so long
-- that it would overflow.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_n(v jsonb) RETURNS numeric LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  s text;
BEGIN
  CASE jsonb_typeof(v)
    WHEN 'number' THEN
      RETURN v::numeric;
    WHEN 'string' THEN
      s := v #>> '{}';
    WHEN 'object' THEN
      CASE jsonb_typeof(v -> 'amount')
        WHEN 'number' THEN
          RETURN (v -> 'amount')::numeric;
        WHEN 'string' THEN
          s := v ->> 'amount';
        ELSE
          RETURN NULL;
      END CASE;
    ELSE
      RETURN NULL;
  END CASE;
  IF length(s) <= 1000 AND s ~ '^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,4})?\s*$' THEN
    RETURN s::numeric;
  END IF;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- date: midnight UTC; timestamp: an RFC 3339 string with its offset. Only strings of
-- those forms whose fields are in range convert (checked here, the day by its month and
-- year), so the conversion never raises; the others (another workspace's text) are NULL.
-- An exception block would be simpler, but it is a subtransaction, which a parallel index
-- build refuses ("cannot start subtransactions during a parallel operation").
-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_d(v jsonb) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  s text;
  y int;
  m int;
  days int;
BEGIN
  IF jsonb_typeof(v) <> 'string' THEN
    RETURN NULL;
  END IF;
  s := v #>> '{}';
  IF s !~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?([Zz]|[+-](0[0-9]|1[0-5]):[0-5][0-9]))?$' THEN
    RETURN NULL;
  END IF;
  y := substr(s, 1, 4)::int;
  m := substr(s, 6, 2)::int;
  days := 31;
  IF m IN (4, 6, 9, 11) THEN
    days := 30;
  ELSIF m = 2 AND y % 4 = 0 AND (y % 100 <> 0 OR y % 400 = 0) THEN
    days := 29;
  ELSIF m = 2 THEN
    days := 28;
  END IF;
  IF y = 0 OR substr(s, 9, 2)::int > days THEN
    RETURN NULL;
  END IF;
  IF length(s) = 10 THEN
    RETURN s::date::timestamp AT TIME ZONE 'UTC';
  END IF;
  RETURN s::timestamptz;
END
$$;
-- +goose StatementEnd

-- boolean: the JSON boolean, or a string boolin takes.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_b(v jsonb) RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  CASE jsonb_typeof(v)
    WHEN 'boolean' THEN
      RETURN v::boolean;
    WHEN 'string' THEN
      IF (v #>> '{}') ~* '^\s*(t(r(ue?)?)?|y(es?)?|on|off?|1|f(a(l(se?)?)?)?|no?|0)\s*$' THEN
        RETURN (v #>> '{}')::boolean;
      END IF;
      RETURN NULL;
    ELSE
      RETURN NULL;
  END CASE;
END
$$;
-- +goose StatementEnd

-- Under row-level security a condition is an index condition only when its functions are
-- LEAKPROOF (00019_search.sql): these raise no error and reveal nothing of a row, so they
-- are marked, and a custom sort's next page (its keyset, a condition on the sort's value)
-- starts where the cursor is in the index. Marking needs a superuser; without it a page
-- after the first reads the index from the workspace's first entry (correct, slower).
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_custom_sort_t(jsonb) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_n(jsonb) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_d(jsonb) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_b(jsonb) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: custom sort functions left unmarked; a custom sort''s later pages will read from the first';
  END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
-- The indexes the service built on these functions go with them.
DROP FUNCTION ws_custom_sort_t(jsonb), ws_custom_sort_n(jsonb), ws_custom_sort_d(jsonb), ws_custom_sort_b(jsonb) CASCADE;
