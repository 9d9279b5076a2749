-- +goose Up
-- Two costs of a list by a custom field (workspace/customquery.go) that the statement
-- itself does not need.
--
-- The field definitions: a list reads its workspace's definitions of the resource to
-- check and build its statement, which was a round trip of its own before the statement's.
-- A process now keeps the definitions it read (workspace/fieldcache.go) with the
-- workspace's version of them, custom_field_versions.version: a count that every insert,
-- update or delete of one of the workspace's custom_fields rows moves up, in the writing
-- transaction (custom_fields_version, a row trigger: the row lock makes concurrent
-- changes count one after the other, and a change rolled back counts nothing). A list
-- built from kept definitions runs, in its statement's round trip and before it, a check
-- of the version they were read at, which raises SQLSTATE WS001 when the workspace's
-- version is another (ws_custom_fields_changed): PostgreSQL then skips the rest of the
-- round trip and
-- the process reads the definitions again (store.ErrFieldsChanged). So a change committed
-- through any process is seen by the next list on every process, and an unchanged
-- workspace costs no read of its definitions. A workspace whose definitions were never
-- written has no row: version 0.
--
-- ws_custom_archived (00064_custom_archived_keys.sql), which every read of a record's
-- custom_fields takes once per statement (columnExpr, workspace/records.go), is a SQL
-- function that PostgreSQL cannot inline (a scalar function whose body reads a table):
-- its body was parsed and planned at every execution of the statement calling it, 0.3 to
-- 0.6 ms of the 2 ms a custom list costs the database (docs/performance.md, "Custom
-- fields"). Its query is now ws_custom_archived_keys, a set-returning SQL function, which
-- PostgreSQL inlines into the statement reading it (when its arguments hold no
-- subquery), so it is planned with the statement and its plan kept with the statement's;
-- ws_custom_archived, for the functions and triggers calling it, returns its one row.
CREATE TABLE custom_field_versions (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces (id),
  version bigint NOT NULL
);
ALTER TABLE custom_field_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE custom_field_versions FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_isolation ON custom_field_versions
  USING (workspace_id = (SELECT app_workspace_id()))
  WITH CHECK (workspace_id = (SELECT app_workspace_id()));
GRANT SELECT ON custom_field_versions TO workspaced_app;

-- +goose StatementBegin
CREATE FUNCTION ws_custom_fields_bump() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  INSERT INTO custom_field_versions AS c (workspace_id, version)
  VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.workspace_id ELSE NEW.workspace_id END, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET version = c.version + 1;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER custom_fields_version AFTER INSERT OR UPDATE OR DELETE ON custom_fields
  FOR EACH ROW EXECUTE FUNCTION ws_custom_fields_bump();

-- ws_custom_fields_version is the actor's workspace's version of its definitions: a
-- set-returning SQL function of one row, which PostgreSQL inlines into the statement
-- reading it (a PL/pgSQL function, or a scalar SQL one, would cost more than the rest of
-- the check: 0.27 ms a call). store.FieldsVersion reads it.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_fields_version() RETURNS SETOF bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce(max(c.version), 0) FROM custom_field_versions c WHERE c.workspace_id = app_workspace_id()
$$;
-- +goose StatementEnd

-- ws_custom_fields_changed raises WS001: the check of store.QueryAtFields calls it when
-- the version is not the one a statement was built at.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_fields_changed() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'the custom field definitions changed' USING ERRCODE = 'WS001';
END
$$;
-- +goose StatementEnd

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
DROP FUNCTION ws_custom_fields_changed();
DROP FUNCTION ws_custom_fields_version();
DROP TRIGGER custom_fields_version ON custom_fields;
DROP FUNCTION ws_custom_fields_bump();
DROP TABLE custom_field_versions;
