-- +goose Up
-- A host or an email's domain is also one word of the search document, whole and with
-- each of its shorter suffixes ("mail.acme.example", "acme.example"), so a q of a host
-- (docs/rest.md, "Finding records") looks up one word: as a phrase of its labels
-- ("acme" <-> "example", 00052) it read the posting list of each, and "example", in
-- every address of a test seed, made q=acme.example read 193 buffers of the people's
-- search index at 1,000,000 rows where a name's word reads under 60 (workspace/params.go,
-- addressQuery, writes the q). The text search parser keeps such a word whole (a host).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_address_words(s text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(w, ' '), '') FROM (
    SELECT regexp_split_to_table(m[1], '[._%+-]+') FROM regexp_matches(s, '([[:alnum:]._%+-]+)@[[:alnum:]-]+(\.[[:alnum:]-]+)+', 'g') m
    UNION ALL
    SELECT regexp_split_to_table(public.ws_domain(m[1]), '[.-]+')
      FROM regexp_matches(s, '((https?://)?([[:alnum:]-]+\.)+[[:alpha:]]{2,})', 'gi') m
    UNION ALL
    SELECT array_to_string(h.labels[i:], '.')
      FROM (SELECT string_to_array(public.ws_domain(m[1]), '.')
              FROM regexp_matches(s, '((https?://)?([[:alnum:]-]+\.)+[[:alpha:]]{2,})', 'gi') m) h(labels),
           generate_series(1, cardinality(h.labels) - 1) i
  ) x(w) WHERE w <> ''
$$;
-- +goose StatementEnd

-- Every stored document is computed again, as in 00052: the column re-added with its
-- expression, its index rebuilt, and the custom values' search index rebuilt.
-- +goose StatementBegin
DO $$
DECLARE ix record;
BEGIN
  FOR ix IN SELECT a.attrelid::regclass::text AS tbl, pg_get_expr(d.adbin, d.adrelid) AS doc
      FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attname = 'search_doc' AND NOT a.attisdropped
      ORDER BY 1 LOOP
    EXECUTE format('DROP INDEX %I', ix.tbl || '_search');
    EXECUTE format('ALTER TABLE %I DROP COLUMN search_doc', ix.tbl);
    EXECUTE format('ALTER TABLE %I ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (%s) STORED', ix.tbl, ix.doc);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit = 64)', ix.tbl || '_search', ix.tbl);
  END LOOP;
END $$;
-- +goose StatementEnd
REINDEX INDEX custom_values_search;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_address_words(s text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(w, ' '), '') FROM (
    SELECT regexp_split_to_table(m[1], '[._%+-]+') FROM regexp_matches(s, '([[:alnum:]._%+-]+)@[[:alnum:]-]+(\.[[:alnum:]-]+)+', 'g') m
    UNION ALL
    SELECT regexp_split_to_table(public.ws_domain(m[1]), '[.-]+')
      FROM regexp_matches(s, '((https?://)?([[:alnum:]-]+\.)+[[:alpha:]]{2,})', 'gi') m
  ) x(w) WHERE w <> ''
$$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $$
DECLARE ix record;
BEGIN
  FOR ix IN SELECT a.attrelid::regclass::text AS tbl, pg_get_expr(d.adbin, d.adrelid) AS doc
      FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attname = 'search_doc' AND NOT a.attisdropped
      ORDER BY 1 LOOP
    EXECUTE format('DROP INDEX %I', ix.tbl || '_search');
    EXECUTE format('ALTER TABLE %I DROP COLUMN search_doc', ix.tbl);
    EXECUTE format('ALTER TABLE %I ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (%s) STORED', ix.tbl, ix.doc);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit = 64)', ix.tbl || '_search', ix.tbl);
  END LOOP;
END $$;
-- +goose StatementEnd
REINDEX INDEX custom_values_search;
