-- +goose Up
-- Search indexes led by workspace_id (docs/performance.md). The GIN indexes of
-- 00019 hold every workspace's words: a q found its matches in the whole table and
-- dropped the other workspaces' afterwards (793 buffers for 3 matches when the other 49
-- workspaces of a 1,000,000-row table held 9,000), and before a table's first ANALYZE the
-- planner often read the workspace through its keyset index instead, rechecking each row.
-- With workspace_id as the first column of each search and trigram index, one index
-- answers both conditions (the row-level policy's workspace_id = ... and the match), so
-- q reads only the workspace's matches, before ANALYZE and after. btree_gin gives GIN
-- its uuid operator class; it ships with PostgreSQL, as unaccent and pg_trgm do, and is a
-- trusted extension, so the schema's owner may create it without being a superuser (the
-- private PostgreSQL of the zero-config start runs migrations as its superuser anyway).
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- Each index keeps its name and expression; only workspace_id is put in front.
-- +goose StatementBegin
DO $$
DECLARE ix record;
BEGIN
  FOR ix IN SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
      AND (indexname LIKE '%\_search' OR indexname LIKE '%\_trgm') AND indexdef LIKE '%USING gin (%'
      AND indexdef NOT LIKE '%USING gin (workspace_id,%' LOOP
    EXECUTE format('DROP INDEX %I', ix.indexname);
    EXECUTE replace(ix.indexdef, 'USING gin (', 'USING gin (workspace_id, ');
  END LOOP;
END $$;
-- +goose StatementEnd

-- ws_unaccent and ws_search_doc as PL/pgSQL, same expressions, so the same values and the
-- indexes built on them stay valid. As SQL functions they were never inlined (unaccent
-- and array_to_string are only stable, the functions immutable), so each call ran the
-- SQL function executor: 45 microseconds a search document, against 15 in PL/pgSQL,
-- whose single RETURN takes its fast path. A q re-reads the document of every candidate
-- row (recheck and rank): this was most of a search's time (docs/performance.md).
-- CREATE OR REPLACE resets LEAKPROOF, so the marks of 00019 are set again, by a
-- superuser only, as there. The comparisons of numeric (amounts: deals.value,
-- income.amount ...) are marked too: PostgreSQL marks those of integers, dates, times,
-- text and uuid but not numeric's, which compare without raising an error as theirs do,
-- so under RLS value[lt]=5 could not be a condition of the (workspace_id, value, id)
-- index and sort=value&value[lt]=5 read the whole workspace (2,837 buffers at 100,000
-- deals, TestFindPlansAtScale).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_unaccent(text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ BEGIN RETURN public.unaccent('public.unaccent'::regdictionary, $1); END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_search_doc(VARIADIC text[]) RETURNS tsvector
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$ BEGIN RETURN to_tsvector('simple'::regconfig, public.ws_unaccent(array_to_string($1, ' '))); END $$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_unaccent(text) LEAKPROOF;
    ALTER FUNCTION ws_search_doc(VARIADIC text[]) LEAKPROOF;
    ALTER FUNCTION numeric_eq(numeric, numeric) LEAKPROOF;
    ALTER FUNCTION numeric_ne(numeric, numeric) LEAKPROOF;
    ALTER FUNCTION numeric_lt(numeric, numeric) LEAKPROOF;
    ALTER FUNCTION numeric_le(numeric, numeric) LEAKPROOF;
    ALTER FUNCTION numeric_gt(numeric, numeric) LEAKPROOF;
    ALTER FUNCTION numeric_ge(numeric, numeric) LEAKPROOF;
  END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION numeric_eq(numeric, numeric) NOT LEAKPROOF;
    ALTER FUNCTION numeric_ne(numeric, numeric) NOT LEAKPROOF;
    ALTER FUNCTION numeric_lt(numeric, numeric) NOT LEAKPROOF;
    ALTER FUNCTION numeric_le(numeric, numeric) NOT LEAKPROOF;
    ALTER FUNCTION numeric_gt(numeric, numeric) NOT LEAKPROOF;
    ALTER FUNCTION numeric_ge(numeric, numeric) NOT LEAKPROOF;
  END IF;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $$
DECLARE ix record;
BEGIN
  FOR ix IN SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
      AND (indexname LIKE '%\_search' OR indexname LIKE '%\_trgm') AND indexdef LIKE '%USING gin (workspace_id, %' LOOP
    EXECUTE format('DROP INDEX %I', ix.indexname);
    EXECUTE replace(ix.indexdef, 'USING gin (workspace_id, ', 'USING gin (');
  END LOOP;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_search_doc(VARIADIC text[]) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_tsvector('simple'::regconfig, public.ws_unaccent(array_to_string($1, ' '))) $$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_unaccent(text) LEAKPROOF;
    ALTER FUNCTION ws_search_doc(VARIADIC text[]) LEAKPROOF;
  END IF;
END $$;
-- +goose StatementEnd
DROP EXTENSION IF EXISTS btree_gin;
