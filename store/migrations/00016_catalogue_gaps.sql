-- +goose Up
-- Two rules the catalogue states that the database did not hold, found by
-- restapi's TestDatabaseRulesFollowCatalogue:
-- a workspace update is a write, so it leaves its activity row like every other write
-- (decisions.md 5); join records are created and detached, never updated, so the request
-- role loses the UPDATE that ws_protect gave every writable table.
CREATE TRIGGER activity AFTER UPDATE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION ws_record_activity('workspace', '');
REVOKE UPDATE ON deal_people, deal_labels, space_members FROM workspaced_app;

-- +goose Down
GRANT UPDATE ON deal_people, deal_labels, space_members TO workspaced_app;
DROP TRIGGER activity ON workspaces;
