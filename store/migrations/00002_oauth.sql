-- +goose Up
-- The OAuth 2.0 provider's tables (decisions.md 7). Like agent_keys they hold credentials:
-- the request role (workspaced_app) is granted nothing on them, so no REST or MCP call can
-- read them even by mistake. Every secret is stored as a SHA-256 hash (store.HashSecret),
-- never in plain.

-- Clients: admin-registered apps (svcapp_, verified, workspace-owned, optionally
-- confidential) and dynamically registered ones (RFC 7591: svcdyn_, unverified, public).
CREATE TABLE oauth_clients (
  id text PRIMARY KEY,
  workspace_id uuid REFERENCES workspaces (id), -- the owning workspace of an admin app
  name text NOT NULL,
  logo_uri text,
  client_uri text,
  redirect_uris text[] NOT NULL,
  scope text[],                                  -- NULL: the whole catalogue may be requested
  secret_hash bytea,                             -- NULL: a public client
  verified boolean NOT NULL DEFAULT false,
  dynamic boolean NOT NULL DEFAULT false,
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,                      -- first and later token issuance
  disabled_at timestamptz,
  CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10)
);
CREATE INDEX oauth_clients_workspace ON oauth_clients (workspace_id) WHERE workspace_id IS NOT NULL;
CREATE INDEX oauth_clients_unused ON oauth_clients (created_at) WHERE dynamic AND last_used_at IS NULL;

-- Browser sessions of the sign-in pages: the cookie holds the token, we keep its hash.
CREATE TABLE oauth_sessions (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  method text NOT NULL,                          -- password or upstream
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX oauth_sessions_expiry ON oauth_sessions (expires_at);

-- What a member has approved for a client; a request within it is not asked again.
CREATE TABLE oauth_consents (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, client_id)
);

-- A family is one authorization: the tokens of one code exchange and every rotation after.
-- Revoking it (revoked_at) kills every token in it at once.
CREATE TABLE oauth_families (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  scopes text[] NOT NULL,
  resource text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX oauth_families_user ON oauth_families (user_id, client_id) WHERE revoked_at IS NULL;
CREATE INDEX oauth_families_client ON oauth_families (client_id) WHERE revoked_at IS NULL;

-- Authorization codes (RFC 6749 4.1.2): 60 s, single use, bound to everything below.
-- family_id records what the exchange issued, so a replay can revoke it (RFC 6749 4.1.2).
CREATE TABLE oauth_codes (
  code_hash bytea PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  redirect_uri text NOT NULL,
  redirect_uri_given boolean NOT NULL,
  code_challenge text NOT NULL,
  scopes text[] NOT NULL,
  resource text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  family_id uuid REFERENCES oauth_families (id) ON DELETE CASCADE
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);

-- Refresh tokens rotate (RFC 9700 4.14.2): generation counts rotations within the family,
-- retired_at marks a token that was rotated, revoked_at one that was killed.
CREATE TABLE oauth_refresh_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  family_id uuid NOT NULL REFERENCES oauth_families (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  generation integer NOT NULL,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  retired_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX oauth_refresh_family ON oauth_refresh_tokens (family_id, generation);

-- Access tokens (opaque, 1 h). refresh_id is the refresh token issued with it: the pair.
CREATE TABLE oauth_access_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  family_id uuid NOT NULL REFERENCES oauth_families (id) ON DELETE CASCADE,
  refresh_id uuid REFERENCES oauth_refresh_tokens (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX oauth_access_family ON oauth_access_tokens (family_id);
CREATE INDEX oauth_access_expiry ON oauth_access_tokens (expires_at);

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
