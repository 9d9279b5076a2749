-- +goose Up
-- A sort index on a record table (00070_custom_sort_indexes.sql) is shared by every
-- workspace whose records carry its key, whatever the field's type there. Another
-- workspace's long_text of that key (up to 200,000 characters) made an entry past what a
-- btree entry holds (2,704 bytes), and its write was refused. ws_custom_sort_t now keeps a
-- value of up to 2,600 bytes whole, which every value of a sortable type is (text,
-- email, select, member and reference at most 500 characters, phone 40, url 2,048 of
-- ASCII), and cuts a longer one to its first 500 characters.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_sort_t(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
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

-- Replacing the function drops its LEAKPROOF mark (00070_custom_sort_indexes.sql says why
-- it has one); marking needs a superuser, as there.
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_custom_sort_t(jsonb) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: ws_custom_sort_t left unmarked; a custom sort''s later pages will read from the first';
  END IF;
END $$;
-- +goose StatementEnd

-- The indexes built on the function before hold long values whole, where the function now
-- cuts them: they go, and the service builds them again in the background on the next
-- definition or sort of their key (workspace/sortindex.go); until then such a sort reads
-- custom_values, as before a build.
-- +goose StatementBegin
DO $$
DECLARE
  ix regclass;
BEGIN
  FOR ix IN SELECT indexrelid::regclass FROM pg_index WHERE pg_get_indexdef(indexrelid) LIKE '%ws_custom_sort_t(%' LOOP
    EXECUTE format('DROP INDEX %s', ix);
  END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_sort_t(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF jsonb_typeof(v) IN ('string', 'number', 'boolean') THEN
    RETURN v #>> '{}';
  END IF;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_custom_sort_t(jsonb) LEAKPROOF;
  END IF;
END $$;
-- +goose StatementEnd
