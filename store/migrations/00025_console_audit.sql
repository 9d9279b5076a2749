-- +goose Up
-- The console's and the admin CLI's changes in the audit log, and requests per credential
-- per day (docs/console.md, "Audit log" and "Credits and usage").

-- Administration records (store/audit.go) about what members may not see (agent keys,
-- invitation and reset links, apps blocked, the workspace's app setting, credit grants,
-- revoked connections) are for admins only. Their other records follow the usual rules
-- (ws_entity_visible): a member's changes are visible as the users resource is, an
-- agent's as the agents feature allows.
CREATE POLICY ws_admin_records ON activity AS RESTRICTIVE FOR SELECT
  USING (entity_type NOT IN ('agent_keys', 'member_links', 'oauth_clients', 'workspace_oauth_settings', 'credits',
      'oauth_connections')
    OR (SELECT app_is_admin()));

-- Authenticated requests (reads and writes, REST and MCP) per credential per UTC day,
-- counted in each process's memory and added here every few seconds and at shutdown
-- (workspace/usage.go). Outside row-level security like the credential tables: only the
-- admin operations read it, always naming the workspace.
CREATE TABLE credential_usage (
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  day date NOT NULL,
  credential text NOT NULL,
  client_name text NOT NULL DEFAULT '',
  requests bigint NOT NULL CHECK (requests >= 0),
  PRIMARY KEY (workspace_id, day, credential)
);
REVOKE ALL ON credential_usage FROM PUBLIC;

-- +goose Down
DROP TABLE credential_usage;
DROP POLICY ws_admin_records ON activity;
