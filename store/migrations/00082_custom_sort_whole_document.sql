-- +goose Up
-- The sort indexes (00070_custom_sort_indexes.sql, workspace/sortindex.go) were on
-- ws_custom_sort_<col>(custom_fields -> 'key'). The functions are LEAKPROOF, but jsonb's ->
-- is not, so under row-level security no condition on that expression was an index
-- condition: a sort's "has a value" condition was checked on each record the page read
-- (a call of the function per record, beside the one the page shows), and a later page's
-- keyset condition read the index from the workspace's first entry. The functions now
-- take the whole document and the key, as ws_custom_value_t does
-- (00076_custom_list_indexes.sql), so both are index conditions, as they are without
-- row-level security. Their bodies are those of 00070 and 00079, reading doc -> key
-- themselves.
--
-- The indexes on the old functions go with them, and the service builds the new ones in
-- the background on the next definition or sort of their key, as after 00079; until then
-- such a sort reads custom_values, with the same pages.
-- +goose StatementBegin
DO $$
DECLARE
  ix regclass;
BEGIN
  FOR ix IN SELECT indexrelid::regclass FROM pg_index WHERE pg_get_indexdef(indexrelid) ~ 'ws_custom_sort_[tndb]\(' LOOP
    EXECUTE format('DROP INDEX %s', ix);
  END LOOP;
END $$;
-- +goose StatementEnd

DROP FUNCTION ws_custom_sort_t(jsonb), ws_custom_sort_n(jsonb), ws_custom_sort_d(jsonb), ws_custom_sort_b(jsonb);

-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_t(doc jsonb, key text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  v jsonb := doc -> key;
  s text;
BEGIN
  IF jsonb_typeof(v) IN ('string', 'number', 'boolean') THEN
    s := v #>> '{}';
    IF octet_length(s) <= 2600 THEN
      RETURN s;
    END IF;
    RETURN left(s, 500);
  END IF;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_n(doc jsonb, key text) RETURNS numeric LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  v jsonb := doc -> key;
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

-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_d(doc jsonb, key text) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  v jsonb := doc -> key;
  s text;
  y int;
  m int;
  days int;
BEGIN
  IF v IS NULL OR jsonb_typeof(v) <> 'string' THEN
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

-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_b(doc jsonb, key text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  v jsonb := doc -> key;
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

-- Marking needs a superuser (00070_custom_sort_indexes.sql says why the mark matters).
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_custom_sort_t(jsonb, text) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_n(jsonb, text) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_d(jsonb, text) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_b(jsonb, text) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: custom sort functions left unmarked; a custom sort''s conditions are checked on each record it reads';
  END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
  ix regclass;
BEGIN
  FOR ix IN SELECT indexrelid::regclass FROM pg_index WHERE pg_get_indexdef(indexrelid) ~ 'ws_custom_sort_[tndb]\(' LOOP
    EXECUTE format('DROP INDEX %s', ix);
  END LOOP;
END $$;
-- +goose StatementEnd

DROP FUNCTION ws_custom_sort_t(jsonb, text), ws_custom_sort_n(jsonb, text), ws_custom_sort_d(jsonb, text), ws_custom_sort_b(jsonb, text);

-- +goose StatementBegin
CREATE FUNCTION ws_custom_sort_t(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  s text;
BEGIN
  IF jsonb_typeof(v) IN ('string', 'number', 'boolean') THEN
    s := v #>> '{}';
    IF octet_length(s) <= 2600 THEN
      RETURN s;
    END IF;
    RETURN left(s, 500);
  END IF;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

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

-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_custom_sort_t(jsonb) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_n(jsonb) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_d(jsonb) LEAKPROOF;
    ALTER FUNCTION ws_custom_sort_b(jsonb) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: custom sort functions left unmarked';
  END IF;
END $$;
-- +goose StatementEnd
