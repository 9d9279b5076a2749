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

-- +goose Down
DROP TABLE import_chunks;
