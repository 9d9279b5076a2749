-- +goose Up
-- Imports (imports/, docs/rest.md "Imports"): a file's rows written as batches by a River
-- job. The upload is kept in import_parts, pieces of at most 1 MiB in order, so neither the
-- request nor the job holds the file whole. The job commits each chunk of rows with the
-- import's progress (row_offset and the counts) and the chunk's failed rows
-- (import_errors) in one transaction, so a restart resumes at row_offset and no row is
-- written twice. An import belongs to the member who started it: only that member reads it.
CREATE TABLE imports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL DEFAULT app_workspace_id() REFERENCES workspaces (id),
  user_id uuid NOT NULL DEFAULT app_user_id(),
  resource text NOT NULL,
  operation text NOT NULL,
  match text,
  mapping jsonb NOT NULL,
  format text NOT NULL,
  delimiter text NOT NULL DEFAULT ',',
  date_format text NOT NULL DEFAULT '',
  size bigint NOT NULL DEFAULT 0,
  header text[],
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  cancel_requested boolean NOT NULL DEFAULT false,
  row_offset bigint NOT NULL DEFAULT 0,
  rows_created bigint NOT NULL DEFAULT 0,
  rows_updated bigint NOT NULL DEFAULT 0,
  rows_failed bigint NOT NULL DEFAULT 0,
  failure text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
ALTER TABLE imports ENABLE ROW LEVEL SECURITY;
ALTER TABLE imports FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_own ON imports
  USING (workspace_id = (SELECT app_workspace_id()) AND user_id = (SELECT app_user_id()))
  WITH CHECK (workspace_id = (SELECT app_workspace_id()) AND user_id = (SELECT app_user_id()));
GRANT SELECT, INSERT, UPDATE ON imports TO workspaced_app;
CREATE INDEX imports_workspace ON imports (workspace_id, created_at);

CREATE TABLE import_parts (
  import_id uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  workspace_id uuid NOT NULL DEFAULT app_workspace_id(),
  data bytea NOT NULL,
  PRIMARY KEY (import_id, seq)
);
ALTER TABLE import_parts ENABLE ROW LEVEL SECURITY;
ALTER TABLE import_parts FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_own ON import_parts
  USING (import_id IN (SELECT id FROM imports))
  WITH CHECK (import_id IN (SELECT id FROM imports));
GRANT SELECT, INSERT ON import_parts TO workspaced_app;

CREATE TABLE import_errors (
  import_id uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
  row_number bigint NOT NULL,
  workspace_id uuid NOT NULL DEFAULT app_workspace_id(),
  reason text NOT NULL,
  cells text[] NOT NULL,
  PRIMARY KEY (import_id, row_number)
);
ALTER TABLE import_errors ENABLE ROW LEVEL SECURITY;
ALTER TABLE import_errors FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_own ON import_errors
  USING (import_id IN (SELECT id FROM imports))
  WITH CHECK (import_id IN (SELECT id FROM imports));
GRANT SELECT, INSERT ON import_errors TO workspaced_app;

-- +goose Down
DROP TABLE import_errors;
DROP TABLE import_parts;
DROP TABLE imports;
