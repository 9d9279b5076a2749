-- +goose Up
-- An import's chunks (imports/job.go): each chunk of rows commits its row here in the
-- transaction that writes the chunk's records. Chunks of one import may commit out of
-- order (two are written at once), so a resume starts reading the stored file at the byte
-- offset after the longest run of committed chunks from the file's start (end_offset) and
-- skips the committed chunks beyond it: it never parses the file from its start again.
-- keys and key_rows are the upsert keys the chunk's rows were the first of the file to
-- carry, and their rows, so a resume still refuses a later row repeating one of them.
CREATE TABLE import_chunks (
  import_id uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
  first_row bigint NOT NULL, -- 1 is the first row after the header
  rows integer NOT NULL,
  end_offset bigint, -- NULL: not known, the rows are read from the file's start
  workspace_id uuid NOT NULL DEFAULT app_workspace_id(),
  keys text[] NOT NULL DEFAULT '{}',
  key_rows bigint[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (import_id, first_row)
);
-- An import under way keeps its progress: the rows it did are one chunk whose end is not
-- known.
INSERT INTO import_chunks (import_id, first_row, rows, workspace_id)
SELECT id, 1, row_offset, workspace_id FROM imports WHERE status IN ('queued', 'running') AND row_offset > 0;
ALTER TABLE import_chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE import_chunks FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_own ON import_chunks
  USING (import_id IN (SELECT id FROM imports))
  WITH CHECK (import_id IN (SELECT id FROM imports));
GRANT SELECT, INSERT ON import_chunks TO workspaced_app;

-- A created record's activity names its fields and its custom values one key each
-- (custom_fields.<key>), as ws_custom_changes(diff, NULL) does; the same, written inline
-- in the statement trigger. ws_custom_changes is a SQL function with a subquery, which
-- PostgreSQL never inlines: called once per row it started an executor each time, and
-- cost 2.5 to 3 times the inline expression (5,000 people's changes: 430 to 590 ms
-- against 165 to 180 ms, docs/performance.md "Imports").
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_activity_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  actor uuid := app_user_id();
BEGIN
  IF actor IS NULL THEN
    RETURN NULL; -- seeding and the admin CLI act outside a request
  END IF;
  INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes, feature)
  SELECT app_workspace_id(), TG_ARGV[0], (r ->> 'id')::uuid, 'created', actor,
         CASE WHEN d ? 'custom_fields'
              THEN (d - 'custom_fields') || coalesce((SELECT jsonb_object_agg('custom_fields.' || e.key, e.value)
                FROM jsonb_each(CASE WHEN jsonb_typeof(d -> 'custom_fields') = 'object' THEN d -> 'custom_fields' ELSE '{}' END) e), '{}')
              ELSE d END,
         nullif(TG_ARGV[1], '')
    FROM (SELECT r, jsonb_strip_nulls(r - ARRAY['id', 'workspace_id', 'created_by', 'created_at', 'updated_at']) AS d
            FROM (SELECT to_jsonb(n) - 'search_doc' AS r FROM new_rows n) s0) s;
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_activity_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  actor uuid := app_user_id();
BEGIN
  IF actor IS NULL THEN
    RETURN NULL; -- seeding and the admin CLI act outside a request
  END IF;
  INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes, feature)
  SELECT app_workspace_id(), TG_ARGV[0], (r ->> 'id')::uuid, 'created', actor,
         ws_custom_changes(jsonb_strip_nulls(r - ARRAY['id', 'workspace_id', 'created_by', 'created_at', 'updated_at']), NULL::jsonb),
         nullif(TG_ARGV[1], '')
    FROM (SELECT to_jsonb(n) - 'search_doc' AS r FROM new_rows n) s;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP TABLE import_chunks;
