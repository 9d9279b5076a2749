-- +goose Up
-- The token endpoint's grants as functions (docs/oauth.md).
--
-- A grant used to be eleven statements, ten of them inside a transaction holding one of the
-- pool's connections while the Go side waited for each answer. Each grant is now one
-- statement: the Go side checks what the request alone decides (well-formed secrets,
-- scope and resource syntax), mints the new secrets, and calls one function that locks,
-- checks, rotates and issues in one round trip. The function's answer (outcome) names the
-- rule that decided the grant; oauth/token.go turns it into the RFC 6749 error.
--
-- Every statement below finds its rows by a unique key (token_hash, code_hash, id) or by
-- family_id through a family index, never by a column without an index, so plans do not
-- depend on the tables' statistics: oauth's TestGrantsUseIndexesWithStaleStatistics
-- analyses the tables nearly empty, grows them, and counts sequential scans.

-- oauth_revoke_family kills a family and every token in it (RFC 9700 4.14.2, RFC 7009).
-- +goose StatementBegin
CREATE FUNCTION oauth_revoke_family(family uuid, at timestamptz) RETURNS void
LANGUAGE sql AS $$
  UPDATE oauth_families SET revoked_at = coalesce(revoked_at, at) WHERE id = family;
  UPDATE oauth_refresh_tokens SET revoked_at = at WHERE family_id = family AND revoked_at IS NULL;
  UPDATE oauth_access_tokens SET revoked_at = at WHERE family_id = family AND revoked_at IS NULL;
$$;
-- +goose StatementEnd

-- oauth_issue_pair stores a refresh token of the next generation of family and its access
-- token. The caller holds the family's row lock, so generations never collide.
-- +goose StatementBegin
CREATE FUNCTION oauth_issue_pair(family uuid, pair_scopes text[], refresh_hash bytea, access_hash bytea,
  at timestamptz, refresh_expires timestamptz, access_expires timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  refresh uuid;
BEGIN
  INSERT INTO oauth_refresh_tokens (family_id, token_hash, generation, scopes, created_at, expires_at)
  SELECT family, refresh_hash, coalesce(max(r.generation), 0) + 1, pair_scopes, at, refresh_expires
  FROM oauth_refresh_tokens r WHERE r.family_id = family
  RETURNING id INTO refresh;
  INSERT INTO oauth_access_tokens (family_id, refresh_id, token_hash, scopes, created_at, expires_at)
  VALUES (family, refresh, access_hash, pair_scopes, at, access_expires);
END $$;
-- +goose StatementEnd

-- oauth_refresh_grant is the refresh_token grant with rotation (RFC 6749 6, RFC 9700
-- 4.14.2, decisions.md 7):
--
--   - an active token is retired and a new pair issued (outcome 'rotated');
--   - a retired token presented inside the grace window gets a new pair, and every pair
--     issued after it is superseded: its access tokens are revoked and the live refresh
--     token retired, so one live pair remains ('superseded');
--   - a superseded token is retired as of the retirement of the token whose replay
--     superseded it, so it is itself honoured inside that same window: a client that sent
--     20 parallel refreshes may keep any of the 20 answers, and the
--     whole burst ends one grace window after the first rotation;
--   - a retired token presented after the window, or a token revoked with its family, is
--     treated as stolen: the family is revoked ('reused').
--
-- grace_start is now minus the grace window. scopes is NULL to keep the token's scopes,
-- else a narrowing; resource is '' or the RFC 8707 resource the request names.
-- Concurrent refreshes of one family serialise on the family row, and the token is read
-- only after that lock is held: in a volatile function each statement takes a new
-- snapshot, so the read sees every commit made before the lock was granted.
-- +goose StatementBegin
CREATE FUNCTION oauth_refresh_grant(token_hash bytea, client_id text, at timestamptz, grace_start timestamptz,
  scopes text[], resource text, refresh_hash bytea, access_hash bytea, refresh_expires timestamptz,
  access_expires timestamptz, OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text)
LANGUAGE plpgsql AS $$
DECLARE
  f record;
  t record;
BEGIN
  SELECT r.family_id INTO family FROM oauth_refresh_tokens r WHERE r.token_hash = oauth_refresh_grant.token_hash;
  IF NOT FOUND THEN
    outcome := 'unknown';
    RETURN;
  END IF;
  SELECT fa.client_id, fa.revoked_at, fa.resource, u.status INTO f
  FROM oauth_families fa JOIN users u ON u.id = fa.user_id WHERE fa.id = family FOR UPDATE OF fa;
  SELECT r.id, r.generation, r.scopes, r.expires_at, r.retired_at, r.revoked_at INTO t
  FROM oauth_refresh_tokens r WHERE r.token_hash = oauth_refresh_grant.token_hash;
  IF NOT FOUND THEN -- the family was deleted (its client or member) since the first read
    outcome := 'unknown';
    RETURN;
  END IF;
  granted := t.scopes;
  bound := f.resource;
  outcome := CASE
    WHEN f.client_id <> oauth_refresh_grant.client_id THEN 'other_client'
    WHEN f.revoked_at IS NOT NULL THEN 'revoked'
    WHEN at >= t.expires_at THEN 'expired'
    -- RFC 8707 2.2: a refresh may not move the tokens to another resource.
    WHEN oauth_refresh_grant.resource <> '' AND f.resource <> '' AND oauth_refresh_grant.resource <> f.resource
      THEN 'other_resource'
    WHEN f.status <> 'active' THEN 'inactive'
    WHEN t.revoked_at IS NOT NULL OR t.retired_at < grace_start THEN 'reused'
    -- RFC 6749 6: the scope may be narrowed, never widened beyond what this token has.
    WHEN oauth_refresh_grant.scopes IS NOT NULL AND NOT oauth_refresh_grant.scopes <@ t.scopes THEN 'wider_scope'
    WHEN t.retired_at IS NULL THEN 'rotated'
    ELSE 'superseded'
  END;
  IF outcome = 'reused' THEN
    PERFORM oauth_revoke_family(family, at);
    RETURN;
  ELSIF outcome = 'rotated' THEN
    UPDATE oauth_refresh_tokens SET retired_at = at WHERE id = t.id;
  ELSIF outcome = 'superseded' THEN
    -- a.family_id lets the family's index find the access tokens (there is none on
    -- refresh_id): without it this is a sequential scan of every access token.
    UPDATE oauth_access_tokens a SET revoked_at = at FROM oauth_refresh_tokens r
    WHERE a.family_id = family AND a.refresh_id = r.id AND r.family_id = family AND r.generation > t.generation
      AND a.revoked_at IS NULL;
    UPDATE oauth_refresh_tokens SET retired_at = t.retired_at
    WHERE family_id = family AND retired_at IS NULL AND revoked_at IS NULL;
  ELSE
    RETURN;
  END IF;
  granted := coalesce(oauth_refresh_grant.scopes, t.scopes);
  PERFORM oauth_issue_pair(family, granted, refresh_hash, access_hash, at, refresh_expires, access_expires);
  UPDATE oauth_families SET last_used_at = at WHERE id = family;
