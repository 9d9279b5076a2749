-- +goose Up
-- q finds a record by the parts of the addresses it holds (docs/rest.md, "Finding
-- records"): the words of an email's local part and the labels of its domain, and the
-- labels of a host in a URL or a bare host name, so that "acme" and "acme.example" find the
-- person whose email is ada@acme.example. The text search parser keeps an email or a host
-- as one token ('ada@acme.example', 'www.acme.example'), which a word of q never matched.
-- ws_address_words lists those parts; ws_search_doc adds them to every search document.
-- Companies' documents now also hold website (workspace/find.go lists it).

-- +goose StatementBegin
CREATE FUNCTION ws_address_words(s text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(w, ' '), '') FROM (
    SELECT regexp_split_to_table(m[1], '[._%+-]+') FROM regexp_matches(s, '([[:alnum:]._%+-]+)@[[:alnum:]-]+(\.[[:alnum:]-]+)+', 'g') m
    UNION ALL
    SELECT regexp_split_to_table(public.ws_domain(m[1]), '[.-]+')
      FROM regexp_matches(s, '((https?://)?([[:alnum:]-]+\.)+[[:alpha:]]{2,})', 'gi') m
  ) x(w) WHERE w <> ''
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_search_doc(VARIADIC text[]) RETURNS tsvector
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE s text := array_to_string($1, ' ');
BEGIN
  IF s ~ '[@.]' THEN
    s := s || ' ' || public.ws_address_words(s);
  END IF;
  RETURN to_tsvector('simple', public.ws_unaccent(s));
END $$;
-- +goose StatementEnd
-- CREATE OR REPLACE resets LEAKPROOF: marked again by a superuser only, as in 00024
-- (the address parts raise no error that depends on a value either).
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_search_doc(VARIADIC text[]) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: ws_search_doc left unmarked; q= will not use the search indexes';
  END IF;
END $$;
-- +goose StatementEnd

-- Every stored document is computed again (as 00029 made them: the column re-added with
-- its expression, its index rebuilt), and the custom values' search index rebuilt.
-- +goose StatementBegin
DO $$
DECLARE ix record; expr text;
BEGIN
  FOR ix IN SELECT a.attrelid::regclass::text AS tbl, pg_get_expr(d.adbin, d.adrelid) AS doc
      FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attname = 'search_doc' AND NOT a.attisdropped
      ORDER BY 1 LOOP
    expr := ix.doc;
    IF ix.tbl = 'companies' THEN
      expr := 'ws_search_doc(VARIADIC ARRAY[name, industry, notes, website])';
    END IF;
    EXECUTE format('DROP INDEX %I', ix.tbl || '_search');
    EXECUTE format('ALTER TABLE %I DROP COLUMN search_doc', ix.tbl);
    EXECUTE format('ALTER TABLE %I ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (%s) STORED', ix.tbl, expr);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit = 64)', ix.tbl || '_search', ix.tbl);
  END LOOP;
END $$;
-- +goose StatementEnd
REINDEX INDEX custom_values_search;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_search_doc(VARIADIC text[]) RETURNS tsvector
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN RETURN to_tsvector('simple'::regconfig, public.ws_unaccent(array_to_string($1, ' '))); END $$;
-- +goose StatementEnd
-- CREATE OR REPLACE resets LEAKPROOF: marked again by a superuser only, as in 00024
-- (the address parts raise no error that depends on a value either).
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_search_doc(VARIADIC text[]) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: ws_search_doc left unmarked; q= will not use the search indexes';
  END IF;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $$
DECLARE ix record; expr text;
BEGIN
  FOR ix IN SELECT a.attrelid::regclass::text AS tbl, pg_get_expr(d.adbin, d.adrelid) AS doc
      FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attname = 'search_doc' AND NOT a.attisdropped
      ORDER BY 1 LOOP
    expr := ix.doc;
    IF ix.tbl = 'companies' THEN
      expr := 'ws_search_doc(VARIADIC ARRAY[name, industry, notes])';
    END IF;
    EXECUTE format('DROP INDEX %I', ix.tbl || '_search');
    EXECUTE format('ALTER TABLE %I DROP COLUMN search_doc', ix.tbl);
    EXECUTE format('ALTER TABLE %I ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (%s) STORED', ix.tbl, expr);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit = 64)', ix.tbl || '_search', ix.tbl);
  END LOOP;
END $$;
-- +goose StatementEnd
REINDEX INDEX custom_values_search;
DROP FUNCTION ws_address_words(text);
