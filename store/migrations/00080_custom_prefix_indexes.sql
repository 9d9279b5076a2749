-- +goose Up
-- A list in its own order (newest first) with prefix on a url or phone field whose
-- probe of custom_values found more than fewMatches matches walked the list's order,
-- reading every record up to the page's last match: some 540 deals for 51 shown in the
-- plan test's 100,000 (docs/performance.md, "Custom fields"). A prefix index of the record
-- table, (workspace_id, created_at DESC, id DESC, ws_custom_value_head(custom_fields,
-- 'key') COLLATE "C") WHERE custom_fields ? 'key', is in the list's order and carries the
-- head of each record's value: the walk checks the prefix's range on the index's entries
-- and reads only the records whose head is in it. The service builds it CONCURRENTLY in
-- the background, as the list indexes (00076_custom_list_indexes.sql,
-- workspace/sortindex.go).
--
-- ws_custom_value_head is the first 64 characters of what ws_custom_value_t reads (the
-- text of key's entry when it is a string, number or boolean), whatever its length: a
-- value starts with a prefix of at most 64 characters exactly when its head does, so such
-- a prefix is decided on the index's entry (a longer one walks as before). At most 256
-- bytes: short enough for any btree entry whatever another workspace stores under the key
-- (the index is shared by every workspace whose records carry it, of whatever type). It
-- never raises, and is marked LEAKPROOF for the reason ws_custom_value_t is.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_value_head(doc jsonb, key text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF jsonb_typeof(doc -> key) IN ('string', 'number', 'boolean') THEN
    RETURN left((doc -> key) #>> '{}', 64);
  END IF;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Marking needs a superuser; without it the service never reads the prefix indexes
-- (workspace/sortindex.go checks the mark), and such lists walk their order as before.
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_custom_value_head(jsonb, text) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: ws_custom_value_head left unmarked; lists with prefix on url and phone fields walk their order';
  END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
-- The indexes the service built on it go with it.
DROP FUNCTION ws_custom_value_head(jsonb, text) CASCADE;