END $$;
-- +goose StatementEnd

-- oauth_code_grant is the authorization_code grant (RFC 6749 4.1.3, RFC 7636 4.5). A code is
-- consumed by its first presentation, whatever the outcome, and a second presentation
-- revokes the family the first one issued (RFC 6749 4.1.2): outcome 'replayed', family set
-- when there was one. The code's row lock makes a replay wait for the first exchange.
--
-- request_ok is false when the request failed a check the Go side makes without the code
-- (code_verifier syntax, resource syntax): the code is consumed and the outcome is
-- 'bad_request'. redirect_uri is NULL when the request sent none; challenge is the S256
-- transform of the code_verifier (RFC 7636 4.6); resource is '' or the one requested.
-- +goose StatementBegin
CREATE FUNCTION oauth_code_grant(code_hash bytea, client_id text, at timestamptz, request_ok boolean,
  redirect_uri text, challenge text, resource text, refresh_hash bytea, access_hash bytea,
  refresh_expires timestamptz, access_expires timestamptz,
  OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
BEGIN
  SELECT k.client_id, k.user_id, k.workspace_id, k.redirect_uri, k.redirect_uri_given, k.code_challenge, k.scopes,
    k.resource, k.expires_at, k.used_at, k.family_id INTO c
  FROM oauth_codes k WHERE k.code_hash = oauth_code_grant.code_hash FOR UPDATE;
  IF NOT FOUND THEN
    outcome := 'unknown';
    RETURN;
  END IF;
  IF c.used_at IS NOT NULL THEN
    IF c.family_id IS NOT NULL THEN
      PERFORM oauth_revoke_family(c.family_id, at);
      family := c.family_id;
    END IF;
    outcome := 'replayed';
    RETURN;
  END IF;
  granted := c.scopes;
  bound := c.resource;
  outcome := CASE
    WHEN NOT request_ok THEN 'bad_request'
    WHEN at >= c.expires_at THEN 'expired'
    WHEN c.client_id <> oauth_code_grant.client_id THEN 'other_client'
    -- RFC 6749 4.1.3: redirect_uri must be identical to the authorization request's when
    -- that request included it; when it did not, a redirect_uri sent must still match.
    WHEN c.redirect_uri_given AND oauth_code_grant.redirect_uri IS DISTINCT FROM c.redirect_uri
      OR NOT c.redirect_uri_given AND oauth_code_grant.redirect_uri <> c.redirect_uri THEN 'other_redirect'
    WHEN oauth_code_grant.challenge IS DISTINCT FROM c.code_challenge THEN 'wrong_verifier'
    -- RFC 8707 2.2: the token request may name the resource the code was bound to.
    WHEN oauth_code_grant.resource <> '' AND c.resource <> '' AND oauth_code_grant.resource <> c.resource
      THEN 'other_resource'
    ELSE 'issued'
  END;
  IF outcome <> 'issued' THEN
    UPDATE oauth_codes SET used_at = at WHERE oauth_codes.code_hash = oauth_code_grant.code_hash;
    RETURN;
  END IF;
  bound := CASE WHEN oauth_code_grant.resource <> '' THEN oauth_code_grant.resource ELSE c.resource END;
  INSERT INTO oauth_families (client_id, user_id, workspace_id, scopes, resource, created_at, last_used_at)
  VALUES (c.client_id, c.user_id, c.workspace_id, c.scopes, bound, at, at) RETURNING id INTO family;
  PERFORM oauth_issue_pair(family, c.scopes, refresh_hash, access_hash, at, refresh_expires, access_expires);
  UPDATE oauth_codes SET used_at = at, family_id = family WHERE oauth_codes.code_hash = oauth_code_grant.code_hash;
  -- The client row is shared by every member's exchange: touch it at most once a minute,
  -- so concurrent exchanges of a popular client do not queue on its row lock.
  UPDATE oauth_clients SET last_used_at = at
  WHERE id = c.client_id AND (last_used_at IS NULL OR last_used_at < at - interval '1 minute');
END $$;
-- +goose StatementEnd

-- Credential tables stay out of the request role's reach (00002); so do their functions.
REVOKE EXECUTE ON FUNCTION oauth_revoke_family, oauth_issue_pair, oauth_refresh_grant, oauth_code_grant FROM PUBLIC;

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
