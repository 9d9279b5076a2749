-- +goose Up
-- oauth_refresh_grant (00017) binds the access token it issues to the resource the refresh
-- named (RFC 8707 section 2.2) in its own statement. Until now the token endpoint bound it
-- with a second statement after the grant had committed (oauth/token.go), so the token
-- existed unbound in between, and stayed unbound if that statement failed. Rules, outcomes
-- and arguments are unchanged; the family's row lock still serialises a family's refreshes.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION oauth_refresh_grant(client_id text, client_secret_hash bytea, token_hash bytea, at timestamptz,
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
  -- RFC 8707 2.2: a refresh of an unbound authorization that names a resource gets an
  -- access token bound to it, in this statement; the family (and the refresh token) stays
  -- unbound. A bound family's tokens take the family's resource.
  INSERT INTO oauth_access_tokens (family_id, refresh_id, token_hash, scopes, resource, created_at, expires_at)
  SELECT family, refresh.id, access_hash, granted,
    CASE WHEN oauth_refresh_grant.resource <> '' AND coalesce(f.resource, '') = '' THEN oauth_refresh_grant.resource END,
    at, access_expires FROM refresh;
END $$;
-- +goose StatementEnd

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
