-- +goose Up
-- ws_custom_archived (00064_custom_archived_keys.sql), which every read of a record's
-- custom_fields takes once per statement (columnExpr, workspace/records.go), is a SQL
-- function that PostgreSQL cannot inline (a scalar function whose body reads a table):
-- its body was parsed and planned at every execution of the statement calling it, 0.3 to
-- 0.6 ms of the 2 ms a custom list costs the database (docs/performance.md, "Custom
-- fields"). Its query is now ws_custom_archived_keys, a set-returning SQL function, which
-- PostgreSQL inlines into the statement reading it (when its arguments hold no
-- subquery), so it is planned with the statement and its plan kept with the statement's;
-- ws_custom_archived, for the functions and triggers calling it, returns its one row.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_archived_keys(ws uuid, res text) RETURNS SETOF text[] LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(f.key), '{}') FROM custom_fields f WHERE f.workspace_id = ws AND f.resource = res AND f.archived
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_archived(ws uuid, res text) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT k FROM ws_custom_archived_keys(ws, res) k
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_archived(ws uuid, res text) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(f.key), '{}') FROM custom_fields f WHERE f.workspace_id = ws AND f.resource = res AND f.archived
$$;
-- +goose StatementEnd
DROP FUNCTION ws_custom_archived_keys(uuid, text);
