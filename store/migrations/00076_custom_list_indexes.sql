-- +goose Up
-- A list in its own order (newest first) with an eq condition on a select or member field
-- probed custom_values, found more than a page's worth, and walked the list's order,
-- reading every record up to the page's last match: about ten records read for each shown
-- with a select of ten options (docs/performance.md, "Custom fields"). A list index of the
-- record table, (workspace_id, ws_custom_value_t(custom_fields, 'key'), created_at DESC, id
-- DESC) WHERE custom_fields ? 'key', holds the records of one value in the list's order,
-- so the page reads the index and one heap page per record it shows. The service builds it
-- CONCURRENTLY in the background, as the sort indexes (00070_custom_sort_indexes.sql,
-- workspace/sortindex.go).
--
-- ws_custom_value_t is the text of key's entry in a record's custom_fields when the entry
-- is a string, number or boolean of at most 255 bytes (what #>> '{}' gives of it), NULL
-- otherwise. It takes the whole document and the key, where the sort indexes take
-- custom_fields -> 'key': jsonb's -> is not LEAKPROOF, so under row-level security a
-- condition on ws_custom_sort_t(custom_fields -> 'key') is a filter, never the index's
-- condition; a condition on this function, marked LEAKPROOF, is. It never raises (an error
-- would refuse the write of another workspace's record: an index is shared by every
-- workspace whose records carry the key, of whatever type) and its values are short enough
-- for any btree entry. The values eq compares with on the indexed types (option keys,
-- member ids) are strings of at most 63 bytes, so for them the function's value equals the
-- entry's #>> text exactly when the list's condition holds.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_value_t(doc jsonb, key text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  s text;
BEGIN
  IF jsonb_typeof(doc -> key) IN ('string', 'number', 'boolean') THEN
    s := (doc -> key) #>> '{}';
    IF octet_length(s) <= 255 THEN
      RETURN s;
    END IF;
  END IF;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Marking needs a superuser; without it the service never reads the list indexes
-- (workspace/sortindex.go checks the mark), and such lists probe and walk as before.
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_custom_value_t(jsonb, text) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: ws_custom_value_t left unmarked; lists with eq on select and member fields walk their order';
  END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
-- The indexes the service built on it go with it.
DROP FUNCTION ws_custom_value_t(jsonb, text) CASCADE;
