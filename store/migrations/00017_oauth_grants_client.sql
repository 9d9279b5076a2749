-- +goose Up
-- The token endpoint's grants authenticate their client and issue their pair themselves
-- (one round trip per grant). The grant functions of 00013 left the client to the Go side, a
-- lookup of its own (a second round trip per grant), and issued pairs through a nested
-- PL/pgSQL function (oauth_issue_pair) whose call cost as much as one of its INSERTs.
-- Here the client check is one more expression of the grant's first statement, and the
-- issuing is one statement of data-modifying CTEs (an INSERT per row, the retirement and
-- the touch of last_used_at) instead of four or five.
--
-- The client check (RFC 6749 2.3.1): client_secret_hash is NULL when the request sent no
-- secret, else the SHA-256 of the secret it sent (store.HashSecret), or an empty bytea for
-- a malformed secret (which no stored hash equals). Outcomes, checked before anything
-- else, so a failed authentication neither consumes a code nor rotates a token:
--   'client_unknown': no such client, or it is disabled;
--   'client_secret_missing': the client is confidential and the request sent no secret;
--   'client_secret_wrong': the secret is not the client's.
-- A public client's secret, if one is sent, is ignored, as before. Comparing the hashes in
-- SQL does not leak the secret through timing: what an attacker controls is the secret,
-- and a prefix of its SHA-256 says nothing useful about the stored one (agent keys are
-- compared the same way, store/identity.go).
--
-- Plans: as in 00013, every statement finds its rows by a unique key or by family_id
-- through a family index (oauth's TestGrantsUseIndexesWithStaleStatistics).

-- 00013's functions stay: during a rolling upgrade the replicas still running the previous
-- binary call them (their argument lists differ, so each binary reaches its own). A later
-- migration drops them once no such binary can be running.

-- oauth_client_check is the client check: its outcome for client_id and the hash of the
-- secret sent, NULL when the client is authenticated. The grant functions make it in their
-- first statement; the token endpoint's other refusals and revocation call it alone
-- (store.CheckOAuthClient), so the rule is written once.
-- +goose StatementBegin
CREATE FUNCTION oauth_client_check(client_id text, sent bytea) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN stored IS NULL THEN 'client_unknown'
    WHEN stored = '' THEN NULL
    WHEN sent IS NULL THEN 'client_secret_missing'
    WHEN sent <> stored THEN 'client_secret_wrong'
  END
  FROM (SELECT (SELECT coalesce(c.secret_hash, '') FROM oauth_clients c
    WHERE c.id = oauth_client_check.client_id AND c.disabled_at IS NULL) AS stored) enabled
$$;
-- +goose StatementEnd

-- oauth_refresh_grant is 00013's refresh_token grant, with rotation, the grace window and
-- family revocation unchanged (see there), after the client check above.
-- Concurrent refreshes of one family serialise on the family row, and the token is read
-- again only after that lock is held: in a volatile function each statement takes a new
-- snapshot, so that read sees every commit made before the lock was granted.
-- +goose StatementBegin
CREATE FUNCTION oauth_refresh_grant(client_id text, client_secret_hash bytea, token_hash bytea, at timestamptz,
  grace_start timestamptz, scopes text[], resource text, refresh_hash bytea, access_hash bytea,
  refresh_expires timestamptz, access_expires timestamptz,
  OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text)
LANGUAGE plpgsql AS $$
DECLARE
  f record;
  t record;
BEGIN
  SELECT oauth_client_check(oauth_refresh_grant.client_id, client_secret_hash),
    (SELECT r.family_id FROM oauth_refresh_tokens r WHERE r.token_hash = oauth_refresh_grant.token_hash)
  INTO outcome, family;
  IF outcome IS NOT NULL THEN
    family := NULL;
    RETURN;
  END IF;
  IF family IS NULL THEN
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
  ELSIF outcome = 'superseded' THEN
    -- a.family_id lets the family's index find the access tokens (there is none on
    -- refresh_id): without it this is a sequential scan of every access token.
    UPDATE oauth_access_tokens a SET revoked_at = at FROM oauth_refresh_tokens r
    WHERE a.family_id = family AND a.refresh_id = r.id AND r.family_id = family AND r.generation > t.generation
      AND a.revoked_at IS NULL;
    UPDATE oauth_refresh_tokens SET retired_at = t.retired_at
    WHERE family_id = family AND retired_at IS NULL AND revoked_at IS NULL;
  ELSIF outcome <> 'rotated' THEN
    RETURN;
  END IF;
  granted := coalesce(oauth_refresh_grant.scopes, t.scopes);
  -- The pair is the next generation; the family's row lock keeps generations apart. The
  -- CTEs share one snapshot, so the INSERT's max(generation) and the superseding UPDATEs
  -- above never see the new row, and the retirement only touches an active token (a
  -- superseded one keeps its retirement time).
  WITH retire AS (
    UPDATE oauth_refresh_tokens SET retired_at = at WHERE id = t.id AND retired_at IS NULL
  ), touch AS (
    UPDATE oauth_families SET last_used_at = at WHERE id = family
  ), refresh AS (
    INSERT INTO oauth_refresh_tokens (family_id, token_hash, generation, scopes, created_at, expires_at)
    SELECT family, refresh_hash, coalesce(max(r.generation), 0) + 1, granted, at, refresh_expires
    FROM oauth_refresh_tokens r WHERE r.family_id = family
    RETURNING id
  )
  INSERT INTO oauth_access_tokens (family_id, refresh_id, token_hash, scopes, created_at, expires_at)
  SELECT family, refresh.id, access_hash, granted, at, access_expires FROM refresh;
