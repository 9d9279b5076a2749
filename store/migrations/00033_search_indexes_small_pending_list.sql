-- +goose Up
-- A GIN index with fastupdate (PostgreSQL's default) keeps new entries in a pending list
-- until a vacuum merges them or the list reaches gin_pending_list_limit (4 MB), and every
-- search reads that list whole. Right after a bulk import a q= read the new rows instead of
-- its matches: with 10,000 rows pending, q=acme read 148 to 771 buffers, and after ANALYZE
-- the planner, pricing the pending pages, chose a Seq Scan; merged, it reads 8 to 17
-- (workspace.TestListPlansWalkTheKeysetIndex, docs/performance.md). The search and trigram
-- indexes of the catalogue's text (migrations 00019, 00024, 00029) keep a list of at most
-- 64 kB, merged by the write that fills it: q=acme then reads 15 to 24 buffers. Turning
-- fastupdate off instead (each entry merged at its write) read 8 to 17 and cost labels
-- creates about 3.5% of their throughput; 64 kB cost no difference the runs could show.
-- What is pending now is merged here.
-- +goose StatementBegin
DO $$
DECLARE
  ix regclass;
BEGIN
  FOR ix IN
    SELECT c.oid::regclass FROM pg_class c JOIN pg_am a ON a.oid = c.relam
     WHERE c.relkind = 'i' AND a.amname = 'gin' AND c.relnamespace = 'public'::regnamespace
       AND (c.relname LIKE '%\_search' OR c.relname LIKE '%\_trgm')
  LOOP
    EXECUTE format('ALTER INDEX %s SET (gin_pending_list_limit = 64)', ix);
    PERFORM gin_clean_pending_list(ix);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
  ix regclass;
BEGIN
  FOR ix IN
    SELECT c.oid::regclass FROM pg_class c JOIN pg_am a ON a.oid = c.relam
     WHERE c.relkind = 'i' AND a.amname = 'gin' AND c.relnamespace = 'public'::regnamespace
       AND (c.relname LIKE '%\_search' OR c.relname LIKE '%\_trgm')
  LOOP
    EXECUTE format('ALTER INDEX %s RESET (gin_pending_list_limit)', ix);
  END LOOP;
END
$$;
-- +goose StatementEnd
