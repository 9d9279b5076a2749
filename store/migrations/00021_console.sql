-- +goose Up
-- The console (docs/console.md): invitation and password-reset links, and each member's
-- last sign-in. Both tables sit outside row-level security like the credential tables of
-- 00002_oauth.sql: only the admin operations (admin/) read them, always naming the
-- workspace, and no request role may.

-- A link a member follows to set a password: an invitation (7 days) or a reset (1 hour).
-- The link carries a secret; only its SHA-256 is kept. A link is used at most once.
CREATE TABLE member_links (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('invite', 'reset')),
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX member_links_user ON member_links (user_id);
CREATE INDEX member_links_expiry ON member_links (expires_at);
REVOKE ALL ON member_links FROM PUBLIC;

-- Sessions are purged when they expire, so the last sign-in is kept apart, stamped by the
-- session's own insert: every way of signing in (password, upstream, accepted link) starts
-- a session, and none has to remember to record it.
CREATE TABLE member_sign_ins (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  last_at timestamptz NOT NULL
);
REVOKE ALL ON member_sign_ins FROM PUBLIC;

-- +goose StatementBegin
CREATE FUNCTION member_signed_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO member_sign_ins (user_id, last_at) VALUES (NEW.user_id, NEW.created_at)
    ON CONFLICT (user_id) DO UPDATE SET last_at = greatest(member_sign_ins.last_at, excluded.last_at);
  RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER oauth_sessions_sign_in AFTER INSERT ON oauth_sessions
  FOR EACH ROW EXECUTE FUNCTION member_signed_in();

-- Every activity row records what made the write, beside who (actor_id): the credential
-- ('agent_key:<key id>' or 'oauth:<access token id>'), the OAuth client ({"id", "name"})
-- and the channel (rest, mcp). store/actor.go sets them as transaction-local settings with
-- the actor; a BEFORE INSERT trigger on activity copies them, so ws_record_activity (which
-- other migrations extend) stays as it is.
ALTER TABLE activity ADD COLUMN credential text, ADD COLUMN client jsonb, ADD COLUMN via text;

-- +goose StatementBegin
CREATE FUNCTION ws_activity_source() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.credential := coalesce(NEW.credential, nullif(current_setting('app.credential', true), ''));
  NEW.client := coalesce(NEW.client, nullif(current_setting('app.client', true), '')::jsonb);
  NEW.via := coalesce(NEW.via, nullif(current_setting('app.via', true), ''));
  RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER activity_source BEFORE INSERT ON activity FOR EACH ROW EXECUTE FUNCTION ws_activity_source();
CREATE INDEX activity_credential ON activity (workspace_id, credential, created_at DESC) WHERE credential IS NOT NULL;
CREATE INDEX activity_client ON activity (workspace_id, (client ->> 'id'), created_at DESC) WHERE client IS NOT NULL;

-- Apps a workspace's admins blocked (docs/console.md): the block revokes the families its
-- members gave the client, and the authorization endpoint refuses new ones.
CREATE TABLE oauth_client_blocks (
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  blocked_by uuid REFERENCES users (id) ON DELETE SET NULL,
  blocked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, client_id)
);
REVOKE ALL ON oauth_client_blocks FROM PUBLIC;

-- "Admin-registered apps only": members may authorize only the workspace's own apps.
CREATE TABLE workspace_oauth_settings (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces (id),
  admin_apps_only boolean NOT NULL DEFAULT false
);
REVOKE ALL ON workspace_oauth_settings FROM PUBLIC;
CREATE INDEX oauth_families_workspace_client ON oauth_families (workspace_id, client_id);

-- +goose Down
DROP INDEX oauth_families_workspace_client;
DROP TABLE workspace_oauth_settings;
DROP TABLE oauth_client_blocks;
DROP INDEX activity_client;
DROP INDEX activity_credential;
DROP TRIGGER activity_source ON activity;
DROP FUNCTION ws_activity_source();
ALTER TABLE activity DROP COLUMN credential, DROP COLUMN client, DROP COLUMN via;
DROP TRIGGER oauth_sessions_sign_in ON oauth_sessions;
DROP FUNCTION member_signed_in();
DROP TABLE member_sign_ins;
DROP TABLE member_links;