END $$;
-- +goose StatementEnd

-- oauth_code_grant is 00013's authorization_code grant, with the code consumed by its
-- first presentation and a replay revoking the family unchanged (see there), after the
-- client check above. The code's row lock makes a replay wait for the first exchange; the
-- lock is taken in the same statement as the client check, and held (never written) when
-- the check fails.
-- +goose StatementBegin
CREATE FUNCTION oauth_code_grant(client_id text, client_secret_hash bytea, code_hash bytea, at timestamptz,
  request_ok boolean, redirect_uri text, challenge text, resource text, refresh_hash bytea, access_hash bytea,
  refresh_expires timestamptz, access_expires timestamptz,
  OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
BEGIN
  SELECT oauth_client_check(oauth_code_grant.client_id, client_secret_hash) AS client_outcome,
    k.client_id, k.user_id, k.workspace_id, k.redirect_uri, k.redirect_uri_given, k.code_challenge, k.scopes,
    k.resource, k.expires_at, k.used_at, k.family_id INTO c
  FROM (SELECT) one LEFT JOIN LATERAL (
    SELECT * FROM oauth_codes WHERE oauth_codes.code_hash = oauth_code_grant.code_hash FOR UPDATE
  ) k ON true;
  outcome := c.client_outcome;
  IF outcome IS NOT NULL THEN
    RETURN;
  END IF;
  IF c.client_id IS NULL THEN
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
  -- The family, its first pair (generation 1) and the code's consumption in one statement.
  -- The client row is shared by every member's exchange: touch it at most once a minute,
  -- so concurrent exchanges of a popular client do not queue on its row lock.
  WITH fam AS (
    INSERT INTO oauth_families (client_id, user_id, workspace_id, scopes, resource, created_at, last_used_at)
    VALUES (c.client_id, c.user_id, c.workspace_id, c.scopes, bound, at, at) RETURNING id
  ), refresh AS (
    INSERT INTO oauth_refresh_tokens (family_id, token_hash, generation, scopes, created_at, expires_at)
    SELECT fam.id, refresh_hash, 1, c.scopes, at, refresh_expires FROM fam RETURNING id, family_id
  ), access AS (
    INSERT INTO oauth_access_tokens (family_id, refresh_id, token_hash, scopes, created_at, expires_at)
    SELECT refresh.family_id, refresh.id, access_hash, c.scopes, at, access_expires FROM refresh
  ), used AS (
    UPDATE oauth_codes SET used_at = at, family_id = fam.id FROM fam
    WHERE oauth_codes.code_hash = oauth_code_grant.code_hash
  ), touch AS (
    UPDATE oauth_clients SET last_used_at = at
    WHERE id = c.client_id AND (last_used_at IS NULL OR last_used_at < at - interval '1 minute')
  )
  SELECT id INTO family FROM fam;
END $$;
-- +goose StatementEnd

-- Credential tables stay out of the request role's reach (00002); so do their functions.
REVOKE EXECUTE ON FUNCTION
  oauth_client_check(text, bytea),
  oauth_refresh_grant(text, bytea, bytea, timestamptz, timestamptz, text[], text, bytea, bytea, timestamptz, timestamptz),
  oauth_code_grant(text, bytea, bytea, timestamptz, boolean, text, text, text, bytea, bytea, timestamptz, timestamptz)
  FROM PUBLIC;

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
