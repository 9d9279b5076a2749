-- +goose Up
-- Search indexes led by workspace_id (issue 19, docs/performance.md). The GIN indexes of
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

-- +goose Down
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
DROP EXTENSION IF EXISTS btree_gin;
