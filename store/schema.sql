-- The schema store/migrations make, as pg_dump --schema-only --no-owner prints it for a
-- freshly migrated database. Generated: do not edit. Change a migration, then run
--   go test ./store -run TestSchemaIsCheckedIn -update

--
-- PostgreSQL database dump
--

--
-- Name: btree_gin; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public;

--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

--
-- Name: unaccent; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;

--
-- Name: river_job_state; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.river_job_state AS ENUM (
    'available',
    'cancelled',
    'completed',
    'discarded',
    'pending',
    'retryable',
    'running',
    'scheduled'
);

--
-- Name: app_grant(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.app_grant(feature text) RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT coalesce(nullif(current_setting('app.grants', true), '')::jsonb ->> feature, 'none') $$;

--
-- Name: app_is_admin(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.app_is_admin() RETURNS boolean
    LANGUAGE sql STABLE
    AS $$ SELECT coalesce(current_setting('app.role', true), '') = 'admin' $$;

--
-- Name: app_user_id(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.app_user_id() RETURNS uuid
    LANGUAGE sql STABLE
    AS $$ SELECT nullif(current_setting('app.user_id', true), '')::uuid $$;

--
-- Name: app_workspace_id(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.app_workspace_id() RETURNS uuid
    LANGUAGE sql STABLE
    AS $$ SELECT nullif(current_setting('app.workspace_id', true), '')::uuid $$;

--
-- Name: member_signed_in(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.member_signed_in() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO member_sign_ins (user_id, last_at) VALUES (NEW.user_id, NEW.created_at)
    ON CONFLICT (user_id) DO UPDATE SET last_at = greatest(member_sign_ins.last_at, excluded.last_at);
  RETURN NEW;
END $$;

--
-- Name: oauth_client_check(text, bytea); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.oauth_client_check(client_id text, sent bytea) RETURNS text
    LANGUAGE sql STABLE
    AS $$
  SELECT CASE
    WHEN stored IS NULL THEN 'client_unknown'
    WHEN stored = '' THEN NULL
    WHEN sent IS NULL THEN 'client_secret_missing'
    WHEN sent <> stored THEN 'client_secret_wrong'
  END
  FROM (SELECT (SELECT coalesce(c.secret_hash, '') FROM oauth_clients c
    WHERE c.id = oauth_client_check.client_id AND c.disabled_at IS NULL) AS stored) enabled
$$;

--
-- Name: oauth_code_grant(text, bytea, bytea, timestamp with time zone, boolean, text, text, text, bytea, bytea, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.oauth_code_grant(client_id text, client_secret_hash bytea, code_hash bytea, at timestamp with time zone, request_ok boolean, redirect_uri text, challenge text, resource text, refresh_hash bytea, access_hash bytea, refresh_expires timestamp with time zone, access_expires timestamp with time zone, OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text) RETURNS record
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: oauth_refresh_grant(text, bytea, bytea, timestamp with time zone, timestamp with time zone, text[], text, bytea, bytea, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.oauth_refresh_grant(client_id text, client_secret_hash bytea, token_hash bytea, at timestamp with time zone, grace_start timestamp with time zone, scopes text[], resource text, refresh_hash bytea, access_hash bytea, refresh_expires timestamp with time zone, access_expires timestamp with time zone, OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text) RETURNS record
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: oauth_revoke_family(uuid, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.oauth_revoke_family(family uuid, at timestamp with time zone) RETURNS void
    LANGUAGE sql
    AS $$
  UPDATE oauth_families SET revoked_at = coalesce(revoked_at, at) WHERE id = family;
  UPDATE oauth_refresh_tokens SET revoked_at = at WHERE family_id = family AND revoked_at IS NULL;
  UPDATE oauth_access_tokens SET revoked_at = at WHERE family_id = family AND revoked_at IS NULL;
$$;

--
-- Name: river_job_state_in_bitmask(bit, public.river_job_state); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.river_job_state_in_bitmask(bitmask bit, state public.river_job_state) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT CASE state
        WHEN 'available' THEN get_bit(bitmask, 7)
        WHEN 'cancelled' THEN get_bit(bitmask, 6)
        WHEN 'completed' THEN get_bit(bitmask, 5)
        WHEN 'discarded' THEN get_bit(bitmask, 4)
        WHEN 'pending'   THEN get_bit(bitmask, 3)
        WHEN 'retryable' THEN get_bit(bitmask, 2)
        WHEN 'running'   THEN get_bit(bitmask, 1)
        WHEN 'scheduled' THEN get_bit(bitmask, 0)
        ELSE 0
    END = 1;
$$;

--
-- Name: ws_activity_redact(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_activity_redact() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NEW.entity_type = 'webhook_endpoints' AND jsonb_typeof(NEW.changes -> 'url') = 'string' THEN
    NEW.changes := jsonb_set(NEW.changes, '{url}', to_jsonb(ws_redact_url(NEW.changes ->> 'url')));
  END IF;
  RETURN NEW;
END $$;

--
-- Name: ws_activity_source(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_activity_source() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  NEW.credential := coalesce(NEW.credential, nullif(current_setting('app.credential', true), ''));
  NEW.client := coalesce(NEW.client, nullif(current_setting('app.client', true), '')::jsonb);
  NEW.via := coalesce(NEW.via, nullif(current_setting('app.via', true), ''));
  RETURN NEW;
END $$;

--
-- Name: ws_address_words(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_address_words(s text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
DECLARE
  email constant text := '[[:alnum:]._%+-]+@[[:alnum:]-]+(?:\.[[:alnum:]-]+)+';
  host constant text := '(?:[[:alnum:]-]+\.)+[[:alpha:]]{2,}';
  words text[] := '{}'; -- each email's local part, split
  hosts text[] := '{}'; -- each host's labels
  suffixes text[] := '{}'; -- each host whole and its shorter suffixes
  labels text[];
  h text;
BEGIN
  IF s IS NULL THEN
    RETURN '';
  END IF;
  FOR i IN 1 .. regexp_count(s, email) LOOP
    words := words || regexp_split_to_array(split_part(regexp_substr(s, email, 1, i), '@', 1), '[._%+-]+');
  END LOOP;
  FOR i IN 1 .. regexp_count(s, host) LOOP
    h := public.ws_domain(regexp_substr(s, host, 1, i));
    hosts := hosts || regexp_split_to_array(h, '[.-]+');
    labels := string_to_array(h, '.');
    FOR j IN 1 .. coalesce(cardinality(labels) - 1, 0) LOOP
      suffixes := suffixes || array_to_string(labels[j:], '.');
    END LOOP;
  END LOOP;
  RETURN array_to_string(array_remove(words || hosts || suffixes, ''), ' ');
END
$$;

--
-- Name: ws_check_id_array(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_check_id_array() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
DECLARE
  ids uuid[];
  bad boolean;
BEGIN
  EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO ids USING NEW;
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN NEW;
  END IF;
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM unnest($1) u WHERE u IS NULL
      OR NOT EXISTS (SELECT 1 FROM %I r WHERE r.id = u AND r.workspace_id = $2))', TG_ARGV[1])
    INTO bad USING ids, NEW.workspace_id;
  IF bad THEN
    RAISE EXCEPTION '% names a record of % that does not exist in this workspace', TG_ARGV[0], TG_ARGV[1]
      USING ERRCODE = 'foreign_key_violation', COLUMN = TG_ARGV[0];
  END IF;
  RETURN NEW;
END
$_$;

--
-- Name: ws_comment_entity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_comment_entity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NEW.entity_type = 'deal' THEN
    PERFORM 1 FROM deals WHERE id = NEW.entity_id AND workspace_id = NEW.workspace_id;
  ELSE
    PERFORM 1 FROM tasks WHERE id = NEW.entity_id AND workspace_id = NEW.workspace_id
    UNION ALL SELECT 1 FROM deal_tasks WHERE id = NEW.entity_id AND workspace_id = NEW.workspace_id;
  END IF;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'comment entity % % does not exist', NEW.entity_type, NEW.entity_id
      USING ERRCODE = 'foreign_key_violation', COLUMN = 'entity_id';
  END IF;
  RETURN NEW;
END
$$;

--
-- Name: ws_custom_absent_fill(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_absent_fill() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $_$
BEGIN
  EXECUTE format('INSERT INTO custom_absent SELECT $1, $2, t.id FROM %I t WHERE t.workspace_id = $1 ORDER BY t.id', NEW.resource)
    USING NEW.workspace_id, NEW.id;
  RETURN NULL;
END
$_$;

--
-- Name: ws_custom_archived(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_archived(ws uuid, res text) RETURNS text[]
    LANGUAGE sql STABLE
    AS $$
  SELECT k FROM ws_custom_archived_keys(ws, res) k
$$;

--
-- Name: ws_custom_archived_keys(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_archived_keys(ws uuid, res text) RETURNS SETOF text[]
    LANGUAGE sql STABLE
    AS $$
  SELECT coalesce(array_agg(f.key), '{}') FROM custom_fields f WHERE f.workspace_id = ws AND f.resource = res AND f.archived
$$;

--
-- Name: ws_custom_changes(jsonb, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_changes(diff jsonb, prior jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
  -- A record without values holds NULL (JSON null in to_jsonb): no keys.
  SELECT CASE WHEN diff IS NULL OR NOT diff ? 'custom_fields' THEN diff
    ELSE (diff - 'custom_fields') || coalesce((
      SELECT jsonb_object_agg('custom_fields.' || k, n.v -> k)
        FROM (SELECT CASE WHEN jsonb_typeof(diff -> 'custom_fields') = 'object' THEN diff -> 'custom_fields' ELSE '{}' END AS v,
                     CASE WHEN jsonb_typeof(prior) = 'object' THEN prior ELSE '{}' END AS p) n,
             LATERAL (SELECT jsonb_object_keys(n.v) AS k UNION SELECT jsonb_object_keys(n.p)) ks
       WHERE (n.v -> k) IS DISTINCT FROM (n.p -> k)), '{}') END
$$;

--
-- Name: ws_custom_field_guard(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_field_guard() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.key <> OLD.key OR NEW.resource <> OLD.resource THEN
      RAISE EXCEPTION 'a custom field''s key and resource never change' USING ERRCODE = '23514';
    END IF;
    RETURN NEW;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('custom_fields:' || NEW.workspace_id || ':' || NEW.resource, 0));
  IF (SELECT count(*) FROM custom_fields WHERE workspace_id = NEW.workspace_id AND resource = NEW.resource) >= 200 THEN
    RAISE EXCEPTION 'at most 200 custom fields per resource' USING ERRCODE = '23514', CONSTRAINT = 'custom_fields_limit';
  END IF;
  RETURN NEW;
END
$$;

--
-- Name: ws_custom_fields_bump(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_fields_bump() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
BEGIN
  INSERT INTO custom_field_versions AS c (workspace_id, version)
  VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.workspace_id ELSE NEW.workspace_id END, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET version = c.version + 1;
  RETURN NULL;
END
$$;

--
-- Name: ws_custom_fields_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_fields_changed() RETURNS boolean
    LANGUAGE plpgsql
    AS $$
BEGIN
  RAISE EXCEPTION 'the custom field definitions changed' USING ERRCODE = 'WS001';
END
$$;

--
-- Name: ws_custom_fields_version(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_fields_version() RETURNS SETOF bigint
    LANGUAGE sql STABLE
    AS $$
  SELECT coalesce(max(c.version), 0) FROM custom_field_versions c WHERE c.workspace_id = app_workspace_id()
$$;

--
-- Name: ws_custom_index(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_index() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
DECLARE
  k text;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.custom_fields IS NOT DISTINCT FROM OLD.custom_fields THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(ws_custom_lock_key(NEW.workspace_id, TG_ARGV[0]));
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM custom_values WHERE record_id = NEW.id;
    -- Only the fields the update gives a value to or takes it from.
    DELETE FROM custom_absent a USING custom_fields f
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0]
       AND ws_custom_set(f.type, NEW.custom_fields -> f.key) AND NOT ws_custom_set(f.type, OLD.custom_fields -> f.key)
       AND a.field_id = f.id AND a.record_id = NEW.id;
  END IF;
  INSERT INTO custom_absent
  SELECT NEW.workspace_id, f.id, NEW.id FROM custom_fields f
   WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND NOT ws_custom_set(f.type, NEW.custom_fields -> f.key)
     AND (TG_OP = 'INSERT' OR ws_custom_set(f.type, OLD.custom_fields -> f.key));
  IF NEW.custom_fields IS NULL OR NEW.custom_fields = '{}' THEN
    RETURN NULL;
  END IF;
  BEGIN
    INSERT INTO custom_values
    SELECT r.* FROM custom_fields f CROSS JOIN LATERAL ws_custom_rows(f, NEW.workspace_id, NEW.id, NEW.custom_fields -> f.key) r
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND NEW.custom_fields ? f.key;
  EXCEPTION WHEN unique_violation THEN
    SELECT f.key INTO k FROM custom_fields f
     WHERE f.workspace_id = NEW.workspace_id AND f.resource = TG_ARGV[0] AND f."unique" AND NEW.custom_fields ? f.key
       AND EXISTS (SELECT 1 FROM ws_custom_rows(f, NEW.workspace_id, NEW.id, NEW.custom_fields -> f.key) r
                    JOIN custom_values c ON c.field_id = f.id AND c.u = r.u AND c.record_id <> NEW.id)
     LIMIT 1;
    RAISE EXCEPTION 'a unique custom field''s value is taken' USING ERRCODE = '23505',
      CONSTRAINT = 'custom_values_unique', COLUMN = coalesce(k, '');
  END;
  RETURN NULL;
END
$$;

--
-- Name: ws_custom_index_rows(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_index_rows() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
DECLARE
  k text;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(ws_custom_lock_key(w, TG_ARGV[0]))
     FROM (SELECT DISTINCT n.workspace_id AS w FROM new_rows n ORDER BY 1) x;
  INSERT INTO custom_absent
  SELECT n.workspace_id, f.id, n.id FROM new_rows n JOIN custom_fields f ON f.workspace_id = n.workspace_id AND f.resource = TG_ARGV[0]
   WHERE NOT ws_custom_set(f.type, n.custom_fields -> f.key);
  INSERT INTO custom_values
  SELECT r.* FROM new_rows n JOIN custom_fields f ON f.workspace_id = n.workspace_id AND f.resource = TG_ARGV[0] AND n.custom_fields ? f.key
   CROSS JOIN LATERAL ws_custom_rows(f, n.workspace_id, n.id, n.custom_fields -> f.key) r
   WHERE n.custom_fields IS NOT NULL AND n.custom_fields <> '{}';
  RETURN NULL;
EXCEPTION WHEN unique_violation THEN
  -- The field whose value another record holds; one taken by another row of this
  -- statement is not in custom_values (the INSERT was undone): its key stays unnamed.
  SELECT f.key INTO k FROM new_rows n JOIN custom_fields f
      ON f.workspace_id = n.workspace_id AND f.resource = TG_ARGV[0] AND f."unique" AND n.custom_fields ? f.key
   WHERE EXISTS (SELECT 1 FROM ws_custom_rows(f, n.workspace_id, n.id, n.custom_fields -> f.key) r
                  JOIN custom_values c ON c.field_id = f.id AND c.u = r.u AND c.record_id <> n.id)
   LIMIT 1;
  RAISE EXCEPTION 'a unique custom field''s value is taken' USING ERRCODE = '23505',
    CONSTRAINT = 'custom_values_unique', COLUMN = coalesce(k, '');
END
$$;

--
-- Name: ws_custom_lock_key(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_lock_key(ws uuid, res text) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $$
  SELECT hashtextextended('custom_fields:' || ws || ':' || res, 0)
$$;

--
-- Name: ws_custom_reindex(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_reindex() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $_$
BEGIN
  IF NEW.type = OLD.type AND NEW."unique" = OLD."unique" THEN
    RETURN NULL;
  END IF;
  -- The field's rows, each of which sets its type's column: the arms are the partial
  -- indexes' conditions.
  DELETE FROM custom_values WHERE field_id = NEW.id
     AND (t IS NOT NULL OR s IS NOT NULL OR n IS NOT NULL OR d IS NOT NULL OR b IS NOT NULL);
  DELETE FROM custom_absent WHERE field_id = NEW.id;
  EXECUTE format('INSERT INTO custom_absent SELECT t.workspace_id, $1.id, t.id FROM %I t
     WHERE t.workspace_id = $1.workspace_id AND NOT ws_custom_set($1.type, t.custom_fields -> $1.key) ORDER BY t.id', NEW.resource) USING NEW;
  BEGIN
    EXECUTE format('INSERT INTO custom_values SELECT r.* FROM %I t CROSS JOIN LATERAL ws_custom_rows($1, t.workspace_id, t.id, t.custom_fields -> $1.key) r
       WHERE t.workspace_id = $1.workspace_id AND t.custom_fields ? $1.key', NEW.resource) USING NEW;
  EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'two records hold the same value' USING ERRCODE = '23505',
      CONSTRAINT = 'custom_values_unique', COLUMN = NEW.key;
  END;
  RETURN NULL;
END
$_$;

--
-- Name: custom_fields; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.custom_fields (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    resource text NOT NULL,
    key text NOT NULL,
    label text NOT NULL,
    type text NOT NULL,
    options jsonb DEFAULT '[]'::jsonb NOT NULL,
    reference_resource text,
    required boolean DEFAULT false NOT NULL,
    "unique" boolean DEFAULT false NOT NULL,
    searchable boolean DEFAULT false NOT NULL,
    description text,
    archived boolean DEFAULT false NOT NULL,
    "position" integer DEFAULT 0 NOT NULL,
    ready boolean DEFAULT true NOT NULL,
    CONSTRAINT custom_fields_check CHECK (((type = 'reference'::text) = (reference_resource IS NOT NULL))),
    CONSTRAINT custom_fields_key_check CHECK ((key ~ '^[a-z][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT custom_fields_options_check CHECK ((jsonb_typeof(options) = 'array'::text)),
    CONSTRAINT custom_fields_reference_resource_check CHECK ((reference_resource = ANY (ARRAY['deals'::text, 'people'::text, 'companies'::text, 'tasks'::text, 'deal_tasks'::text, 'projects'::text]))),
    CONSTRAINT custom_fields_resource_check CHECK ((resource = ANY (ARRAY['deals'::text, 'people'::text, 'companies'::text, 'tasks'::text, 'deal_tasks'::text, 'projects'::text]))),
    CONSTRAINT custom_fields_type_check CHECK ((type = ANY (ARRAY['text'::text, 'long_text'::text, 'number'::text, 'money'::text, 'date'::text, 'timestamp'::text, 'boolean'::text, 'select'::text, 'multi_select'::text, 'url'::text, 'email'::text, 'phone'::text, 'member'::text, 'reference'::text])))
);

ALTER TABLE ONLY public.custom_fields FORCE ROW LEVEL SECURITY;

--
-- Name: custom_values; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.custom_values (
    workspace_id uuid NOT NULL,
    field_id uuid NOT NULL,
    record_id uuid NOT NULL,
    t text,
    n numeric,
    d timestamp with time zone,
    b boolean,
    u text,
    s text,
    searched boolean DEFAULT false NOT NULL
);

ALTER TABLE ONLY public.custom_values FORCE ROW LEVEL SECURITY;

--
-- Name: ws_custom_rows(public.custom_fields, uuid, uuid, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_rows(f public.custom_fields, ws uuid, rec uuid, v jsonb) RETURNS SETOF public.custom_values
    LANGUAGE sql STABLE
    AS $$
  SELECT ws, f.id, rec, x.t, x.n, x.d, x.b,
         CASE WHEN f."unique" THEN coalesce(x.t, x.n::text, to_char(x.d AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), x.b::text)
           || CASE WHEN f.type = 'money' THEN ' ' || (v ->> 'currency') ELSE '' END END,
         CASE WHEN f.type = 'long_text' THEN left(v #>> '{}', 10000) END,
         f.searchable AND (x.t IS NOT NULL OR f.type = 'long_text') -- searched
  FROM (
    SELECT CASE WHEN f.type IN ('text', 'url', 'email', 'phone', 'select', 'member', 'reference') THEN v #>> '{}'
                WHEN f.type = 'multi_select' THEN e END AS t,
           CASE WHEN f.type = 'number' THEN (v #>> '{}')::numeric
                WHEN f.type = 'money' THEN (v ->> 'amount')::numeric END AS n,
           CASE WHEN f.type = 'timestamp' THEN (v #>> '{}')::timestamptz
                WHEN f.type = 'date' THEN (v #>> '{}')::date::timestamp AT TIME ZONE 'UTC' END AS d,
           CASE WHEN f.type = 'boolean' THEN (v #>> '{}')::boolean END AS b
    FROM (SELECT NULL::text AS e WHERE f.type <> 'multi_select'
          UNION ALL SELECT jsonb_array_elements_text(v) WHERE f.type = 'multi_select') o
  ) x
  WHERE v IS NOT NULL AND jsonb_typeof(v) <> 'null'
$$;

--
-- Name: ws_custom_searchable(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_searchable() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(ws_custom_lock_key(NEW.workspace_id, NEW.resource));
  UPDATE custom_values SET searched = NEW.searchable
   WHERE field_id = NEW.id AND (t IS NOT NULL OR s IS NOT NULL) AND searched <> NEW.searchable;
  RETURN NULL;
END
$$;

--
-- Name: ws_custom_set(text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_set(typ text, v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
  SELECT v IS NOT NULL AND jsonb_typeof(v) <> 'null'
     AND (typ <> 'multi_select' OR (jsonb_typeof(v) = 'array' AND jsonb_array_length(v) > 0))
$$;

--
-- Name: ws_custom_shown(uuid, text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_shown(ws uuid, res text, v jsonb) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
  SELECT CASE WHEN v IS NULL OR jsonb_typeof(v) <> 'object' OR v = '{}' THEN '{}'::jsonb
    ELSE v - ws_custom_archived(ws, res) END
$$;

--
-- Name: ws_custom_sort_b(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_sort_b(doc jsonb, key text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    AS $_$
DECLARE
  v jsonb := doc -> key;
BEGIN
  CASE jsonb_typeof(v)
    WHEN 'boolean' THEN
      RETURN v::boolean;
    WHEN 'string' THEN
      IF (v #>> '{}') ~* '^\s*(t(r(ue?)?)?|y(es?)?|on|off?|1|f(a(l(se?)?)?)?|no?|0)\s*$' THEN
        RETURN (v #>> '{}')::boolean;
      END IF;
      RETURN NULL;
    ELSE
      RETURN NULL;
  END CASE;
END
$_$;

--
-- Name: ws_custom_sort_d(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_sort_d(doc jsonb, key text) RETURNS timestamp with time zone
    LANGUAGE plpgsql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    AS $_$
DECLARE
  v jsonb := doc -> key;
  s text;
  y int;
  m int;
  days int;
BEGIN
  IF v IS NULL OR jsonb_typeof(v) <> 'string' THEN
    RETURN NULL;
  END IF;
  s := v #>> '{}';
  IF s !~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?([Zz]|[+-](0[0-9]|1[0-5]):[0-5][0-9]))?$' THEN
    RETURN NULL;
  END IF;
  y := substr(s, 1, 4)::int;
  m := substr(s, 6, 2)::int;
  days := 31;
  IF m IN (4, 6, 9, 11) THEN
    days := 30;
  ELSIF m = 2 AND y % 4 = 0 AND (y % 100 <> 0 OR y % 400 = 0) THEN
    days := 29;
  ELSIF m = 2 THEN
    days := 28;
  END IF;
  IF y = 0 OR substr(s, 9, 2)::int > days THEN
    RETURN NULL;
  END IF;
  IF length(s) = 10 THEN
    RETURN s::date::timestamp AT TIME ZONE 'UTC';
  END IF;
  RETURN s::timestamptz;
END
$_$;

--
-- Name: ws_custom_sort_n(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_sort_n(doc jsonb, key text) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    AS $_$
DECLARE
  v jsonb := doc -> key;
  s text;
BEGIN
  CASE jsonb_typeof(v)
    WHEN 'number' THEN
      RETURN v::numeric;
    WHEN 'string' THEN
      s := v #>> '{}';
    WHEN 'object' THEN
      CASE jsonb_typeof(v -> 'amount')
        WHEN 'number' THEN
          RETURN (v -> 'amount')::numeric;
        WHEN 'string' THEN
          s := v ->> 'amount';
        ELSE
          RETURN NULL;
      END CASE;
    ELSE
      RETURN NULL;
  END CASE;
  IF length(s) <= 1000 AND s ~ '^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,4})?\s*$' THEN
    RETURN s::numeric;
  END IF;
  RETURN NULL;
END
$_$;

--
-- Name: ws_custom_sort_t(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_sort_t(doc jsonb, key text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    AS $$
DECLARE
  v jsonb := doc -> key;
  s text;
BEGIN
  IF jsonb_typeof(v) IN ('string', 'number', 'boolean') THEN
    s := v #>> '{}';
    IF octet_length(s) <= 2600 THEN
      RETURN s;
    END IF;
    RETURN left(s, 500);
  END IF;
  RETURN NULL;
END
$$;

--
-- Name: ws_custom_value_head(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_value_head(doc jsonb, key text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    AS $$
BEGIN
  IF jsonb_typeof(doc -> key) IN ('string', 'number', 'boolean') THEN
    RETURN left((doc -> key) #>> '{}', 64);
  END IF;
  RETURN NULL;
END
$$;

--
-- Name: ws_custom_value_t(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_custom_value_t(doc jsonb, key text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    AS $$
DECLARE
  s text;
BEGIN
  IF jsonb_typeof(doc -> key) IN ('string', 'number', 'boolean') THEN
    s := (doc -> key) #>> '{}';
    IF octet_length(s) <= 255 THEN
      RETURN s;
    END IF;
  END IF;
  RETURN NULL;
END
$$;

--
-- Name: ws_deal_status(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_deal_status() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
BEGIN
  NEW.status := coalesce((SELECT s.outcome FROM pipeline_stages s
                           WHERE s.workspace_id = NEW.workspace_id AND s.id = NEW.pipeline_stage_id), 'open');
  RETURN NEW;
END
$$;

--
-- Name: ws_domain(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_domain(url text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
  SELECT nullif(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
           split_part(split_part(split_part(
             regexp_replace(lower(btrim(url)), '^[a-z][a-z0-9+.-]*://', ''), '/', 1), '?', 1), '#', 1),
           '^.*@', ''), ':[0-9]*$', ''), '^www\.', ''), '\.$', ''), '')
$_$;

--
-- Name: ws_event_to_outbox(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_event_to_outbox() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO webhook_outbox (seq, id, workspace_id, type, object, object_id, record, changed, endpoint_id, endpoint_ids, created_at)
  VALUES (NEW.seq, NEW.id, NEW.workspace_id, NEW.type, NEW.object, NEW.object_id, NEW.record, NEW.changed,
          NEW.endpoint_id, NEW.endpoint_ids, NEW.created_at);
  RETURN NULL;
END
$$;

--
-- Name: ws_ilike(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_ilike(s text, pattern text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    AS $$
BEGIN
  IF (length(pattern) - length(rtrim(pattern, '\'))) % 2 = 1 THEN
    RETURN false;
  END IF;
  RETURN s ILIKE pattern;
END $$;

--
-- Name: ws_protect(text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_protect(tbl text, resource text, feature text, writes text) RETURNS void
    LANGUAGE plpgsql
    AS $_$
DECLARE
  readable text := format('workspace_id = (SELECT CASE WHEN app_grant(%L) IN (''read'', ''full'') THEN app_workspace_id() END)', feature);
  writable text := format('workspace_id = (SELECT CASE WHEN app_grant(%L) = ''full'' THEN app_workspace_id() END)', feature);
BEGIN
  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', tbl);
  EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', tbl);
  IF feature = '' THEN
    EXECUTE format($p$CREATE POLICY ws_isolation ON %I
        USING (workspace_id = (SELECT app_workspace_id()))
        WITH CHECK (workspace_id = (SELECT app_workspace_id()))$p$, tbl);
  ELSE
    EXECUTE format('CREATE POLICY ws_read ON %I FOR SELECT USING (%s)', tbl, readable);
    EXECUTE format('CREATE POLICY ws_insert ON %I FOR INSERT WITH CHECK (%s)', tbl, writable);
    EXECUTE format('CREATE POLICY ws_update ON %I FOR UPDATE USING (workspace_id = (SELECT app_workspace_id())) WITH CHECK (%s)',
      tbl, writable);
    EXECUTE format('CREATE POLICY ws_delete ON %I FOR DELETE USING (%s)', tbl, writable);
  END IF;
  EXECUTE format('GRANT SELECT ON %I TO workspaced_app', tbl);
  IF writes = 'write' THEN
    EXECUTE format('GRANT INSERT, UPDATE ON %I TO workspaced_app', tbl);
  ELSIF writes = 'detach' THEN
    EXECUTE format('GRANT INSERT, DELETE ON %I TO workspaced_app', tbl);
  END IF;
  EXECUTE format('CREATE INDEX %I ON %I (workspace_id, created_at DESC, id DESC)', tbl || '_keyset', tbl);
  EXECUTE format('CREATE INDEX %I ON %I (workspace_id, updated_at, id)', tbl || '_sync', tbl);
  EXECUTE format('CREATE TRIGGER touch BEFORE UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION ws_touch()', tbl);
  IF writes <> 'none' THEN
    EXECUTE format('CREATE TRIGGER activity AFTER UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION ws_record_activity(%L, %L)',
      tbl, resource, feature);
    EXECUTE format('CREATE TRIGGER activity_rows AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ws_record_activity_rows(%L, %L)',
      tbl, resource, feature);
    EXECUTE format('CREATE TRIGGER webhook_event AFTER UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION ws_record_event(%L, %L)',
      tbl, resource, feature);
    EXECUTE format('CREATE TRIGGER webhook_event_rows AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ws_record_event_rows(%L, %L)',
      tbl, resource, feature);
  END IF;
END
$_$;

--
-- Name: ws_protect_private(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_protect_private(tbl text) RETURNS void
    LANGUAGE plpgsql
    AS $_$
BEGIN
  EXECUTE format($p$CREATE POLICY ws_private ON %I AS RESTRICTIVE
      USING (NOT is_private OR created_by = (SELECT app_user_id()) OR assignee_id = (SELECT app_user_id())
             OR (SELECT app_user_id()) = ANY (assignee_ids) OR (SELECT app_is_admin()))
      WITH CHECK (NOT is_private OR created_by = (SELECT app_user_id()) OR assignee_id = (SELECT app_user_id())
             OR (SELECT app_user_id()) = ANY (assignee_ids) OR (SELECT app_is_admin()))$p$, tbl);
END
$_$;

--
-- Name: ws_record_activity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_record_activity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
  actor uuid := app_user_id();
  rec jsonb;
  prior jsonb;
  diff jsonb;
  act text;
  owned text[] := ARRAY['id', 'workspace_id', 'created_by', 'created_at', 'updated_at'];
BEGIN
  IF actor IS NULL THEN
    RETURN NULL; -- seeding and the admin CLI act outside a request
  END IF;
  IF TG_OP = 'INSERT' THEN
    rec := to_jsonb(NEW) - 'search_doc'; act := 'created'; diff := jsonb_strip_nulls(rec - owned);
  ELSIF TG_OP = 'UPDATE' THEN
    rec := to_jsonb(NEW) - 'search_doc'; act := 'updated'; prior := to_jsonb(OLD);
    IF rec ->> 'merged_into_id' IS NOT NULL AND prior ->> 'merged_into_id' IS NULL THEN
      act := 'merged';
    END IF;
    SELECT coalesce(jsonb_object_agg(n.key, n.value), '{}') INTO diff
      FROM jsonb_each(rec) n
     WHERE n.key <> 'updated_at' AND n.value IS DISTINCT FROM (prior -> n.key);
  ELSE
    rec := to_jsonb(OLD) - 'search_doc'; act := 'detached'; diff := jsonb_strip_nulls(rec - owned);
  END IF;
  diff := ws_custom_changes(diff, prior -> 'custom_fields');
  INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes, feature)
  VALUES (app_workspace_id(), TG_ARGV[0], (rec ->> 'id')::uuid, act, actor, diff, nullif(TG_ARGV[1], ''));
  RETURN NULL;
END
$$;

--
-- Name: ws_record_activity_rows(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_record_activity_rows() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
  actor uuid := app_user_id();
BEGIN
  IF actor IS NULL THEN
    RETURN NULL; -- seeding and the admin CLI act outside a request
  END IF;
  INSERT INTO activity (workspace_id, entity_type, entity_id, action, actor_id, changes, feature)
  SELECT app_workspace_id(), TG_ARGV[0], (r ->> 'id')::uuid, 'created', actor,
         CASE WHEN d ? 'custom_fields'
              THEN (d - 'custom_fields') || coalesce((SELECT jsonb_object_agg('custom_fields.' || e.key, e.value)
                FROM jsonb_each(CASE WHEN jsonb_typeof(d -> 'custom_fields') = 'object' THEN d -> 'custom_fields' ELSE '{}' END) e), '{}')
              ELSE d END,
         nullif(TG_ARGV[1], '')
    FROM (SELECT r, jsonb_strip_nulls(r - ARRAY['id', 'workspace_id', 'created_by', 'created_at', 'updated_at']) AS d
            FROM (SELECT to_jsonb(n) - 'search_doc' AS r FROM new_rows n OFFSET 0) s0 OFFSET 0) s; -- OFFSET 0: see above
  RETURN NULL;
END
$$;

--
-- Name: ws_record_event(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_record_event() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
DECLARE
  ws uuid := app_workspace_id();
  act text := CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'detached' END;
  typ text;
  rec jsonb;
  prior jsonb;
  diff text[];
  targets uuid[];
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL; -- as ws_record_activity: seeding and the admin CLI act outside a request
  END IF;
  IF TG_OP = 'UPDATE' AND to_jsonb(NEW) ->> 'merged_into_id' IS NOT NULL AND to_jsonb(OLD) ->> 'merged_into_id' IS NULL THEN
    act := 'merged';
  END IF;
  typ := TG_ARGV[0] || '.' || act;
  SELECT array_agg(id) INTO targets FROM webhook_endpoints
   WHERE workspace_id = ws AND enabled AND events && ARRAY['*', TG_ARGV[0] || '.*', typ];
  IF targets IS NULL THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    rec := to_jsonb(OLD) - 'search_doc';
  ELSE
    rec := to_jsonb(NEW) - 'search_doc';
  END IF;
  IF TG_OP = 'UPDATE' THEN
    prior := to_jsonb(OLD);
    SELECT coalesce(array_agg(n.key ORDER BY n.key), '{}') INTO diff
      FROM jsonb_object_keys(ws_custom_changes((SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(rec) e
              WHERE e.key <> 'updated_at' AND e.value IS DISTINCT FROM (prior -> e.key)), prior -> 'custom_fields')) n(key);
  END IF;
  IF rec ? 'custom_fields' THEN -- archived fields stay out of events, as out of reads
    rec := jsonb_set(rec, '{custom_fields}', ws_custom_shown(ws, TG_ARGV[0], rec -> 'custom_fields'));
  END IF;
  IF TG_ARGV[0] = 'webhook_endpoints' AND jsonb_typeof(rec -> 'url') = 'string' THEN
    rec := jsonb_set(rec, '{url}', to_jsonb(ws_redact_url(rec ->> 'url')));
  END IF;
  INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  VALUES (ws, typ, TG_ARGV[0], (rec ->> 'id')::uuid, rec, diff, targets);
  RETURN NULL;
END
$$;

--
-- Name: ws_record_event_rows(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_record_event_rows() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
DECLARE
  ws uuid := app_workspace_id();
  typ text := TG_ARGV[0] || '.created';
  targets uuid[];
  archived text[];
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(id) INTO targets FROM webhook_endpoints
   WHERE workspace_id = ws AND enabled AND events && ARRAY['*', TG_ARGV[0] || '.*', typ];
  IF targets IS NULL THEN
    RETURN NULL;
  END IF;
  archived := ws_custom_archived(ws, TG_ARGV[0]);
  INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  SELECT ws, typ, TG_ARGV[0], (r ->> 'id')::uuid, r, NULL, targets
    FROM (SELECT CASE WHEN TG_ARGV[0] = 'webhook_endpoints' AND jsonb_typeof(c -> 'url') = 'string'
                      THEN jsonb_set(c, '{url}', to_jsonb(ws_redact_url(c ->> 'url'))) ELSE c END AS r
            FROM (SELECT CASE WHEN r0 ? 'custom_fields' -- archived fields stay out of events
                              THEN jsonb_set(r0, '{custom_fields}', CASE WHEN jsonb_typeof(r0 -> 'custom_fields') = 'object'
                                                                         THEN (r0 -> 'custom_fields') - archived ELSE '{}' END)
                              ELSE r0 END AS c
                    FROM (SELECT to_jsonb(n) - 'search_doc' AS r0 FROM new_rows n OFFSET 0) a OFFSET 0) b OFFSET 0) s; -- OFFSET 0: see above
  RETURN NULL;
END
$$;

--
-- Name: ws_redact_url(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_redact_url(u text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $_$
  SELECT CASE WHEN m IS NULL THEN '[redacted]'
    ELSE m[1] || regexp_replace(m[2], '^.*@', '') || CASE WHEN m[3] IN ('', '/') THEN m[3] ELSE '/[redacted]' END
  END
  FROM regexp_match(u, '^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)(.*)$') AS m
$_$;

--
-- Name: ws_resource_table(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_resource_table(tbl text, cols text) RETURNS void
    LANGUAGE plpgsql
    AS $_$
BEGIN
  EXECUTE format($t$CREATE TABLE %I (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id uuid NOT NULL DEFAULT app_workspace_id() REFERENCES workspaces (id),
      created_by uuid DEFAULT app_user_id(),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      %s,
      UNIQUE (workspace_id, id),
      FOREIGN KEY (workspace_id, created_by) REFERENCES users (workspace_id, id)
    )$t$, tbl, cols);
END
$_$;

--
-- Name: ws_search_doc(text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_search_doc(VARIADIC text[]) RETURNS tsvector
    LANGUAGE plpgsql IMMUTABLE LEAKPROOF PARALLEL SAFE
    AS $_$
DECLARE s text := array_to_string($1, ' ');
BEGIN
  IF s ~ '[@.]' THEN
    s := s || ' ' || public.ws_address_words(s);
  END IF;
  RETURN to_tsvector('simple', public.ws_unaccent(s));
END $_$;

--
-- Name: ws_stage_outcome(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_stage_outcome() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public'
    AS $$
BEGIN
  UPDATE deals SET status = NEW.outcome
   WHERE workspace_id = NEW.workspace_id AND pipeline_stage_id = NEW.id AND status <> NEW.outcome;
  RETURN NULL;
END
$$;

--
-- Name: ws_stamp_review(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_stamp_review() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF (TG_OP = 'INSERT' AND NEW.status IS NOT NULL AND NEW.status <> 'pending')
    OR (TG_OP = 'UPDATE' AND NEW.status IS DISTINCT FROM OLD.status) THEN
    NEW.reviewed_by := app_user_id();
    NEW.reviewed_at := now();
  END IF;
  RETURN NEW;
END
$$;

--
-- Name: ws_sync_horizon(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_sync_horizon() RETURNS timestamp with time zone
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog'
    AS $$
  SELECT least(statement_timestamp(), min(a.xact_start))
  FROM pg_stat_activity a
  WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
    AND a.backend_type = 'client backend'
    AND (a.application_name NOT LIKE 'workspaced ws:%'
      OR a.application_name = 'workspaced ws:' || current_setting('app.workspace_id', true))
$$;

--
-- Name: ws_task_assignees(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_task_assignees() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  NEW.assignee_ids := coalesce(NEW.assignee_ids, '{}');
  IF TG_OP = 'UPDATE' AND NEW.assignee_ids IS NOT DISTINCT FROM OLD.assignee_ids
     AND NEW.assignee_id IS DISTINCT FROM OLD.assignee_id THEN
    -- Only assignee_id was written: it takes the old first assignee's place.
    NEW.assignee_ids := array_remove(NEW.assignee_ids, OLD.assignee_id);
  ELSIF TG_OP = 'UPDATE' AND NEW.assignee_ids IS DISTINCT FROM OLD.assignee_ids
     AND NEW.assignee_id IS NOT DISTINCT FROM OLD.assignee_id THEN
    -- Only the list was written: its first is the assignee.
    NEW.assignee_id := NEW.assignee_ids[1];
  END IF;
  IF NEW.assignee_id IS NOT NULL THEN
    NEW.assignee_ids := NEW.assignee_id || array_remove(NEW.assignee_ids, NEW.assignee_id);
  ELSE
    NEW.assignee_id := NEW.assignee_ids[1];
  END IF;
  RETURN NEW;
END
$$;

--
-- Name: ws_touch(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_touch() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  NEW.updated_at := greatest(clock_timestamp(), OLD.updated_at + interval '1 microsecond');
  RETURN NEW;
END
$$;

--
-- Name: ws_unaccent(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ws_unaccent(text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    AS $_$ BEGIN RETURN public.unaccent('public.unaccent'::regdictionary, $1); END $_$;

--
-- Name: ~~*!; Type: OPERATOR; Schema: public; Owner: -
--

CREATE OPERATOR public.~~*! (
    FUNCTION = public.ws_ilike,
    LEFTARG = text,
    RIGHTARG = text,
    RESTRICT = iclikesel,
    JOIN = iclikejoinsel
);

--
-- Name: ws_trgm_ops; Type: OPERATOR FAMILY; Schema: public; Owner: -
--

CREATE OPERATOR FAMILY public.ws_trgm_ops USING gin;
ALTER OPERATOR FAMILY public.ws_trgm_ops USING gin ADD
    OPERATOR 4 public.~~*!(text,text) ,
    OPERATOR 7 public.%>(text,text) ,
    FUNCTION 1 (text, text) btint4cmp(integer,integer) ,
    FUNCTION 4 (text, text) public.gin_trgm_consistent(internal,smallint,text,integer,internal,internal,internal,internal) ,
    FUNCTION 6 (text, text) public.gin_trgm_triconsistent(internal,smallint,text,integer,internal,internal,internal);

--
-- Name: ws_trgm_ops; Type: OPERATOR CLASS; Schema: public; Owner: -
--

CREATE OPERATOR CLASS public.ws_trgm_ops
    FOR TYPE text USING gin FAMILY public.ws_trgm_ops AS
    STORAGE integer ,
    FUNCTION 2 (text, text) public.gin_extract_value_trgm(text,internal) ,
    FUNCTION 3 (text, text) public.gin_extract_query_trgm(text,internal,smallint,internal,internal,internal,internal);

--
-- Name: activity; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.activity (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    entity_type text NOT NULL,
    entity_id uuid,
    action text NOT NULL,
    actor_id uuid,
    changes jsonb,
    feature text,
    credential text,
    client jsonb,
    via text
);

ALTER TABLE ONLY public.activity FORCE ROW LEVEL SECURITY;

--
-- Name: agent_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.agent_keys (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    key_hash bytea NOT NULL,
    hint text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    last_used_at timestamp with time zone
);

--
-- Name: agents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.agents (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    user_id uuid NOT NULL,
    name text NOT NULL,
    description text,
    is_default boolean DEFAULT false NOT NULL,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, description])) STORED
);

ALTER TABLE ONLY public.agents FORCE ROW LEVEL SECURITY;

--
-- Name: automation_logs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.automation_logs (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    automation_id uuid,
    success boolean DEFAULT false NOT NULL,
    message text,
    details jsonb,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[message])) STORED
);

ALTER TABLE ONLY public.automation_logs FORCE ROW LEVEL SECURITY;

--
-- Name: automations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.automations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    enabled boolean DEFAULT false NOT NULL,
    trigger jsonb,
    conditions jsonb,
    condition_logic text,
    actions jsonb,
    section text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.automations FORCE ROW LEVEL SECURITY;

--
-- Name: canvases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.canvases (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text,
    type text NOT NULL,
    data jsonb,
    folder_id uuid,
    is_knowledge_base boolean DEFAULT false NOT NULL,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.canvases FORCE ROW LEVEL SECURITY;

--
-- Name: comments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.comments (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    entity_type text NOT NULL,
    entity_id uuid NOT NULL,
    content text NOT NULL,
    user_id uuid DEFAULT public.app_user_id(),
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[content])) STORED,
    CONSTRAINT comments_entity_type_check CHECK ((entity_type = ANY (ARRAY['deal'::text, 'task'::text])))
);

ALTER TABLE ONLY public.comments FORCE ROW LEVEL SECURITY;

--
-- Name: companies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.companies (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    website text,
    instagram text,
    linkedin text,
    twitter text,
    industry text,
    size text,
    notes text,
    custom_fields jsonb,
    merged_into_id uuid,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, industry, notes, website])) STORED,
    CONSTRAINT companies_custom_fields_check CHECK ((jsonb_typeof(custom_fields) = 'object'::text))
);

ALTER TABLE ONLY public.companies FORCE ROW LEVEL SECURITY;

--
-- Name: competitor_reports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.competitor_reports (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    workflow_id uuid,
    importance text,
    title text,
    content text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[title, content])) STORED
);

ALTER TABLE ONLY public.competitor_reports FORCE ROW LEVEL SECURITY;

--
-- Name: competitor_workflows; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.competitor_workflows (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text,
    status text,
    space_id uuid,
    config jsonb,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.competitor_workflows FORCE ROW LEVEL SECURITY;

--
-- Name: credential_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credential_usage (
    workspace_id uuid NOT NULL,
    day date NOT NULL,
    credential text NOT NULL,
    client_name text DEFAULT ''::text NOT NULL,
    requests bigint NOT NULL,
    CONSTRAINT credential_usage_requests_check CHECK ((requests >= 0))
);

--
-- Name: credit_balances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credit_balances (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    balance bigint DEFAULT 0 NOT NULL,
    CONSTRAINT credit_balances_balance_check CHECK ((balance >= 0))
);

ALTER TABLE ONLY public.credit_balances FORCE ROW LEVEL SECURITY;

--
-- Name: credit_holds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credit_holds (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    amount bigint NOT NULL,
    domain text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT credit_holds_amount_check CHECK ((amount > 0))
);

ALTER TABLE ONLY public.credit_holds FORCE ROW LEVEL SECURITY;

--
-- Name: credit_ledger; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credit_ledger (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    delta bigint NOT NULL,
    reason text NOT NULL,
    domain text
);

ALTER TABLE ONLY public.credit_ledger FORCE ROW LEVEL SECURITY;

--
-- Name: crm_files; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.crm_files (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    deal_id uuid,
    name text,
    url text,
    storage_path text,
    mime_type text,
    size_bytes bigint,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.crm_files FORCE ROW LEVEL SECURITY;

--
-- Name: custom_absent; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.custom_absent (
    workspace_id uuid NOT NULL,
    field_id uuid NOT NULL,
    record_id uuid NOT NULL
);

ALTER TABLE ONLY public.custom_absent FORCE ROW LEVEL SECURITY;

--
-- Name: custom_field_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.custom_field_versions (
    workspace_id uuid NOT NULL,
    version bigint NOT NULL
);

ALTER TABLE ONLY public.custom_field_versions FORCE ROW LEVEL SECURITY;

--
-- Name: deal_labels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deal_labels (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    deal_id uuid NOT NULL,
    label_id uuid NOT NULL
);

ALTER TABLE ONLY public.deal_labels FORCE ROW LEVEL SECURITY;

--
-- Name: deal_people; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deal_people (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    deal_id uuid NOT NULL,
    person_id uuid NOT NULL,
    role text,
    is_primary boolean DEFAULT false NOT NULL
);

ALTER TABLE ONLY public.deal_people FORCE ROW LEVEL SECURITY;

--
-- Name: deal_tasks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deal_tasks (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    deal_id uuid NOT NULL,
    name text NOT NULL,
    assignee_id uuid,
    assignee_ids uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    due_date date,
    start_date date,
    priority integer,
    completed boolean DEFAULT false NOT NULL,
    description text,
    is_private boolean DEFAULT false NOT NULL,
    custom_fields jsonb,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, description])) STORED,
    CONSTRAINT deal_tasks_assignees_agree CHECK ((NOT (assignee_id IS DISTINCT FROM assignee_ids[1]))),
    CONSTRAINT deal_tasks_custom_fields_check CHECK ((jsonb_typeof(custom_fields) = 'object'::text)),
    CONSTRAINT deal_tasks_priority_check CHECK (((priority >= 0) AND (priority <= 4)))
);

ALTER TABLE ONLY public.deal_tasks FORCE ROW LEVEL SECURITY;

--
-- Name: deals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deals (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    pipeline_id uuid NOT NULL,
    pipeline_stage_id uuid,
    owner_id uuid,
    value numeric,
    confidence numeric,
    website text,
    instagram text,
    twitter text,
    notes text,
    company_id uuid,
    status text DEFAULT 'open'::text NOT NULL,
    custom_fields jsonb,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, notes])) STORED,
    CONSTRAINT deals_custom_fields_check CHECK ((jsonb_typeof(custom_fields) = 'object'::text)),
    CONSTRAINT deals_status_check CHECK ((status = ANY (ARRAY['open'::text, 'won'::text, 'lost'::text])))
);

ALTER TABLE ONLY public.deals FORCE ROW LEVEL SECURITY;

--
-- Name: debt_payments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.debt_payments (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    debt_id uuid NOT NULL,
    amount numeric NOT NULL,
    date date NOT NULL
);

ALTER TABLE ONLY public.debt_payments FORCE ROW LEVEL SECURITY;

--
-- Name: debts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.debts (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    total_amount numeric NOT NULL,
    paid_amount numeric,
    expense_type text NOT NULL,
    notes text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, notes])) STORED
);

ALTER TABLE ONLY public.debts FORCE ROW LEVEL SECURITY;

--
-- Name: departments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.departments (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.departments FORCE ROW LEVEL SECURITY;

--
-- Name: documents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.documents (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    content text,
    icon text,
    icon_color text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, content])) STORED
);

ALTER TABLE ONLY public.documents FORCE ROW LEVEL SECURITY;

--
-- Name: enrichment_cache; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.enrichment_cache (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    domain text NOT NULL,
    result jsonb NOT NULL,
    fetched_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.enrichment_cache FORCE ROW LEVEL SECURITY;

--
-- Name: expenses; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.expenses (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    date date NOT NULL,
    amount numeric NOT NULL,
    type text NOT NULL,
    recurrence text,
    avatar_url text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, type])) STORED,
    CONSTRAINT expenses_recurrence_check CHECK ((recurrence = ANY (ARRAY['one_time'::text, 'monthly'::text])))
);

ALTER TABLE ONLY public.expenses FORCE ROW LEVEL SECURITY;

--
-- Name: finance_categories; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.finance_categories (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    key text NOT NULL,
    label text NOT NULL,
    kind text NOT NULL,
    pl_section text NOT NULL,
    sort integer,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[key, label])) STORED,
    CONSTRAINT finance_categories_kind_check CHECK ((kind = ANY (ARRAY['income'::text, 'expense'::text]))),
    CONSTRAINT finance_categories_pl_section_check CHECK ((pl_section = ANY (ARRAY['revenue'::text, 'contra_revenue'::text, 'cm1'::text, 'cm2'::text, 'cm3'::text])))
);

ALTER TABLE ONLY public.finance_categories FORCE ROW LEVEL SECURITY;

--
-- Name: goose_db_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.goose_db_version (
    id integer NOT NULL,
    version_id bigint NOT NULL,
    is_applied boolean NOT NULL,
    tstamp timestamp without time zone DEFAULT now() NOT NULL
);

--
-- Name: goose_db_version_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.goose_db_version ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.goose_db_version_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: hr_change_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.hr_change_requests (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    member_id uuid NOT NULL,
    type text,
    message text,
    status text,
    reviewed_by uuid,
    reviewed_at timestamp with time zone,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[message])) STORED
);

ALTER TABLE ONLY public.hr_change_requests FORCE ROW LEVEL SECURITY;

--
-- Name: hr_contracts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.hr_contracts (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    member_id uuid NOT NULL,
    name text,
    type text,
    url text,
    storage_path text,
    date date,
    is_current boolean DEFAULT false NOT NULL,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.hr_contracts FORCE ROW LEVEL SECURITY;

--
-- Name: idempotency_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency_keys (
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    credential text NOT NULL,
    key text NOT NULL,
    fingerprint bytea NOT NULL,
    response_status integer,
    response_body bytea,
    locked_until timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.idempotency_keys FORCE ROW LEVEL SECURITY;

--
-- Name: import_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.import_chunks (
    import_id uuid NOT NULL,
    first_row bigint NOT NULL,
    rows integer NOT NULL,
    end_offset bigint,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    keys text[] DEFAULT '{}'::text[] NOT NULL,
    key_rows bigint[] DEFAULT '{}'::bigint[] NOT NULL
);

ALTER TABLE ONLY public.import_chunks FORCE ROW LEVEL SECURITY;

--
-- Name: import_errors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.import_errors (
    import_id uuid NOT NULL,
    row_number bigint NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    reason text NOT NULL,
    cells text[] NOT NULL
);

ALTER TABLE ONLY public.import_errors FORCE ROW LEVEL SECURITY;

--
-- Name: import_parts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.import_parts (
    import_id uuid NOT NULL,
    seq integer NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    data bytea NOT NULL
);

ALTER TABLE ONLY public.import_parts FORCE ROW LEVEL SECURITY;

--
-- Name: imports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.imports (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    user_id uuid DEFAULT public.app_user_id() NOT NULL,
    resource text NOT NULL,
    operation text NOT NULL,
    match text,
    mapping jsonb NOT NULL,
    format text NOT NULL,
    delimiter text DEFAULT ','::text NOT NULL,
    date_format text DEFAULT ''::text NOT NULL,
    size bigint DEFAULT 0 NOT NULL,
    header text[],
    status text DEFAULT 'queued'::text NOT NULL,
    cancel_requested boolean DEFAULT false NOT NULL,
    row_offset bigint DEFAULT 0 NOT NULL,
    rows_created bigint DEFAULT 0 NOT NULL,
    rows_updated bigint DEFAULT 0 NOT NULL,
    rows_failed bigint DEFAULT 0 NOT NULL,
    failure text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    CONSTRAINT imports_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'completed'::text, 'failed'::text, 'cancelled'::text])))
);

ALTER TABLE ONLY public.imports FORCE ROW LEVEL SECURITY;

--
-- Name: income; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.income (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    date date NOT NULL,
    amount numeric NOT NULL,
    type text NOT NULL,
    recurrence text,
    avatar_url text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, type])) STORED,
    CONSTRAINT income_recurrence_check CHECK ((recurrence = ANY (ARRAY['one_time'::text, 'monthly'::text])))
);

ALTER TABLE ONLY public.income FORCE ROW LEVEL SECURITY;

--
-- Name: knowledge; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.knowledge (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    type text,
    url text,
    storage_path text,
    mime_type text,
    size_bytes bigint,
    source text,
    content text,
    icon_url text,
    external_id text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, content])) STORED
);

ALTER TABLE ONLY public.knowledge FORCE ROW LEVEL SECURITY;

--
-- Name: labels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.labels (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.labels FORCE ROW LEVEL SECURITY;

--
-- Name: leave_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.leave_requests (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    leave_date date NOT NULL,
    return_date date NOT NULL,
    reason text NOT NULL,
    type text,
    status text DEFAULT 'pending'::text NOT NULL,
    review_reason text,
    user_id uuid DEFAULT public.app_user_id(),
    reviewed_by uuid,
    reviewed_at timestamp with time zone,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[reason])) STORED,
    CONSTRAINT leave_requests_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text]))),
    CONSTRAINT leave_requests_type_check CHECK ((type = ANY (ARRAY['annual'::text, 'sick'::text, 'personal'::text])))
);

ALTER TABLE ONLY public.leave_requests FORCE ROW LEVEL SECURITY;

--
-- Name: member_links; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.member_links (
    token_hash bytea NOT NULL,
    user_id uuid NOT NULL,
    purpose text NOT NULL,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    CONSTRAINT member_links_purpose_check CHECK ((purpose = ANY (ARRAY['invite'::text, 'reset'::text])))
);

--
-- Name: member_sign_ins; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.member_sign_ins (
    user_id uuid NOT NULL,
    last_at timestamp with time zone NOT NULL
);

--
-- Name: metric_entries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.metric_entries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    metric_id uuid NOT NULL,
    entry_kind text NOT NULL,
    value numeric,
    from_ts timestamp with time zone,
    to_ts timestamp with time zone,
    note text,
    user_id uuid DEFAULT public.app_user_id(),
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[note])) STORED,
    CONSTRAINT metric_entries_entry_kind_check CHECK ((entry_kind = ANY (ARRAY['number'::text, 'date_range'::text, 'time_range'::text])))
);

ALTER TABLE ONLY public.metric_entries FORCE ROW LEVEL SECURITY;

--
-- Name: metric_pages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.metric_pages (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    "position" integer,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.metric_pages FORCE ROW LEVEL SECURITY;

--
-- Name: metrics; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.metrics (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    kind text,
    formula text,
    format text,
    date_range text,
    date_from date,
    date_to date,
    manual_type text,
    agg text,
    page_id uuid,
    "position" integer,
    slug text,
    member_ids uuid[],
    space_ids uuid[],
    pipeline_ids uuid[],
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, slug])) STORED,
    CONSTRAINT metrics_agg_check CHECK ((agg = ANY (ARRAY['avg'::text, 'sum'::text, 'count'::text, 'latest'::text]))),
    CONSTRAINT metrics_format_check CHECK ((format = ANY (ARRAY['number'::text, 'currency'::text, 'percent'::text, 'days'::text, 'hours'::text]))),
    CONSTRAINT metrics_kind_check CHECK ((kind = ANY (ARRAY['formula'::text, 'date_diff'::text, 'manual'::text]))),
    CONSTRAINT metrics_manual_type_check CHECK ((manual_type = ANY (ARRAY['number'::text, 'date_range'::text, 'time_range'::text])))
);

ALTER TABLE ONLY public.metrics FORCE ROW LEVEL SECURITY;

--
-- Name: oauth_access_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_access_tokens (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    family_id uuid NOT NULL,
    refresh_id uuid,
    token_hash bytea NOT NULL,
    scopes text[] NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone,
    resource text
);

--
-- Name: oauth_client_blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_client_blocks (
    workspace_id uuid NOT NULL,
    client_id text NOT NULL,
    blocked_by uuid,
    blocked_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: oauth_clients; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_clients (
    id text NOT NULL,
    workspace_id uuid,
    name text NOT NULL,
    logo_uri text,
    client_uri text,
    redirect_uris text[] NOT NULL,
    scope text[],
    secret_hash bytea,
    verified boolean DEFAULT false NOT NULL,
    dynamic boolean DEFAULT false NOT NULL,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    disabled_at timestamp with time zone,
    CONSTRAINT oauth_clients_redirect_uris_check CHECK (((cardinality(redirect_uris) >= 1) AND (cardinality(redirect_uris) <= 10)))
);

--
-- Name: oauth_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_codes (
    code_hash bytea NOT NULL,
    client_id text NOT NULL,
    user_id uuid NOT NULL,
    workspace_id uuid NOT NULL,
    redirect_uri text NOT NULL,
    redirect_uri_given boolean NOT NULL,
    code_challenge text NOT NULL,
    scopes text[] NOT NULL,
    resource text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    family_id uuid
);

--
-- Name: oauth_consents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_consents (
    user_id uuid NOT NULL,
    client_id text NOT NULL,
    scopes text[] NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    redirect_uris text[] DEFAULT '{}'::text[] NOT NULL
);

--
-- Name: oauth_families; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_families (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    client_id text NOT NULL,
    user_id uuid NOT NULL,
    workspace_id uuid NOT NULL,
    scopes text[] NOT NULL,
    resource text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);

--
-- Name: oauth_refresh_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_refresh_tokens (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    family_id uuid NOT NULL,
    token_hash bytea NOT NULL,
    generation integer NOT NULL,
    scopes text[] NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    retired_at timestamp with time zone,
    revoked_at timestamp with time zone
);

--
-- Name: oauth_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_sessions (
    token_hash bytea NOT NULL,
    user_id uuid NOT NULL,
    method text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

--
-- Name: org_chart; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.org_chart (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    parent_id uuid,
    title text,
    user_id uuid,
    kpis jsonb,
    sort_order integer,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[title])) STORED
);

ALTER TABLE ONLY public.org_chart FORCE ROW LEVEL SECURITY;

--
-- Name: people; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.people (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    company text,
    company_id uuid,
    phone text,
    email text,
    "position" text,
    linkedin_url text,
    twitter_url text,
    custom_fields jsonb,
    merged_into_id uuid,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, company, email, "position"])) STORED,
    CONSTRAINT people_custom_fields_check CHECK ((jsonb_typeof(custom_fields) = 'object'::text))
);

ALTER TABLE ONLY public.people FORCE ROW LEVEL SECURITY;

--
-- Name: periodic_runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.periodic_runs (
    name text NOT NULL,
    ran_at timestamp with time zone NOT NULL
);

--
-- Name: pipeline_stages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pipeline_stages (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    pipeline_id uuid NOT NULL,
    name text NOT NULL,
    "position" integer,
    metric_tag text,
    outcome text DEFAULT 'open'::text NOT NULL,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED,
    CONSTRAINT pipeline_stages_metric_tag_check CHECK ((metric_tag = ANY (ARRAY['messages_sent'::text, 'responses'::text, 'positive_responses'::text, 'deals_closed'::text]))),
    CONSTRAINT pipeline_stages_outcome_check CHECK ((outcome = ANY (ARRAY['open'::text, 'won'::text, 'lost'::text])))
);

ALTER TABLE ONLY public.pipeline_stages FORCE ROW LEVEL SECURITY;

--
-- Name: pipelines; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pipelines (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    "position" integer,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.pipelines FORCE ROW LEVEL SECURITY;

--
-- Name: project_stages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.project_stages (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    project_id uuid NOT NULL,
    name text NOT NULL,
    "position" integer,
    color text,
    icon text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.project_stages FORCE ROW LEVEL SECURITY;

--
-- Name: projects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.projects (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    space_id uuid NOT NULL,
    name text NOT NULL,
    "position" integer,
    start_date date,
    end_date date,
    kanban_enabled boolean DEFAULT false NOT NULL,
    custom_fields jsonb,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED,
    CONSTRAINT projects_custom_fields_check CHECK ((jsonb_typeof(custom_fields) = 'object'::text))
);

ALTER TABLE ONLY public.projects FORCE ROW LEVEL SECURITY;

--
-- Name: river_job; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_job (
    id bigint NOT NULL,
    state public.river_job_state DEFAULT 'available'::public.river_job_state NOT NULL,
    attempt smallint DEFAULT 0 NOT NULL,
    max_attempts smallint DEFAULT 25 NOT NULL,
    attempted_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finalized_at timestamp with time zone,
    scheduled_at timestamp with time zone DEFAULT now() NOT NULL,
    priority smallint DEFAULT 1 NOT NULL,
    args jsonb NOT NULL,
    attempted_by text[],
    errors jsonb[],
    kind text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    tags character varying(255)[] DEFAULT '{}'::character varying[] NOT NULL,
    unique_key bytea,
    unique_states bit(8),
    CONSTRAINT finalized_or_finalized_at_null CHECK ((((finalized_at IS NULL) AND (state <> ALL (ARRAY['cancelled'::public.river_job_state, 'completed'::public.river_job_state, 'discarded'::public.river_job_state]))) OR ((finalized_at IS NOT NULL) AND (state = ANY (ARRAY['cancelled'::public.river_job_state, 'completed'::public.river_job_state, 'discarded'::public.river_job_state]))))),
    CONSTRAINT kind_length CHECK (((char_length(kind) > 0) AND (char_length(kind) < 128))),
    CONSTRAINT max_attempts_is_positive CHECK ((max_attempts > 0)),
    CONSTRAINT priority_in_range CHECK (((priority >= 1) AND (priority <= 4))),
    CONSTRAINT queue_length CHECK (((char_length(queue) > 0) AND (char_length(queue) < 128)))
);

--
-- Name: river_job_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.river_job_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: river_job_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.river_job_id_seq OWNED BY public.river_job.id;

--
-- Name: river_leader; Type: TABLE; Schema: public; Owner: -
--

CREATE UNLOGGED TABLE public.river_leader (
    elected_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    leader_id text NOT NULL,
    name text DEFAULT 'default'::text NOT NULL,
    CONSTRAINT leader_id_length CHECK (((char_length(leader_id) > 0) AND (char_length(leader_id) < 128))),
    CONSTRAINT name_length CHECK ((name = 'default'::text))
);

--
-- Name: river_migration; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_migration (
    line text NOT NULL,
    version bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT line_length CHECK (((char_length(line) > 0) AND (char_length(line) < 128))),
    CONSTRAINT version_gte_1 CHECK ((version >= 1))
);

--
-- Name: river_notification; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_notification (
    id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    payload text NOT NULL,
    topic text NOT NULL,
    CONSTRAINT topic_length CHECK (((length(topic) > 0) AND (length(topic) < 128)))
);

--
-- Name: river_notification_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.river_notification_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: river_notification_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.river_notification_id_seq OWNED BY public.river_notification.id;

--
-- Name: river_queue; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_queue (
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    paused_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: service_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.service_settings (
    key text NOT NULL,
    value text NOT NULL
);

--
-- Name: space_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.space_members (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    space_id uuid NOT NULL,
    user_id uuid NOT NULL
);

ALTER TABLE ONLY public.space_members FORCE ROW LEVEL SECURITY;

--
-- Name: space_updates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.space_updates (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    space_id uuid NOT NULL,
    content text NOT NULL,
    status text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[content])) STORED
);

ALTER TABLE ONLY public.space_updates FORCE ROW LEVEL SECURITY;

--
-- Name: spaces; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.spaces (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    image_url text,
    is_default boolean DEFAULT false NOT NULL,
    status text,
    notes text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, notes])) STORED
);

ALTER TABLE ONLY public.spaces FORCE ROW LEVEL SECURITY;

--
-- Name: task_attachments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.task_attachments (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    task_id uuid,
    crm_task_id uuid,
    space_id uuid,
    name text,
    url text,
    mime_type text,
    size_bytes bigint,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name])) STORED
);

ALTER TABLE ONLY public.task_attachments FORCE ROW LEVEL SECURITY;

--
-- Name: tasks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tasks (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL,
    space_id uuid,
    project_id uuid,
    assignee_id uuid,
    assignee_ids uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    due_date date,
    start_date date,
    priority integer,
    completed boolean DEFAULT false NOT NULL,
    description text,
    is_private boolean DEFAULT false NOT NULL,
    stage_id uuid,
    parent_task_id uuid,
    custom_fields jsonb,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[name, description])) STORED,
    CONSTRAINT tasks_assignees_agree CHECK ((NOT (assignee_id IS DISTINCT FROM assignee_ids[1]))),
    CONSTRAINT tasks_custom_fields_check CHECK ((jsonb_typeof(custom_fields) = 'object'::text)),
    CONSTRAINT tasks_priority_check CHECK (((priority >= 0) AND (priority <= 4)))
);

ALTER TABLE ONLY public.tasks FORCE ROW LEVEL SECURITY;

--
-- Name: team_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_members (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    user_id uuid,
    display_name text NOT NULL,
    team_role text,
    squads text[],
    authority_user_id uuid,
    salary numeric,
    date_hired date,
    left_date date,
    phone text,
    email text,
    contract_url text,
    contract_name text,
    archived boolean DEFAULT false NOT NULL,
    avatar_url text,
    slack_user_id text,
    location text,
    department_id uuid,
    summary text,
    gender text,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[display_name, email, team_role, location])) STORED
);

ALTER TABLE ONLY public.team_members FORCE ROW LEVEL SECURITY;

--
-- Name: user_passwords; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_passwords (
    user_id uuid NOT NULL,
    hash text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid NOT NULL,
    email text NOT NULL,
    display_name text,
    avatar_url text,
    task_color text,
    timezone text,
    department text,
    role text DEFAULT 'member'::text NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    is_agent boolean DEFAULT false NOT NULL,
    grants jsonb DEFAULT '{}'::jsonb NOT NULL,
    upstream_subject text,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    search_doc tsvector GENERATED ALWAYS AS (public.ws_search_doc(VARIADIC ARRAY[display_name, email])) STORED,
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'member'::text]))),
    CONSTRAINT users_status_check CHECK ((status = ANY (ARRAY['active'::text, 'invited'::text, 'suspended'::text])))
);

ALTER TABLE ONLY public.users FORCE ROW LEVEL SECURITY;

--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    endpoint_id uuid NOT NULL,
    event_id uuid NOT NULL,
    event_type text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_attempt_at timestamp with time zone,
    latency_ms integer,
    response_status integer,
    response_body text,
    error text,
    next_attempt_at timestamp with time zone,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text])))
);

ALTER TABLE ONLY public.webhook_deliveries FORCE ROW LEVEL SECURITY;

--
-- Name: webhook_endpoints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_endpoints (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    created_by uuid DEFAULT public.app_user_id(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    url text NOT NULL,
    events text[] DEFAULT '{*}'::text[] NOT NULL,
    description text,
    enabled boolean DEFAULT true NOT NULL,
    disabled_reason text,
    failing_since timestamp with time zone,
    secret text,
    CONSTRAINT webhook_endpoints_secret_check CHECK ((secret IS NULL))
);

ALTER TABLE ONLY public.webhook_endpoints FORCE ROW LEVEL SECURITY;

--
-- Name: webhook_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_events (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    seq bigint NOT NULL,
    workspace_id uuid NOT NULL,
    type text NOT NULL,
    object text NOT NULL,
    object_id uuid,
    record jsonb,
    changed text[],
    endpoint_id uuid,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    dispatched_at timestamp with time zone,
    dispatch_error text,
    endpoint_ids uuid[]
);

--
-- Name: webhook_events_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.webhook_events ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.webhook_events_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: webhook_outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_outbox (
    seq bigint DEFAULT nextval('public.webhook_events_seq_seq'::regclass) NOT NULL,
    id uuid,
    workspace_id uuid NOT NULL,
    type text NOT NULL,
    object text NOT NULL,
    object_id uuid,
    record jsonb,
    changed text[],
    endpoint_id uuid,
    endpoint_ids uuid[],
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);

--
-- Name: webhook_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_secrets (
    endpoint_id uuid NOT NULL,
    workspace_id uuid DEFAULT public.app_workspace_id() NOT NULL,
    secret text NOT NULL,
    previous_secret text,
    previous_expires_at timestamp with time zone
);

--
-- Name: webhook_slots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_slots (
    endpoint_id uuid NOT NULL,
    slot integer NOT NULL,
    held_until timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    holder uuid
);

--
-- Name: workspace_oauth_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workspace_oauth_settings (
    workspace_id uuid NOT NULL,
    admin_apps_only boolean DEFAULT false NOT NULL
);

--
-- Name: workspaces; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workspaces (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    image_url text,
    timezone text DEFAULT 'UTC'::text NOT NULL,
    okr_enabled boolean DEFAULT false NOT NULL,
    kb_ai_enabled boolean DEFAULT false NOT NULL,
    report_eod_enabled boolean DEFAULT false NOT NULL,
    report_eow_enabled boolean DEFAULT false NOT NULL,
    report_eom_enabled boolean DEFAULT false NOT NULL,
    security_contact_email text,
    plan text DEFAULT 'free'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.workspaces FORCE ROW LEVEL SECURITY;

--
-- Name: river_job id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_job ALTER COLUMN id SET DEFAULT nextval('public.river_job_id_seq'::regclass);

--
-- Name: river_notification id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_notification ALTER COLUMN id SET DEFAULT nextval('public.river_notification_id_seq'::regclass);

--
-- Name: activity activity_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity
    ADD CONSTRAINT activity_pkey PRIMARY KEY (id);

--
-- Name: activity activity_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity
    ADD CONSTRAINT activity_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: agent_keys agent_keys_key_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agent_keys
    ADD CONSTRAINT agent_keys_key_hash_key UNIQUE (key_hash);

--
-- Name: agent_keys agent_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agent_keys
    ADD CONSTRAINT agent_keys_pkey PRIMARY KEY (id);

--
-- Name: agents agents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_pkey PRIMARY KEY (id);

--
-- Name: agents agents_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: automation_logs automation_logs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automation_logs
    ADD CONSTRAINT automation_logs_pkey PRIMARY KEY (id);

--
-- Name: automation_logs automation_logs_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automation_logs
    ADD CONSTRAINT automation_logs_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: automations automations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automations
    ADD CONSTRAINT automations_pkey PRIMARY KEY (id);

--
-- Name: automations automations_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automations
    ADD CONSTRAINT automations_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: canvases canvases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canvases
    ADD CONSTRAINT canvases_pkey PRIMARY KEY (id);

--
-- Name: canvases canvases_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canvases
    ADD CONSTRAINT canvases_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: comments comments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.comments
    ADD CONSTRAINT comments_pkey PRIMARY KEY (id);

--
-- Name: comments comments_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.comments
    ADD CONSTRAINT comments_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: companies companies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.companies
    ADD CONSTRAINT companies_pkey PRIMARY KEY (id);

--
-- Name: companies companies_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.companies
    ADD CONSTRAINT companies_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: competitor_reports competitor_reports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_reports
    ADD CONSTRAINT competitor_reports_pkey PRIMARY KEY (id);

--
-- Name: competitor_reports competitor_reports_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_reports
    ADD CONSTRAINT competitor_reports_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: competitor_workflows competitor_workflows_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_workflows
    ADD CONSTRAINT competitor_workflows_pkey PRIMARY KEY (id);

--
-- Name: competitor_workflows competitor_workflows_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_workflows
    ADD CONSTRAINT competitor_workflows_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: credential_usage credential_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credential_usage
    ADD CONSTRAINT credential_usage_pkey PRIMARY KEY (workspace_id, day, credential);

--
-- Name: credit_balances credit_balances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_balances
    ADD CONSTRAINT credit_balances_pkey PRIMARY KEY (id);

--
-- Name: credit_balances credit_balances_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_balances
    ADD CONSTRAINT credit_balances_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: credit_balances credit_balances_workspace_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_balances
    ADD CONSTRAINT credit_balances_workspace_id_key UNIQUE (workspace_id);

--
-- Name: credit_holds credit_holds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_holds
    ADD CONSTRAINT credit_holds_pkey PRIMARY KEY (id);

--
-- Name: credit_holds credit_holds_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_holds
    ADD CONSTRAINT credit_holds_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: credit_ledger credit_ledger_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_ledger
    ADD CONSTRAINT credit_ledger_pkey PRIMARY KEY (id);

--
-- Name: credit_ledger credit_ledger_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_ledger
    ADD CONSTRAINT credit_ledger_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: crm_files crm_files_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.crm_files
    ADD CONSTRAINT crm_files_pkey PRIMARY KEY (id);

--
-- Name: crm_files crm_files_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.crm_files
    ADD CONSTRAINT crm_files_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: custom_field_versions custom_field_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custom_field_versions
    ADD CONSTRAINT custom_field_versions_pkey PRIMARY KEY (workspace_id);

--
-- Name: custom_fields custom_fields_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custom_fields
    ADD CONSTRAINT custom_fields_pkey PRIMARY KEY (id);

--
-- Name: custom_fields custom_fields_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custom_fields
    ADD CONSTRAINT custom_fields_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: custom_fields custom_fields_workspace_id_resource_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custom_fields
    ADD CONSTRAINT custom_fields_workspace_id_resource_key_key UNIQUE (workspace_id, resource, key);

--
-- Name: deal_labels deal_labels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_labels
    ADD CONSTRAINT deal_labels_pkey PRIMARY KEY (id);

--
-- Name: deal_labels deal_labels_workspace_id_deal_id_label_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_labels
    ADD CONSTRAINT deal_labels_workspace_id_deal_id_label_id_key UNIQUE (workspace_id, deal_id, label_id);

--
-- Name: deal_labels deal_labels_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_labels
    ADD CONSTRAINT deal_labels_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: deal_people deal_people_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_people
    ADD CONSTRAINT deal_people_pkey PRIMARY KEY (id);

--
-- Name: deal_people deal_people_workspace_id_deal_id_person_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_people
    ADD CONSTRAINT deal_people_workspace_id_deal_id_person_id_key UNIQUE (workspace_id, deal_id, person_id);

--
-- Name: deal_people deal_people_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_people
    ADD CONSTRAINT deal_people_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: deal_tasks deal_tasks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_tasks
    ADD CONSTRAINT deal_tasks_pkey PRIMARY KEY (id);

--
-- Name: deal_tasks deal_tasks_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_tasks
    ADD CONSTRAINT deal_tasks_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: deals deals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_pkey PRIMARY KEY (id);

--
-- Name: deals deals_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: debt_payments debt_payments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debt_payments
    ADD CONSTRAINT debt_payments_pkey PRIMARY KEY (id);

--
-- Name: debt_payments debt_payments_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debt_payments
    ADD CONSTRAINT debt_payments_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: debts debts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debts
    ADD CONSTRAINT debts_pkey PRIMARY KEY (id);

--
-- Name: debts debts_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debts
    ADD CONSTRAINT debts_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: departments departments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.departments
    ADD CONSTRAINT departments_pkey PRIMARY KEY (id);

--
-- Name: departments departments_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.departments
    ADD CONSTRAINT departments_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: documents documents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (id);

--
-- Name: documents documents_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: enrichment_cache enrichment_cache_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrichment_cache
    ADD CONSTRAINT enrichment_cache_pkey PRIMARY KEY (id);

--
-- Name: enrichment_cache enrichment_cache_workspace_id_domain_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrichment_cache
    ADD CONSTRAINT enrichment_cache_workspace_id_domain_key UNIQUE (workspace_id, domain);

--
-- Name: enrichment_cache enrichment_cache_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrichment_cache
    ADD CONSTRAINT enrichment_cache_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: expenses expenses_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.expenses
    ADD CONSTRAINT expenses_pkey PRIMARY KEY (id);

--
-- Name: expenses expenses_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.expenses
    ADD CONSTRAINT expenses_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: finance_categories finance_categories_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.finance_categories
    ADD CONSTRAINT finance_categories_pkey PRIMARY KEY (id);

--
-- Name: finance_categories finance_categories_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.finance_categories
    ADD CONSTRAINT finance_categories_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: goose_db_version goose_db_version_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.goose_db_version
    ADD CONSTRAINT goose_db_version_pkey PRIMARY KEY (id);

--
-- Name: hr_change_requests hr_change_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_change_requests
    ADD CONSTRAINT hr_change_requests_pkey PRIMARY KEY (id);

--
-- Name: hr_change_requests hr_change_requests_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_change_requests
    ADD CONSTRAINT hr_change_requests_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: hr_contracts hr_contracts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_contracts
    ADD CONSTRAINT hr_contracts_pkey PRIMARY KEY (id);

--
-- Name: hr_contracts hr_contracts_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_contracts
    ADD CONSTRAINT hr_contracts_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (workspace_id, credential, key);

--
-- Name: import_chunks import_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.import_chunks
    ADD CONSTRAINT import_chunks_pkey PRIMARY KEY (import_id, first_row);

--
-- Name: import_errors import_errors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.import_errors
    ADD CONSTRAINT import_errors_pkey PRIMARY KEY (import_id, row_number);

--
-- Name: import_parts import_parts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.import_parts
    ADD CONSTRAINT import_parts_pkey PRIMARY KEY (import_id, seq);

--
-- Name: imports imports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.imports
    ADD CONSTRAINT imports_pkey PRIMARY KEY (id);

--
-- Name: income income_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.income
    ADD CONSTRAINT income_pkey PRIMARY KEY (id);

--
-- Name: income income_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.income
    ADD CONSTRAINT income_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: knowledge knowledge_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge
    ADD CONSTRAINT knowledge_pkey PRIMARY KEY (id);

--
-- Name: knowledge knowledge_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge
    ADD CONSTRAINT knowledge_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: labels labels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.labels
    ADD CONSTRAINT labels_pkey PRIMARY KEY (id);

--
-- Name: labels labels_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.labels
    ADD CONSTRAINT labels_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: leave_requests leave_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leave_requests
    ADD CONSTRAINT leave_requests_pkey PRIMARY KEY (id);

--
-- Name: leave_requests leave_requests_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leave_requests
    ADD CONSTRAINT leave_requests_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: member_links member_links_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.member_links
    ADD CONSTRAINT member_links_pkey PRIMARY KEY (token_hash);

--
-- Name: member_sign_ins member_sign_ins_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.member_sign_ins
    ADD CONSTRAINT member_sign_ins_pkey PRIMARY KEY (user_id);

--
-- Name: metric_entries metric_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_entries
    ADD CONSTRAINT metric_entries_pkey PRIMARY KEY (id);

--
-- Name: metric_entries metric_entries_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_entries
    ADD CONSTRAINT metric_entries_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: metric_pages metric_pages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_pages
    ADD CONSTRAINT metric_pages_pkey PRIMARY KEY (id);

--
-- Name: metric_pages metric_pages_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_pages
    ADD CONSTRAINT metric_pages_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: metrics metrics_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metrics
    ADD CONSTRAINT metrics_pkey PRIMARY KEY (id);

--
-- Name: metrics metrics_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metrics
    ADD CONSTRAINT metrics_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: oauth_access_tokens oauth_access_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_access_tokens
    ADD CONSTRAINT oauth_access_tokens_pkey PRIMARY KEY (id);

--
-- Name: oauth_access_tokens oauth_access_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_access_tokens
    ADD CONSTRAINT oauth_access_tokens_token_hash_key UNIQUE (token_hash);

--
-- Name: oauth_client_blocks oauth_client_blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_client_blocks
    ADD CONSTRAINT oauth_client_blocks_pkey PRIMARY KEY (workspace_id, client_id);

--
-- Name: oauth_clients oauth_clients_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_clients
    ADD CONSTRAINT oauth_clients_pkey PRIMARY KEY (id);

--
-- Name: oauth_codes oauth_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_codes
    ADD CONSTRAINT oauth_codes_pkey PRIMARY KEY (code_hash);

--
-- Name: oauth_consents oauth_consents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_consents
    ADD CONSTRAINT oauth_consents_pkey PRIMARY KEY (user_id, client_id);

--
-- Name: oauth_families oauth_families_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_families
    ADD CONSTRAINT oauth_families_pkey PRIMARY KEY (id);

--
-- Name: oauth_refresh_tokens oauth_refresh_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_refresh_tokens
    ADD CONSTRAINT oauth_refresh_tokens_pkey PRIMARY KEY (id);

--
-- Name: oauth_refresh_tokens oauth_refresh_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_refresh_tokens
    ADD CONSTRAINT oauth_refresh_tokens_token_hash_key UNIQUE (token_hash);

--
-- Name: oauth_sessions oauth_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_sessions
    ADD CONSTRAINT oauth_sessions_pkey PRIMARY KEY (token_hash);

--
-- Name: org_chart org_chart_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_chart
    ADD CONSTRAINT org_chart_pkey PRIMARY KEY (id);

--
-- Name: org_chart org_chart_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_chart
    ADD CONSTRAINT org_chart_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: people people_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_pkey PRIMARY KEY (id);

--
-- Name: people people_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: periodic_runs periodic_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.periodic_runs
    ADD CONSTRAINT periodic_runs_pkey PRIMARY KEY (name);

--
-- Name: pipeline_stages pipeline_stages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipeline_stages
    ADD CONSTRAINT pipeline_stages_pkey PRIMARY KEY (id);

--
-- Name: pipeline_stages pipeline_stages_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipeline_stages
    ADD CONSTRAINT pipeline_stages_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: pipelines pipelines_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipelines
    ADD CONSTRAINT pipelines_pkey PRIMARY KEY (id);

--
-- Name: pipelines pipelines_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipelines
    ADD CONSTRAINT pipelines_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: project_stages project_stages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_stages
    ADD CONSTRAINT project_stages_pkey PRIMARY KEY (id);

--
-- Name: project_stages project_stages_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_stages
    ADD CONSTRAINT project_stages_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: projects projects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_pkey PRIMARY KEY (id);

--
-- Name: projects projects_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: river_job river_job_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_job
    ADD CONSTRAINT river_job_pkey PRIMARY KEY (id);

--
-- Name: river_leader river_leader_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_leader
    ADD CONSTRAINT river_leader_pkey PRIMARY KEY (name);

--
-- Name: river_migration river_migration_pkey1; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_migration
    ADD CONSTRAINT river_migration_pkey1 PRIMARY KEY (line, version);

--
-- Name: river_notification river_notification_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_notification
    ADD CONSTRAINT river_notification_pkey PRIMARY KEY (id);

--
-- Name: river_queue river_queue_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_queue
    ADD CONSTRAINT river_queue_pkey PRIMARY KEY (name);

--
-- Name: service_settings service_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.service_settings
    ADD CONSTRAINT service_settings_pkey PRIMARY KEY (key);

--
-- Name: space_members space_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_members
    ADD CONSTRAINT space_members_pkey PRIMARY KEY (id);

--
-- Name: space_members space_members_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_members
    ADD CONSTRAINT space_members_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: space_members space_members_workspace_id_space_id_user_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_members
    ADD CONSTRAINT space_members_workspace_id_space_id_user_id_key UNIQUE (workspace_id, space_id, user_id);

--
-- Name: space_updates space_updates_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_updates
    ADD CONSTRAINT space_updates_pkey PRIMARY KEY (id);

--
-- Name: space_updates space_updates_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_updates
    ADD CONSTRAINT space_updates_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: spaces spaces_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.spaces
    ADD CONSTRAINT spaces_pkey PRIMARY KEY (id);

--
-- Name: spaces spaces_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.spaces
    ADD CONSTRAINT spaces_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: task_attachments task_attachments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_attachments
    ADD CONSTRAINT task_attachments_pkey PRIMARY KEY (id);

--
-- Name: task_attachments task_attachments_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_attachments
    ADD CONSTRAINT task_attachments_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: tasks tasks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_pkey PRIMARY KEY (id);

--
-- Name: tasks tasks_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: team_members team_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_pkey PRIMARY KEY (id);

--
-- Name: team_members team_members_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: user_passwords user_passwords_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_passwords
    ADD CONSTRAINT user_passwords_pkey PRIMARY KEY (user_id);

--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

--
-- Name: users users_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: webhook_deliveries webhook_deliveries_endpoint_id_event_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_event_id_key UNIQUE (endpoint_id, event_id);

--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

--
-- Name: webhook_deliveries webhook_deliveries_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: webhook_endpoints webhook_endpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);

--
-- Name: webhook_endpoints webhook_endpoints_workspace_id_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_workspace_id_id_key UNIQUE (workspace_id, id);

--
-- Name: webhook_events webhook_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_events
    ADD CONSTRAINT webhook_events_pkey PRIMARY KEY (id);

--
-- Name: webhook_outbox webhook_outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_outbox
    ADD CONSTRAINT webhook_outbox_pkey PRIMARY KEY (seq);

--
-- Name: webhook_secrets webhook_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_secrets
    ADD CONSTRAINT webhook_secrets_pkey PRIMARY KEY (endpoint_id);

--
-- Name: webhook_slots webhook_slots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_slots
    ADD CONSTRAINT webhook_slots_pkey PRIMARY KEY (endpoint_id, slot);

--
-- Name: workspace_oauth_settings workspace_oauth_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspace_oauth_settings
    ADD CONSTRAINT workspace_oauth_settings_pkey PRIMARY KEY (workspace_id);

--
-- Name: workspaces workspaces_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspaces
    ADD CONSTRAINT workspaces_pkey PRIMARY KEY (id);

--
-- Name: activity_client; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX activity_client ON public.activity USING btree (workspace_id, ((client ->> 'id'::text)), created_at DESC) WHERE (client IS NOT NULL);

--
-- Name: activity_credential; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX activity_credential ON public.activity USING btree (workspace_id, credential, created_at DESC) WHERE (credential IS NOT NULL);

--
-- Name: activity_entity; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX activity_entity ON public.activity USING btree (workspace_id, entity_type, entity_id, created_at DESC, id DESC);

--
-- Name: activity_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX activity_keyset ON public.activity USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: activity_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX activity_sync ON public.activity USING btree (workspace_id, updated_at, id);

--
-- Name: agents_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agents_keyset ON public.agents USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: agents_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agents_name_sort ON public.agents USING btree (workspace_id, name, id);

--
-- Name: agents_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agents_name_trgm ON public.agents USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: agents_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agents_search ON public.agents USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: agents_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agents_sync ON public.agents USING btree (workspace_id, updated_at, id);

--
-- Name: automation_logs_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automation_logs_keyset ON public.automation_logs USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: automation_logs_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automation_logs_search ON public.automation_logs USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: automation_logs_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automation_logs_sync ON public.automation_logs USING btree (workspace_id, updated_at, id);

--
-- Name: automations_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automations_keyset ON public.automations USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: automations_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automations_name_sort ON public.automations USING btree (workspace_id, name, id);

--
-- Name: automations_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automations_name_trgm ON public.automations USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: automations_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automations_search ON public.automations USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: automations_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automations_sync ON public.automations USING btree (workspace_id, updated_at, id);

--
-- Name: canvases_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX canvases_keyset ON public.canvases USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: canvases_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX canvases_name_sort ON public.canvases USING btree (workspace_id, name, id);

--
-- Name: canvases_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX canvases_name_trgm ON public.canvases USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: canvases_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX canvases_search ON public.canvases USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: canvases_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX canvases_sync ON public.canvases USING btree (workspace_id, updated_at, id);

--
-- Name: comments_entity; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX comments_entity ON public.comments USING btree (workspace_id, entity_type, entity_id, created_at DESC, id DESC);

--
-- Name: comments_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX comments_keyset ON public.comments USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: comments_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX comments_search ON public.comments USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: comments_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX comments_sync ON public.comments USING btree (workspace_id, updated_at, id);

--
-- Name: companies_domain_match; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_domain_match ON public.companies USING btree (workspace_id, public.ws_domain(website));

--
-- Name: companies_industry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_industry ON public.companies USING btree (workspace_id, industry, created_at DESC, id DESC);

--
-- Name: companies_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_keyset ON public.companies USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: companies_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_name_sort ON public.companies USING btree (workspace_id, name, id);

--
-- Name: companies_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_name_trgm ON public.companies USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: companies_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_search ON public.companies USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: companies_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_sync ON public.companies USING btree (workspace_id, updated_at, id);

--
-- Name: competitor_reports_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_reports_keyset ON public.competitor_reports USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: competitor_reports_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_reports_search ON public.competitor_reports USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: competitor_reports_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_reports_sync ON public.competitor_reports USING btree (workspace_id, updated_at, id);

--
-- Name: competitor_reports_title_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_reports_title_sort ON public.competitor_reports USING btree (workspace_id, title, id);

--
-- Name: competitor_reports_title_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_reports_title_trgm ON public.competitor_reports USING gin (workspace_id, public.ws_unaccent(title) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: competitor_workflows_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_workflows_keyset ON public.competitor_workflows USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: competitor_workflows_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_workflows_name_sort ON public.competitor_workflows USING btree (workspace_id, name, id);

--
-- Name: competitor_workflows_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_workflows_name_trgm ON public.competitor_workflows USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: competitor_workflows_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_workflows_search ON public.competitor_workflows USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: competitor_workflows_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX competitor_workflows_sync ON public.competitor_workflows USING btree (workspace_id, updated_at, id);

--
-- Name: credit_balances_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_balances_keyset ON public.credit_balances USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: credit_balances_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_balances_sync ON public.credit_balances USING btree (workspace_id, updated_at, id);

--
-- Name: credit_holds_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_holds_expiry ON public.credit_holds USING btree (expires_at);

--
-- Name: credit_holds_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_holds_keyset ON public.credit_holds USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: credit_holds_one_per_domain; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX credit_holds_one_per_domain ON public.credit_holds USING btree (workspace_id, domain);

--
-- Name: credit_holds_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_holds_sync ON public.credit_holds USING btree (workspace_id, updated_at, id);

--
-- Name: credit_ledger_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_ledger_keyset ON public.credit_ledger USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: credit_ledger_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_ledger_sync ON public.credit_ledger USING btree (workspace_id, updated_at, id);

--
-- Name: crm_files_deal; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX crm_files_deal ON public.crm_files USING btree (workspace_id, deal_id, created_at DESC, id DESC);

--
-- Name: crm_files_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX crm_files_keyset ON public.crm_files USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: crm_files_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX crm_files_name_sort ON public.crm_files USING btree (workspace_id, name, id);

--
-- Name: crm_files_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX crm_files_name_trgm ON public.crm_files USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: crm_files_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX crm_files_search ON public.crm_files USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: crm_files_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX crm_files_sync ON public.crm_files USING btree (workspace_id, updated_at, id);

--
-- Name: custom_absent_field; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_absent_field ON public.custom_absent USING btree (field_id, record_id) INCLUDE (workspace_id);

--
-- Name: custom_fields_archived; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_fields_archived ON public.custom_fields USING btree (workspace_id, resource) WHERE archived;

--
-- Name: custom_fields_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_fields_keyset ON public.custom_fields USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: custom_fields_position; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_fields_position ON public.custom_fields USING btree (workspace_id, resource, "position", id);

--
-- Name: custom_fields_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_fields_sync ON public.custom_fields USING btree (workspace_id, updated_at, id);

--
-- Name: custom_values_b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_values_b ON public.custom_values USING btree (field_id, b, record_id) INCLUDE (workspace_id) WHERE (b IS NOT NULL);

--
-- Name: custom_values_d; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_values_d ON public.custom_values USING btree (field_id, d, record_id) INCLUDE (workspace_id) WHERE (d IS NOT NULL);

--
-- Name: custom_values_n; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_values_n ON public.custom_values USING btree (field_id, n, record_id) INCLUDE (workspace_id) WHERE (n IS NOT NULL);

--
-- Name: custom_values_record; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_values_record ON public.custom_values USING btree (record_id, field_id) INCLUDE (workspace_id);

--
-- Name: custom_values_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_values_search ON public.custom_values USING gin (field_id, public.ws_search_doc(VARIADIC ARRAY[
CASE
    WHEN (t IS NULL) THEN s
    ELSE t
END])) WHERE searched;

--
-- Name: custom_values_t; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custom_values_t ON public.custom_values USING btree (field_id, t, record_id) INCLUDE (workspace_id) WHERE ((t IS NOT NULL) OR (s IS NOT NULL));

--
-- Name: custom_values_unique; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX custom_values_unique ON public.custom_values USING btree (field_id, u) WHERE (u IS NOT NULL);

--
-- Name: deal_labels_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_labels_keyset ON public.deal_labels USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: deal_labels_label; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_labels_label ON public.deal_labels USING btree (workspace_id, label_id, created_at DESC, id DESC);

--
-- Name: deal_labels_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_labels_sync ON public.deal_labels USING btree (workspace_id, updated_at, id);

--
-- Name: deal_people_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_people_keyset ON public.deal_people USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: deal_people_person; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_people_person ON public.deal_people USING btree (workspace_id, person_id, created_at DESC, id DESC);

--
-- Name: deal_people_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_people_sync ON public.deal_people USING btree (workspace_id, updated_at, id);

--
-- Name: deal_tasks_assignee; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_assignee ON public.deal_tasks USING btree (workspace_id, assignee_id, created_at DESC, id DESC);

--
-- Name: deal_tasks_deal; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_deal ON public.deal_tasks USING btree (workspace_id, deal_id, created_at DESC, id DESC);

--
-- Name: deal_tasks_due_date_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_due_date_sort ON public.deal_tasks USING btree (workspace_id, due_date, id);

--
-- Name: deal_tasks_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_keyset ON public.deal_tasks USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: deal_tasks_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_name_sort ON public.deal_tasks USING btree (workspace_id, name, id);

--
-- Name: deal_tasks_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_name_trgm ON public.deal_tasks USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: deal_tasks_priority; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_priority ON public.deal_tasks USING btree (workspace_id, priority, created_at DESC, id DESC);

--
-- Name: deal_tasks_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_search ON public.deal_tasks USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: deal_tasks_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_tasks_sync ON public.deal_tasks USING btree (workspace_id, updated_at, id);

--
-- Name: deals_company; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_company ON public.deals USING btree (workspace_id, company_id, created_at DESC, id DESC);

--
-- Name: deals_confidence; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_confidence ON public.deals USING btree (workspace_id, confidence, created_at DESC, id DESC);

--
-- Name: deals_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_keyset ON public.deals USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: deals_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_name_sort ON public.deals USING btree (workspace_id, name, id);

--
-- Name: deals_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_name_trgm ON public.deals USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: deals_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_owner ON public.deals USING btree (workspace_id, owner_id, created_at DESC, id DESC);

--
-- Name: deals_pipeline; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_pipeline ON public.deals USING btree (workspace_id, pipeline_id, created_at DESC, id DESC);

--
-- Name: deals_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_search ON public.deals USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: deals_stage; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_stage ON public.deals USING btree (workspace_id, pipeline_stage_id, created_at DESC, id DESC);

--
-- Name: deals_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_status ON public.deals USING btree (workspace_id, status, created_at DESC, id DESC);

--
-- Name: deals_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_sync ON public.deals USING btree (workspace_id, updated_at, id);

--
-- Name: deals_value_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_value_sort ON public.deals USING btree (workspace_id, value, id);

--
-- Name: debt_payments_amount_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debt_payments_amount_sort ON public.debt_payments USING btree (workspace_id, amount, id);

--
-- Name: debt_payments_date_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debt_payments_date_sort ON public.debt_payments USING btree (workspace_id, date, id);

--
-- Name: debt_payments_debt; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debt_payments_debt ON public.debt_payments USING btree (workspace_id, debt_id, created_at DESC, id DESC);

--
-- Name: debt_payments_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debt_payments_keyset ON public.debt_payments USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: debt_payments_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debt_payments_sync ON public.debt_payments USING btree (workspace_id, updated_at, id);

--
-- Name: debts_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debts_keyset ON public.debts USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: debts_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debts_name_sort ON public.debts USING btree (workspace_id, name, id);

--
-- Name: debts_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debts_name_trgm ON public.debts USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: debts_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debts_search ON public.debts USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: debts_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debts_sync ON public.debts USING btree (workspace_id, updated_at, id);

--
-- Name: debts_total_amount_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX debts_total_amount_sort ON public.debts USING btree (workspace_id, total_amount, id);

--
-- Name: departments_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX departments_keyset ON public.departments USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: departments_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX departments_name_sort ON public.departments USING btree (workspace_id, name, id);

--
-- Name: departments_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX departments_name_trgm ON public.departments USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: departments_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX departments_search ON public.departments USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: departments_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX departments_sync ON public.departments USING btree (workspace_id, updated_at, id);

--
-- Name: documents_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_keyset ON public.documents USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: documents_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_name_sort ON public.documents USING btree (workspace_id, name, id);

--
-- Name: documents_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_name_trgm ON public.documents USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: documents_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_search ON public.documents USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: documents_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_sync ON public.documents USING btree (workspace_id, updated_at, id);

--
-- Name: enrichment_cache_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrichment_cache_keyset ON public.enrichment_cache USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: enrichment_cache_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrichment_cache_sync ON public.enrichment_cache USING btree (workspace_id, updated_at, id);

--
-- Name: expenses_amount_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX expenses_amount_sort ON public.expenses USING btree (workspace_id, amount, id);

--
-- Name: expenses_date_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX expenses_date_sort ON public.expenses USING btree (workspace_id, date, id);

--
-- Name: expenses_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX expenses_keyset ON public.expenses USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: expenses_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX expenses_name_sort ON public.expenses USING btree (workspace_id, name, id);

--
-- Name: expenses_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX expenses_name_trgm ON public.expenses USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: expenses_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX expenses_search ON public.expenses USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: expenses_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX expenses_sync ON public.expenses USING btree (workspace_id, updated_at, id);

--
-- Name: expenses_type; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX expenses_type ON public.expenses USING btree (workspace_id, type, created_at DESC, id DESC);

--
-- Name: finance_categories_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX finance_categories_keyset ON public.finance_categories USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: finance_categories_label_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX finance_categories_label_sort ON public.finance_categories USING btree (workspace_id, label, id);

--
-- Name: finance_categories_label_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX finance_categories_label_trgm ON public.finance_categories USING gin (workspace_id, public.ws_unaccent(label) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: finance_categories_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX finance_categories_search ON public.finance_categories USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: finance_categories_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX finance_categories_sync ON public.finance_categories USING btree (workspace_id, updated_at, id);

--
-- Name: hr_change_requests_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_change_requests_keyset ON public.hr_change_requests USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: hr_change_requests_member; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_change_requests_member ON public.hr_change_requests USING btree (workspace_id, member_id, created_at DESC, id DESC);

--
-- Name: hr_change_requests_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_change_requests_search ON public.hr_change_requests USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: hr_change_requests_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_change_requests_sync ON public.hr_change_requests USING btree (workspace_id, updated_at, id);

--
-- Name: hr_contracts_date_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_contracts_date_sort ON public.hr_contracts USING btree (workspace_id, date, id);

--
-- Name: hr_contracts_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_contracts_keyset ON public.hr_contracts USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: hr_contracts_member; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_contracts_member ON public.hr_contracts USING btree (workspace_id, member_id, created_at DESC, id DESC);

--
-- Name: hr_contracts_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_contracts_name_trgm ON public.hr_contracts USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: hr_contracts_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_contracts_search ON public.hr_contracts USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: hr_contracts_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hr_contracts_sync ON public.hr_contracts USING btree (workspace_id, updated_at, id);

--
-- Name: idempotency_keys_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_keys_expiry ON public.idempotency_keys USING btree (expires_at);

--
-- Name: imports_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX imports_workspace ON public.imports USING btree (workspace_id, created_at);

--
-- Name: income_amount_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX income_amount_sort ON public.income USING btree (workspace_id, amount, id);

--
-- Name: income_date_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX income_date_sort ON public.income USING btree (workspace_id, date, id);

--
-- Name: income_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX income_keyset ON public.income USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: income_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX income_name_sort ON public.income USING btree (workspace_id, name, id);

--
-- Name: income_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX income_name_trgm ON public.income USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: income_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX income_search ON public.income USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: income_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX income_sync ON public.income USING btree (workspace_id, updated_at, id);

--
-- Name: income_type; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX income_type ON public.income USING btree (workspace_id, type, created_at DESC, id DESC);

--
-- Name: knowledge_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_keyset ON public.knowledge USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: knowledge_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_name_sort ON public.knowledge USING btree (workspace_id, name, id);

--
-- Name: knowledge_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_name_trgm ON public.knowledge USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: knowledge_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_search ON public.knowledge USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: knowledge_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_sync ON public.knowledge USING btree (workspace_id, updated_at, id);

--
-- Name: labels_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX labels_keyset ON public.labels USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: labels_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX labels_name_sort ON public.labels USING btree (workspace_id, name, id);

--
-- Name: labels_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX labels_name_trgm ON public.labels USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: labels_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX labels_search ON public.labels USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: labels_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX labels_sync ON public.labels USING btree (workspace_id, updated_at, id);

--
-- Name: leave_requests_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leave_requests_keyset ON public.leave_requests USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: leave_requests_leave_date_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leave_requests_leave_date_sort ON public.leave_requests USING btree (workspace_id, leave_date, id);

--
-- Name: leave_requests_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leave_requests_search ON public.leave_requests USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: leave_requests_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leave_requests_sync ON public.leave_requests USING btree (workspace_id, updated_at, id);

--
-- Name: leave_requests_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leave_requests_user ON public.leave_requests USING btree (workspace_id, user_id, created_at DESC, id DESC);

--
-- Name: member_links_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX member_links_expiry ON public.member_links USING btree (expires_at);

--
-- Name: member_links_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX member_links_user ON public.member_links USING btree (user_id);

--
-- Name: metric_entries_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_entries_keyset ON public.metric_entries USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: metric_entries_metric; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_entries_metric ON public.metric_entries USING btree (workspace_id, metric_id, created_at DESC, id DESC);

--
-- Name: metric_entries_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_entries_search ON public.metric_entries USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: metric_entries_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_entries_sync ON public.metric_entries USING btree (workspace_id, updated_at, id);

--
-- Name: metric_pages_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_pages_keyset ON public.metric_pages USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: metric_pages_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_pages_name_sort ON public.metric_pages USING btree (workspace_id, name, id);

--
-- Name: metric_pages_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_pages_name_trgm ON public.metric_pages USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: metric_pages_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_pages_search ON public.metric_pages USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: metric_pages_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metric_pages_sync ON public.metric_pages USING btree (workspace_id, updated_at, id);

--
-- Name: metrics_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metrics_keyset ON public.metrics USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: metrics_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metrics_name_sort ON public.metrics USING btree (workspace_id, name, id);

--
-- Name: metrics_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metrics_name_trgm ON public.metrics USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: metrics_page; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metrics_page ON public.metrics USING btree (workspace_id, page_id, created_at DESC, id DESC);

--
-- Name: metrics_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metrics_search ON public.metrics USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: metrics_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX metrics_sync ON public.metrics USING btree (workspace_id, updated_at, id);

--
-- Name: oauth_access_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_access_expiry ON public.oauth_access_tokens USING btree (expires_at);

--
-- Name: oauth_access_family; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_access_family ON public.oauth_access_tokens USING btree (family_id);

--
-- Name: oauth_clients_unused; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_clients_unused ON public.oauth_clients USING btree (created_at) WHERE (dynamic AND (last_used_at IS NULL));

--
-- Name: oauth_clients_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_clients_workspace ON public.oauth_clients USING btree (workspace_id) WHERE (workspace_id IS NOT NULL);

--
-- Name: oauth_codes_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_codes_expiry ON public.oauth_codes USING btree (expires_at);

--
-- Name: oauth_families_client; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_families_client ON public.oauth_families USING btree (client_id) WHERE (revoked_at IS NULL);

--
-- Name: oauth_families_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_families_user ON public.oauth_families USING btree (user_id, client_id) WHERE (revoked_at IS NULL);

--
-- Name: oauth_families_workspace_client; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_families_workspace_client ON public.oauth_families USING btree (workspace_id, client_id);

--
-- Name: oauth_refresh_family; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_refresh_family ON public.oauth_refresh_tokens USING btree (family_id, generation);

--
-- Name: oauth_sessions_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_sessions_expiry ON public.oauth_sessions USING btree (expires_at);

--
-- Name: org_chart_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_chart_keyset ON public.org_chart USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: org_chart_parent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_chart_parent ON public.org_chart USING btree (workspace_id, parent_id, created_at DESC, id DESC);

--
-- Name: org_chart_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_chart_search ON public.org_chart USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: org_chart_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_chart_sync ON public.org_chart USING btree (workspace_id, updated_at, id);

--
-- Name: org_chart_title_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_chart_title_sort ON public.org_chart USING btree (workspace_id, title, id);

--
-- Name: org_chart_title_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_chart_title_trgm ON public.org_chart USING gin (workspace_id, public.ws_unaccent(title) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: people_company; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_company ON public.people USING btree (workspace_id, company_id, created_at DESC, id DESC);

--
-- Name: people_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_email ON public.people USING btree (workspace_id, email, created_at DESC, id DESC);

--
-- Name: people_email_match; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_email_match ON public.people USING btree (workspace_id, lower(email));

--
-- Name: people_email_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_email_sort ON public.people USING btree (workspace_id, email, id);

--
-- Name: people_email_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_email_trgm ON public.people USING gin (workspace_id, public.ws_unaccent(email) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: people_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_keyset ON public.people USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: people_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_name_sort ON public.people USING btree (workspace_id, name, id);

--
-- Name: people_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_name_trgm ON public.people USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: people_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_search ON public.people USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: people_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX people_sync ON public.people USING btree (workspace_id, updated_at, id);

--
-- Name: pipeline_stages_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipeline_stages_keyset ON public.pipeline_stages USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: pipeline_stages_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipeline_stages_name_sort ON public.pipeline_stages USING btree (workspace_id, name, id);

--
-- Name: pipeline_stages_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipeline_stages_name_trgm ON public.pipeline_stages USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: pipeline_stages_pipeline; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipeline_stages_pipeline ON public.pipeline_stages USING btree (workspace_id, pipeline_id, created_at DESC, id DESC);

--
-- Name: pipeline_stages_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipeline_stages_search ON public.pipeline_stages USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: pipeline_stages_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipeline_stages_sync ON public.pipeline_stages USING btree (workspace_id, updated_at, id);

--
-- Name: pipelines_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipelines_keyset ON public.pipelines USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: pipelines_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipelines_name_sort ON public.pipelines USING btree (workspace_id, name, id);

--
-- Name: pipelines_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipelines_name_trgm ON public.pipelines USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: pipelines_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipelines_search ON public.pipelines USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: pipelines_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipelines_sync ON public.pipelines USING btree (workspace_id, updated_at, id);

--
-- Name: project_stages_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX project_stages_keyset ON public.project_stages USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: project_stages_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX project_stages_name_sort ON public.project_stages USING btree (workspace_id, name, id);

--
-- Name: project_stages_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX project_stages_name_trgm ON public.project_stages USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: project_stages_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX project_stages_project ON public.project_stages USING btree (workspace_id, project_id, created_at DESC, id DESC);

--
-- Name: project_stages_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX project_stages_search ON public.project_stages USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: project_stages_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX project_stages_sync ON public.project_stages USING btree (workspace_id, updated_at, id);

--
-- Name: projects_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX projects_keyset ON public.projects USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: projects_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX projects_name_sort ON public.projects USING btree (workspace_id, name, id);

--
-- Name: projects_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX projects_name_trgm ON public.projects USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: projects_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX projects_search ON public.projects USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: projects_space; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX projects_space ON public.projects USING btree (workspace_id, space_id, created_at DESC, id DESC);

--
-- Name: projects_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX projects_sync ON public.projects USING btree (workspace_id, updated_at, id);

--
-- Name: river_job_args_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_args_index ON public.river_job USING gin (args);

--
-- Name: river_job_kind; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_kind ON public.river_job USING btree (kind);

--
-- Name: river_job_metadata_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_metadata_index ON public.river_job USING gin (metadata);

--
-- Name: river_job_prioritized_fetching_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_prioritized_fetching_index ON public.river_job USING btree (state, queue, priority, scheduled_at, id);

--
-- Name: river_job_state_and_finalized_at_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_state_and_finalized_at_index ON public.river_job USING btree (state, finalized_at) WHERE (finalized_at IS NOT NULL);

--
-- Name: river_job_unique_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX river_job_unique_idx ON public.river_job USING btree (unique_key) WHERE ((unique_key IS NOT NULL) AND (unique_states IS NOT NULL) AND public.river_job_state_in_bitmask(unique_states, state));

--
-- Name: river_notification_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_notification_created_at_idx ON public.river_notification USING btree (created_at);

--
-- Name: river_notification_topic_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_notification_topic_id_idx ON public.river_notification USING btree (topic, id);

--
-- Name: space_members_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX space_members_keyset ON public.space_members USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: space_members_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX space_members_sync ON public.space_members USING btree (workspace_id, updated_at, id);

--
-- Name: space_members_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX space_members_user ON public.space_members USING btree (workspace_id, user_id, created_at DESC, id DESC);

--
-- Name: space_updates_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX space_updates_keyset ON public.space_updates USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: space_updates_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX space_updates_search ON public.space_updates USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: space_updates_space; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX space_updates_space ON public.space_updates USING btree (workspace_id, space_id, created_at DESC, id DESC);

--
-- Name: space_updates_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX space_updates_sync ON public.space_updates USING btree (workspace_id, updated_at, id);

--
-- Name: spaces_filters; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX spaces_filters ON public.spaces USING btree (workspace_id, status, created_at DESC, id DESC);

--
-- Name: spaces_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX spaces_keyset ON public.spaces USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: spaces_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX spaces_name_sort ON public.spaces USING btree (workspace_id, name, id);

--
-- Name: spaces_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX spaces_name_trgm ON public.spaces USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: spaces_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX spaces_search ON public.spaces USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: spaces_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX spaces_sync ON public.spaces USING btree (workspace_id, updated_at, id);

--
-- Name: task_attachments_crm_task; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_attachments_crm_task ON public.task_attachments USING btree (workspace_id, crm_task_id, created_at DESC, id DESC);

--
-- Name: task_attachments_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_attachments_keyset ON public.task_attachments USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: task_attachments_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_attachments_name_sort ON public.task_attachments USING btree (workspace_id, name, id);

--
-- Name: task_attachments_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_attachments_name_trgm ON public.task_attachments USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: task_attachments_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_attachments_search ON public.task_attachments USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: task_attachments_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_attachments_sync ON public.task_attachments USING btree (workspace_id, updated_at, id);

--
-- Name: task_attachments_task; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_attachments_task ON public.task_attachments USING btree (workspace_id, task_id, created_at DESC, id DESC);

--
-- Name: tasks_assignee; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_assignee ON public.tasks USING btree (workspace_id, assignee_id, created_at DESC, id DESC);

--
-- Name: tasks_due_date_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_due_date_sort ON public.tasks USING btree (workspace_id, due_date, id);

--
-- Name: tasks_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_keyset ON public.tasks USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: tasks_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_name_sort ON public.tasks USING btree (workspace_id, name, id);

--
-- Name: tasks_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_name_trgm ON public.tasks USING gin (workspace_id, public.ws_unaccent(name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: tasks_priority; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_priority ON public.tasks USING btree (workspace_id, priority, created_at DESC, id DESC);

--
-- Name: tasks_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_project ON public.tasks USING btree (workspace_id, project_id, created_at DESC, id DESC);

--
-- Name: tasks_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_search ON public.tasks USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: tasks_space; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_space ON public.tasks USING btree (workspace_id, space_id, created_at DESC, id DESC);

--
-- Name: tasks_stage; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_stage ON public.tasks USING btree (workspace_id, stage_id, created_at DESC, id DESC);

--
-- Name: tasks_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_sync ON public.tasks USING btree (workspace_id, updated_at, id);

--
-- Name: team_members_date_hired_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_date_hired_sort ON public.team_members USING btree (workspace_id, date_hired, id);

--
-- Name: team_members_department; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_department ON public.team_members USING btree (workspace_id, department_id, created_at DESC, id DESC);

--
-- Name: team_members_display_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_display_name_sort ON public.team_members USING btree (workspace_id, display_name, id);

--
-- Name: team_members_display_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_display_name_trgm ON public.team_members USING gin (workspace_id, public.ws_unaccent(display_name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: team_members_email_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_email_trgm ON public.team_members USING gin (workspace_id, public.ws_unaccent(email) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: team_members_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_keyset ON public.team_members USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: team_members_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_search ON public.team_members USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: team_members_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_sync ON public.team_members USING btree (workspace_id, updated_at, id);

--
-- Name: team_members_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_members_user ON public.team_members USING btree (workspace_id, user_id, created_at DESC, id DESC);

--
-- Name: users_display_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_display_name_sort ON public.users USING btree (workspace_id, display_name, id);

--
-- Name: users_display_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_display_name_trgm ON public.users USING gin (workspace_id, public.ws_unaccent(display_name) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: users_email; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX users_email ON public.users USING btree (lower(email)) WHERE (status <> 'invited'::text);

--
-- Name: users_email_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_email_sort ON public.users USING btree (workspace_id, email, id);

--
-- Name: users_email_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_email_trgm ON public.users USING gin (workspace_id, public.ws_unaccent(email) public.ws_trgm_ops) WITH (gin_pending_list_limit='64');

--
-- Name: users_filters; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_filters ON public.users USING btree (workspace_id, role, status, created_at DESC, id DESC);

--
-- Name: users_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_keyset ON public.users USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: users_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_search ON public.users USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64');

--
-- Name: users_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_sync ON public.users USING btree (workspace_id, updated_at, id);

--
-- Name: users_workspace_email; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX users_workspace_email ON public.users USING btree (workspace_id, lower(email));

--
-- Name: webhook_deliveries_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_created_at ON public.webhook_deliveries USING brin (created_at);

--
-- Name: webhook_deliveries_endpoint_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_endpoint_id ON public.webhook_deliveries USING btree (workspace_id, endpoint_id, created_at DESC, id DESC);

--
-- Name: webhook_deliveries_event_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_event_id ON public.webhook_deliveries USING btree (event_id);

--
-- Name: webhook_deliveries_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_keyset ON public.webhook_deliveries USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: webhook_deliveries_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_sync ON public.webhook_deliveries USING btree (workspace_id, updated_at, id);

--
-- Name: webhook_endpoints_enabled; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_endpoints_enabled ON public.webhook_endpoints USING btree (workspace_id) WHERE enabled;

--
-- Name: webhook_endpoints_keyset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_endpoints_keyset ON public.webhook_endpoints USING btree (workspace_id, created_at DESC, id DESC);

--
-- Name: webhook_endpoints_sync; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_endpoints_sync ON public.webhook_endpoints USING btree (workspace_id, updated_at, id);

--
-- Name: webhook_events_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_events_created_at ON public.webhook_events USING brin (created_at);

--
-- Name: custom_fields absent_fill; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER absent_fill AFTER INSERT ON public.custom_fields FOR EACH ROW EXECUTE FUNCTION public.ws_custom_absent_fill();

--
-- Name: automations activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.automations FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('automations', '');

--
-- Name: canvases activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.canvases FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('canvases', '');

--
-- Name: comments activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.comments FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('comments', '');

--
-- Name: companies activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.companies FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('companies', 'crm');

--
-- Name: custom_fields activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.custom_fields FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('custom_fields', '');

--
-- Name: deal_labels activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.deal_labels FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('deal_labels', 'crm');

--
-- Name: deal_people activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.deal_people FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('deal_people', 'crm');

--
-- Name: deal_tasks activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.deal_tasks FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('deal_tasks', 'crm');

--
-- Name: deals activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.deals FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('deals', 'crm');

--
-- Name: debt_payments activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.debt_payments FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('debt_payments', 'finance');

--
-- Name: debts activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.debts FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('debts', 'finance');

--
-- Name: departments activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.departments FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('departments', 'hr');

--
-- Name: documents activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.documents FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('documents', '');

--
-- Name: expenses activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.expenses FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('expenses', 'finance');

--
-- Name: finance_categories activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.finance_categories FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('finance_categories', 'finance');

--
-- Name: hr_change_requests activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.hr_change_requests FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('hr_change_requests', 'hr');

--
-- Name: hr_contracts activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.hr_contracts FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('hr_contracts', 'hr');

--
-- Name: income activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.income FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('income', 'finance');

--
-- Name: knowledge activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.knowledge FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('knowledge', '');

--
-- Name: labels activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.labels FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('labels', '');

--
-- Name: leave_requests activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.leave_requests FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('leave_requests', 'hr');

--
-- Name: metric_entries activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.metric_entries FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('metric_entries', 'metrics');

--
-- Name: metric_pages activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.metric_pages FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('metric_pages', 'metrics');

--
-- Name: metrics activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.metrics FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('metrics', 'metrics');

--
-- Name: org_chart activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.org_chart FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('org_chart', 'hr');

--
-- Name: people activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.people FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('people', 'crm');

--
-- Name: pipeline_stages activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.pipeline_stages FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('pipeline_stages', 'crm');

--
-- Name: pipelines activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.pipelines FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('pipelines', 'crm');

--
-- Name: project_stages activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.project_stages FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('project_stages', '');

--
-- Name: projects activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.projects FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('projects', '');

--
-- Name: space_members activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.space_members FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('space_members', '');

--
-- Name: space_updates activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.space_updates FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('space_updates', '');

--
-- Name: spaces activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.spaces FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('spaces', '');

--
-- Name: tasks activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.tasks FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('tasks', '');

--
-- Name: team_members activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.team_members FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('team_members', 'hr');

--
-- Name: users activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER UPDATE ON public.users FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('users', '');

--
-- Name: webhook_endpoints activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER DELETE OR UPDATE ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('webhook_endpoints', '');

--
-- Name: workspaces activity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity AFTER UPDATE ON public.workspaces FOR EACH ROW EXECUTE FUNCTION public.ws_record_activity('workspace', '');

--
-- Name: activity activity_redact; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_redact BEFORE INSERT ON public.activity FOR EACH ROW WHEN ((new.entity_type = 'webhook_endpoints'::text)) EXECUTE FUNCTION public.ws_activity_redact();

--
-- Name: automations activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.automations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('automations', '');

--
-- Name: canvases activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.canvases REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('canvases', '');

--
-- Name: comments activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.comments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('comments', '');

--
-- Name: companies activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.companies REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('companies', 'crm');

--
-- Name: custom_fields activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.custom_fields REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('custom_fields', '');

--
-- Name: deal_labels activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.deal_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('deal_labels', 'crm');

--
-- Name: deal_people activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.deal_people REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('deal_people', 'crm');

--
-- Name: deal_tasks activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.deal_tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('deal_tasks', 'crm');

--
-- Name: deals activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.deals REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('deals', 'crm');

--
-- Name: debt_payments activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.debt_payments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('debt_payments', 'finance');

--
-- Name: debts activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.debts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('debts', 'finance');

--
-- Name: departments activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.departments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('departments', 'hr');

--
-- Name: documents activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.documents REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('documents', '');

--
-- Name: expenses activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.expenses REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('expenses', 'finance');

--
-- Name: finance_categories activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.finance_categories REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('finance_categories', 'finance');

--
-- Name: hr_change_requests activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.hr_change_requests REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('hr_change_requests', 'hr');

--
-- Name: hr_contracts activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.hr_contracts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('hr_contracts', 'hr');

--
-- Name: income activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.income REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('income', 'finance');

--
-- Name: knowledge activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.knowledge REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('knowledge', '');

--
-- Name: labels activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('labels', '');

--
-- Name: leave_requests activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.leave_requests REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('leave_requests', 'hr');

--
-- Name: metric_entries activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.metric_entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('metric_entries', 'metrics');

--
-- Name: metric_pages activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.metric_pages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('metric_pages', 'metrics');

--
-- Name: metrics activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.metrics REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('metrics', 'metrics');

--
-- Name: org_chart activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.org_chart REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('org_chart', 'hr');

--
-- Name: people activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.people REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('people', 'crm');

--
-- Name: pipeline_stages activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.pipeline_stages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('pipeline_stages', 'crm');

--
-- Name: pipelines activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.pipelines REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('pipelines', 'crm');

--
-- Name: project_stages activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.project_stages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('project_stages', '');

--
-- Name: projects activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.projects REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('projects', '');

--
-- Name: space_members activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.space_members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('space_members', '');

--
-- Name: space_updates activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.space_updates REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('space_updates', '');

--
-- Name: spaces activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.spaces REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('spaces', '');

--
-- Name: tasks activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('tasks', '');

--
-- Name: team_members activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.team_members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('team_members', 'hr');

--
-- Name: webhook_endpoints activity_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_rows AFTER INSERT ON public.webhook_endpoints REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_activity_rows('webhook_endpoints', '');

--
-- Name: activity activity_source; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_source BEFORE INSERT ON public.activity FOR EACH ROW EXECUTE FUNCTION public.ws_activity_source();

--
-- Name: deal_tasks assignee_ids_check; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER assignee_ids_check BEFORE INSERT OR UPDATE OF assignee_ids ON public.deal_tasks FOR EACH ROW EXECUTE FUNCTION public.ws_check_id_array('assignee_ids', 'users');

--
-- Name: tasks assignee_ids_check; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER assignee_ids_check BEFORE INSERT OR UPDATE OF assignee_ids ON public.tasks FOR EACH ROW EXECUTE FUNCTION public.ws_check_id_array('assignee_ids', 'users');

--
-- Name: custom_fields custom_fields_version; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_fields_version AFTER INSERT OR DELETE OR UPDATE ON public.custom_fields FOR EACH ROW EXECUTE FUNCTION public.ws_custom_fields_bump();

--
-- Name: companies custom_index; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index AFTER UPDATE OF custom_fields ON public.companies FOR EACH ROW EXECUTE FUNCTION public.ws_custom_index('companies');

--
-- Name: deal_tasks custom_index; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index AFTER UPDATE OF custom_fields ON public.deal_tasks FOR EACH ROW EXECUTE FUNCTION public.ws_custom_index('deal_tasks');

--
-- Name: deals custom_index; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index AFTER UPDATE OF custom_fields ON public.deals FOR EACH ROW EXECUTE FUNCTION public.ws_custom_index('deals');

--
-- Name: people custom_index; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index AFTER UPDATE OF custom_fields ON public.people FOR EACH ROW EXECUTE FUNCTION public.ws_custom_index('people');

--
-- Name: projects custom_index; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index AFTER UPDATE OF custom_fields ON public.projects FOR EACH ROW EXECUTE FUNCTION public.ws_custom_index('projects');

--
-- Name: tasks custom_index; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index AFTER UPDATE OF custom_fields ON public.tasks FOR EACH ROW EXECUTE FUNCTION public.ws_custom_index('tasks');

--
-- Name: companies custom_index_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index_rows AFTER INSERT ON public.companies REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_custom_index_rows('companies');

--
-- Name: deal_tasks custom_index_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index_rows AFTER INSERT ON public.deal_tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_custom_index_rows('deal_tasks');

--
-- Name: deals custom_index_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index_rows AFTER INSERT ON public.deals REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_custom_index_rows('deals');

--
-- Name: people custom_index_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index_rows AFTER INSERT ON public.people REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_custom_index_rows('people');

--
-- Name: projects custom_index_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index_rows AFTER INSERT ON public.projects REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_custom_index_rows('projects');

--
-- Name: tasks custom_index_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER custom_index_rows AFTER INSERT ON public.tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_custom_index_rows('tasks');

--
-- Name: deal_tasks deal_tasks_assignees; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER deal_tasks_assignees BEFORE INSERT OR UPDATE OF assignee_id, assignee_ids ON public.deal_tasks FOR EACH ROW EXECUTE FUNCTION public.ws_task_assignees();

--
-- Name: deals deals_status; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER deals_status BEFORE INSERT OR UPDATE OF pipeline_stage_id, status ON public.deals FOR EACH ROW EXECUTE FUNCTION public.ws_deal_status();

--
-- Name: comments entity_check; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER entity_check BEFORE INSERT OR UPDATE OF entity_type, entity_id ON public.comments FOR EACH ROW EXECUTE FUNCTION public.ws_comment_entity();

--
-- Name: custom_fields guard; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER guard BEFORE INSERT OR UPDATE ON public.custom_fields FOR EACH ROW EXECUTE FUNCTION public.ws_custom_field_guard();

--
-- Name: metrics member_ids_check; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER member_ids_check BEFORE INSERT OR UPDATE OF member_ids ON public.metrics FOR EACH ROW EXECUTE FUNCTION public.ws_check_id_array('member_ids', 'users');

--
-- Name: oauth_sessions oauth_sessions_sign_in; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER oauth_sessions_sign_in AFTER INSERT ON public.oauth_sessions FOR EACH ROW EXECUTE FUNCTION public.member_signed_in();

--
-- Name: metrics pipeline_ids_check; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER pipeline_ids_check BEFORE INSERT OR UPDATE OF pipeline_ids ON public.metrics FOR EACH ROW EXECUTE FUNCTION public.ws_check_id_array('pipeline_ids', 'pipelines');

--
-- Name: pipeline_stages pipeline_stages_outcome; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER pipeline_stages_outcome AFTER UPDATE OF outcome ON public.pipeline_stages FOR EACH ROW WHEN ((new.outcome IS DISTINCT FROM old.outcome)) EXECUTE FUNCTION public.ws_stage_outcome();

--
-- Name: custom_fields reindex; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER reindex AFTER UPDATE OF type, "unique" ON public.custom_fields FOR EACH ROW EXECUTE FUNCTION public.ws_custom_reindex();

--
-- Name: hr_change_requests review; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER review BEFORE INSERT OR UPDATE ON public.hr_change_requests FOR EACH ROW EXECUTE FUNCTION public.ws_stamp_review();

--
-- Name: leave_requests review; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER review BEFORE INSERT OR UPDATE ON public.leave_requests FOR EACH ROW EXECUTE FUNCTION public.ws_stamp_review();

--
-- Name: custom_fields searchable; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER searchable AFTER UPDATE OF searchable ON public.custom_fields FOR EACH ROW WHEN ((new.searchable IS DISTINCT FROM old.searchable)) EXECUTE FUNCTION public.ws_custom_searchable();

--
-- Name: metrics space_ids_check; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER space_ids_check BEFORE INSERT OR UPDATE OF space_ids ON public.metrics FOR EACH ROW EXECUTE FUNCTION public.ws_check_id_array('space_ids', 'spaces');

--
-- Name: tasks tasks_assignees; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER tasks_assignees BEFORE INSERT OR UPDATE OF assignee_id, assignee_ids ON public.tasks FOR EACH ROW EXECUTE FUNCTION public.ws_task_assignees();

--
-- Name: webhook_events to_outbox; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER to_outbox BEFORE INSERT ON public.webhook_events FOR EACH ROW WHEN ((new.dispatched_at IS NULL)) EXECUTE FUNCTION public.ws_event_to_outbox();

--
-- Name: activity touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.activity FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: agents touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.agents FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: automation_logs touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.automation_logs FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: automations touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.automations FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: canvases touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.canvases FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: comments touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.comments FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: companies touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.companies FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: competitor_reports touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.competitor_reports FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: competitor_workflows touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.competitor_workflows FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: credit_balances touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.credit_balances FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: credit_holds touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.credit_holds FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: credit_ledger touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.credit_ledger FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: crm_files touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.crm_files FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: custom_fields touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.custom_fields FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: deal_labels touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.deal_labels FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: deal_people touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.deal_people FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: deal_tasks touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.deal_tasks FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: deals touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.deals FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: debt_payments touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.debt_payments FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: debts touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.debts FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: departments touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.departments FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: documents touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.documents FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: enrichment_cache touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.enrichment_cache FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: expenses touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.expenses FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: finance_categories touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.finance_categories FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: hr_change_requests touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.hr_change_requests FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: hr_contracts touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.hr_contracts FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: income touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.income FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: knowledge touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.knowledge FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: labels touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.labels FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: leave_requests touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.leave_requests FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: metric_entries touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.metric_entries FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: metric_pages touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.metric_pages FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: metrics touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.metrics FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: org_chart touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.org_chart FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: people touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.people FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: pipeline_stages touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.pipeline_stages FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: pipelines touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.pipelines FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: project_stages touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.project_stages FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: projects touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.projects FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: space_members touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.space_members FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: space_updates touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.space_updates FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: spaces touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.spaces FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: task_attachments touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.task_attachments FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: tasks touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.tasks FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: team_members touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.team_members FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: users touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.users FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: webhook_deliveries touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.webhook_deliveries FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: webhook_endpoints touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: workspaces touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER touch BEFORE UPDATE ON public.workspaces FOR EACH ROW EXECUTE FUNCTION public.ws_touch();

--
-- Name: automations webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.automations FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('automations', '');

--
-- Name: canvases webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.canvases FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('canvases', '');

--
-- Name: comments webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.comments FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('comments', '');

--
-- Name: companies webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.companies FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('companies', 'crm');

--
-- Name: custom_fields webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.custom_fields FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('custom_fields', '');

--
-- Name: deal_labels webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.deal_labels FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('deal_labels', 'crm');

--
-- Name: deal_people webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.deal_people FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('deal_people', 'crm');

--
-- Name: deal_tasks webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.deal_tasks FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('deal_tasks', 'crm');

--
-- Name: deals webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.deals FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('deals', 'crm');

--
-- Name: debt_payments webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.debt_payments FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('debt_payments', 'finance');

--
-- Name: debts webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.debts FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('debts', 'finance');

--
-- Name: departments webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.departments FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('departments', 'hr');

--
-- Name: documents webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.documents FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('documents', '');

--
-- Name: expenses webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.expenses FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('expenses', 'finance');

--
-- Name: finance_categories webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.finance_categories FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('finance_categories', 'finance');

--
-- Name: hr_change_requests webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.hr_change_requests FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('hr_change_requests', 'hr');

--
-- Name: hr_contracts webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.hr_contracts FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('hr_contracts', 'hr');

--
-- Name: income webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.income FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('income', 'finance');

--
-- Name: knowledge webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.knowledge FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('knowledge', '');

--
-- Name: labels webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.labels FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('labels', '');

--
-- Name: leave_requests webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.leave_requests FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('leave_requests', 'hr');

--
-- Name: metric_entries webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.metric_entries FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('metric_entries', 'metrics');

--
-- Name: metric_pages webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.metric_pages FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('metric_pages', 'metrics');

--
-- Name: metrics webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.metrics FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('metrics', 'metrics');

--
-- Name: org_chart webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.org_chart FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('org_chart', 'hr');

--
-- Name: people webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.people FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('people', 'crm');

--
-- Name: pipeline_stages webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.pipeline_stages FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('pipeline_stages', 'crm');

--
-- Name: pipelines webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.pipelines FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('pipelines', 'crm');

--
-- Name: project_stages webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.project_stages FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('project_stages', '');

--
-- Name: projects webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.projects FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('projects', '');

--
-- Name: space_members webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.space_members FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('space_members', '');

--
-- Name: space_updates webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.space_updates FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('space_updates', '');

--
-- Name: spaces webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.spaces FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('spaces', '');

--
-- Name: tasks webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.tasks FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('tasks', '');

--
-- Name: team_members webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.team_members FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('team_members', 'hr');

--
-- Name: users webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER UPDATE ON public.users FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('users', '');

--
-- Name: webhook_endpoints webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER DELETE OR UPDATE ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('webhook_endpoints', '');

--
-- Name: workspaces webhook_event; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event AFTER UPDATE ON public.workspaces FOR EACH ROW EXECUTE FUNCTION public.ws_record_event('workspace', '');

--
-- Name: automations webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.automations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('automations', '');

--
-- Name: canvases webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.canvases REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('canvases', '');

--
-- Name: comments webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.comments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('comments', '');

--
-- Name: companies webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.companies REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('companies', 'crm');

--
-- Name: custom_fields webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.custom_fields REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('custom_fields', '');

--
-- Name: deal_labels webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.deal_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('deal_labels', 'crm');

--
-- Name: deal_people webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.deal_people REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('deal_people', 'crm');

--
-- Name: deal_tasks webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.deal_tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('deal_tasks', 'crm');

--
-- Name: deals webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.deals REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('deals', 'crm');

--
-- Name: debt_payments webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.debt_payments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('debt_payments', 'finance');

--
-- Name: debts webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.debts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('debts', 'finance');

--
-- Name: departments webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.departments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('departments', 'hr');

--
-- Name: documents webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.documents REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('documents', '');

--
-- Name: expenses webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.expenses REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('expenses', 'finance');

--
-- Name: finance_categories webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.finance_categories REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('finance_categories', 'finance');

--
-- Name: hr_change_requests webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.hr_change_requests REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('hr_change_requests', 'hr');

--
-- Name: hr_contracts webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.hr_contracts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('hr_contracts', 'hr');

--
-- Name: income webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.income REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('income', 'finance');

--
-- Name: knowledge webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.knowledge REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('knowledge', '');

--
-- Name: labels webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('labels', '');

--
-- Name: leave_requests webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.leave_requests REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('leave_requests', 'hr');

--
-- Name: metric_entries webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.metric_entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('metric_entries', 'metrics');

--
-- Name: metric_pages webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.metric_pages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('metric_pages', 'metrics');

--
-- Name: metrics webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.metrics REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('metrics', 'metrics');

--
-- Name: org_chart webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.org_chart REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('org_chart', 'hr');

--
-- Name: people webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.people REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('people', 'crm');

--
-- Name: pipeline_stages webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.pipeline_stages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('pipeline_stages', 'crm');

--
-- Name: pipelines webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.pipelines REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('pipelines', 'crm');

--
-- Name: project_stages webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.project_stages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('project_stages', '');

--
-- Name: projects webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.projects REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('projects', '');

--
-- Name: space_members webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.space_members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('space_members', '');

--
-- Name: space_updates webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.space_updates REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('space_updates', '');

--
-- Name: spaces webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.spaces REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('spaces', '');

--
-- Name: tasks webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('tasks', '');

--
-- Name: team_members webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.team_members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('team_members', 'hr');

--
-- Name: webhook_endpoints webhook_event_rows; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER webhook_event_rows AFTER INSERT ON public.webhook_endpoints REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.ws_record_event_rows('webhook_endpoints', '');

--
-- Name: activity activity_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity
    ADD CONSTRAINT activity_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: activity activity_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity
    ADD CONSTRAINT activity_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: agent_keys agent_keys_workspace_id_agent_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agent_keys
    ADD CONSTRAINT agent_keys_workspace_id_agent_id_fkey FOREIGN KEY (workspace_id, agent_id) REFERENCES public.agents(workspace_id, id);

--
-- Name: agent_keys agent_keys_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agent_keys
    ADD CONSTRAINT agent_keys_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: agents agents_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: agents agents_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: agents agents_workspace_id_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_workspace_id_user_id_fkey FOREIGN KEY (workspace_id, user_id) REFERENCES public.users(workspace_id, id);

--
-- Name: automation_logs automation_logs_workspace_id_automation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automation_logs
    ADD CONSTRAINT automation_logs_workspace_id_automation_id_fkey FOREIGN KEY (workspace_id, automation_id) REFERENCES public.automations(workspace_id, id);

--
-- Name: automation_logs automation_logs_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automation_logs
    ADD CONSTRAINT automation_logs_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: automation_logs automation_logs_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automation_logs
    ADD CONSTRAINT automation_logs_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: automations automations_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automations
    ADD CONSTRAINT automations_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: automations automations_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automations
    ADD CONSTRAINT automations_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: canvases canvases_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canvases
    ADD CONSTRAINT canvases_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: canvases canvases_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canvases
    ADD CONSTRAINT canvases_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: comments comments_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.comments
    ADD CONSTRAINT comments_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: comments comments_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.comments
    ADD CONSTRAINT comments_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: comments comments_workspace_id_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.comments
    ADD CONSTRAINT comments_workspace_id_user_id_fkey FOREIGN KEY (workspace_id, user_id) REFERENCES public.users(workspace_id, id);

--
-- Name: companies companies_merged_into_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.companies
    ADD CONSTRAINT companies_merged_into_fkey FOREIGN KEY (workspace_id, merged_into_id) REFERENCES public.companies(workspace_id, id);

--
-- Name: companies companies_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.companies
    ADD CONSTRAINT companies_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: companies companies_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.companies
    ADD CONSTRAINT companies_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: competitor_reports competitor_reports_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_reports
    ADD CONSTRAINT competitor_reports_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: competitor_reports competitor_reports_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_reports
    ADD CONSTRAINT competitor_reports_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: competitor_reports competitor_reports_workspace_id_workflow_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_reports
    ADD CONSTRAINT competitor_reports_workspace_id_workflow_id_fkey FOREIGN KEY (workspace_id, workflow_id) REFERENCES public.competitor_workflows(workspace_id, id);

--
-- Name: competitor_workflows competitor_workflows_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_workflows
    ADD CONSTRAINT competitor_workflows_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: competitor_workflows competitor_workflows_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_workflows
    ADD CONSTRAINT competitor_workflows_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: competitor_workflows competitor_workflows_workspace_id_space_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.competitor_workflows
    ADD CONSTRAINT competitor_workflows_workspace_id_space_id_fkey FOREIGN KEY (workspace_id, space_id) REFERENCES public.spaces(workspace_id, id);

--
-- Name: credential_usage credential_usage_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credential_usage
    ADD CONSTRAINT credential_usage_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: credit_balances credit_balances_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_balances
    ADD CONSTRAINT credit_balances_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: credit_balances credit_balances_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_balances
    ADD CONSTRAINT credit_balances_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: credit_holds credit_holds_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_holds
    ADD CONSTRAINT credit_holds_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: credit_holds credit_holds_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_holds
    ADD CONSTRAINT credit_holds_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: credit_ledger credit_ledger_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_ledger
    ADD CONSTRAINT credit_ledger_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: credit_ledger credit_ledger_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_ledger
    ADD CONSTRAINT credit_ledger_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: crm_files crm_files_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.crm_files
    ADD CONSTRAINT crm_files_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: crm_files crm_files_workspace_id_deal_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.crm_files
    ADD CONSTRAINT crm_files_workspace_id_deal_id_fkey FOREIGN KEY (workspace_id, deal_id) REFERENCES public.deals(workspace_id, id);

--
-- Name: crm_files crm_files_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.crm_files
    ADD CONSTRAINT crm_files_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: custom_field_versions custom_field_versions_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custom_field_versions
    ADD CONSTRAINT custom_field_versions_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: custom_fields custom_fields_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custom_fields
    ADD CONSTRAINT custom_fields_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: custom_fields custom_fields_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custom_fields
    ADD CONSTRAINT custom_fields_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: custom_values custom_values_workspace_id_field_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custom_values
    ADD CONSTRAINT custom_values_workspace_id_field_id_fkey FOREIGN KEY (workspace_id, field_id) REFERENCES public.custom_fields(workspace_id, id);

--
-- Name: deal_labels deal_labels_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_labels
    ADD CONSTRAINT deal_labels_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: deal_labels deal_labels_workspace_id_deal_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_labels
    ADD CONSTRAINT deal_labels_workspace_id_deal_id_fkey FOREIGN KEY (workspace_id, deal_id) REFERENCES public.deals(workspace_id, id);

--
-- Name: deal_labels deal_labels_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_labels
    ADD CONSTRAINT deal_labels_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: deal_labels deal_labels_workspace_id_label_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_labels
    ADD CONSTRAINT deal_labels_workspace_id_label_id_fkey FOREIGN KEY (workspace_id, label_id) REFERENCES public.labels(workspace_id, id);

--
-- Name: deal_people deal_people_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_people
    ADD CONSTRAINT deal_people_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: deal_people deal_people_workspace_id_deal_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_people
    ADD CONSTRAINT deal_people_workspace_id_deal_id_fkey FOREIGN KEY (workspace_id, deal_id) REFERENCES public.deals(workspace_id, id);

--
-- Name: deal_people deal_people_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_people
    ADD CONSTRAINT deal_people_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: deal_people deal_people_workspace_id_person_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_people
    ADD CONSTRAINT deal_people_workspace_id_person_id_fkey FOREIGN KEY (workspace_id, person_id) REFERENCES public.people(workspace_id, id);

--
-- Name: deal_tasks deal_tasks_workspace_id_assignee_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_tasks
    ADD CONSTRAINT deal_tasks_workspace_id_assignee_id_fkey FOREIGN KEY (workspace_id, assignee_id) REFERENCES public.users(workspace_id, id);

--
-- Name: deal_tasks deal_tasks_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_tasks
    ADD CONSTRAINT deal_tasks_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: deal_tasks deal_tasks_workspace_id_deal_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_tasks
    ADD CONSTRAINT deal_tasks_workspace_id_deal_id_fkey FOREIGN KEY (workspace_id, deal_id) REFERENCES public.deals(workspace_id, id);

--
-- Name: deal_tasks deal_tasks_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_tasks
    ADD CONSTRAINT deal_tasks_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: deals deals_workspace_id_company_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_workspace_id_company_id_fkey FOREIGN KEY (workspace_id, company_id) REFERENCES public.companies(workspace_id, id);

--
-- Name: deals deals_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: deals deals_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: deals deals_workspace_id_owner_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_workspace_id_owner_id_fkey FOREIGN KEY (workspace_id, owner_id) REFERENCES public.users(workspace_id, id);

--
-- Name: deals deals_workspace_id_pipeline_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_workspace_id_pipeline_id_fkey FOREIGN KEY (workspace_id, pipeline_id) REFERENCES public.pipelines(workspace_id, id);

--
-- Name: deals deals_workspace_id_pipeline_stage_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_workspace_id_pipeline_stage_id_fkey FOREIGN KEY (workspace_id, pipeline_stage_id) REFERENCES public.pipeline_stages(workspace_id, id);

--
-- Name: debt_payments debt_payments_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debt_payments
    ADD CONSTRAINT debt_payments_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: debt_payments debt_payments_workspace_id_debt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debt_payments
    ADD CONSTRAINT debt_payments_workspace_id_debt_id_fkey FOREIGN KEY (workspace_id, debt_id) REFERENCES public.debts(workspace_id, id);

--
-- Name: debt_payments debt_payments_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debt_payments
    ADD CONSTRAINT debt_payments_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: debts debts_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debts
    ADD CONSTRAINT debts_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: debts debts_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.debts
    ADD CONSTRAINT debts_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: departments departments_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.departments
    ADD CONSTRAINT departments_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: departments departments_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.departments
    ADD CONSTRAINT departments_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: documents documents_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: documents documents_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: enrichment_cache enrichment_cache_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrichment_cache
    ADD CONSTRAINT enrichment_cache_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: enrichment_cache enrichment_cache_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrichment_cache
    ADD CONSTRAINT enrichment_cache_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: expenses expenses_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.expenses
    ADD CONSTRAINT expenses_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: expenses expenses_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.expenses
    ADD CONSTRAINT expenses_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: finance_categories finance_categories_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.finance_categories
    ADD CONSTRAINT finance_categories_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: finance_categories finance_categories_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.finance_categories
    ADD CONSTRAINT finance_categories_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: hr_change_requests hr_change_requests_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_change_requests
    ADD CONSTRAINT hr_change_requests_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: hr_change_requests hr_change_requests_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_change_requests
    ADD CONSTRAINT hr_change_requests_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: hr_change_requests hr_change_requests_workspace_id_member_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_change_requests
    ADD CONSTRAINT hr_change_requests_workspace_id_member_id_fkey FOREIGN KEY (workspace_id, member_id) REFERENCES public.team_members(workspace_id, id);

--
-- Name: hr_change_requests hr_change_requests_workspace_id_reviewed_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_change_requests
    ADD CONSTRAINT hr_change_requests_workspace_id_reviewed_by_fkey FOREIGN KEY (workspace_id, reviewed_by) REFERENCES public.users(workspace_id, id);

--
-- Name: hr_contracts hr_contracts_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_contracts
    ADD CONSTRAINT hr_contracts_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: hr_contracts hr_contracts_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_contracts
    ADD CONSTRAINT hr_contracts_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: hr_contracts hr_contracts_workspace_id_member_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hr_contracts
    ADD CONSTRAINT hr_contracts_workspace_id_member_id_fkey FOREIGN KEY (workspace_id, member_id) REFERENCES public.team_members(workspace_id, id);

--
-- Name: idempotency_keys idempotency_keys_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: import_chunks import_chunks_import_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.import_chunks
    ADD CONSTRAINT import_chunks_import_id_fkey FOREIGN KEY (import_id) REFERENCES public.imports(id) ON DELETE CASCADE;

--
-- Name: import_errors import_errors_import_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.import_errors
    ADD CONSTRAINT import_errors_import_id_fkey FOREIGN KEY (import_id) REFERENCES public.imports(id) ON DELETE CASCADE;

--
-- Name: import_parts import_parts_import_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.import_parts
    ADD CONSTRAINT import_parts_import_id_fkey FOREIGN KEY (import_id) REFERENCES public.imports(id) ON DELETE CASCADE;

--
-- Name: imports imports_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.imports
    ADD CONSTRAINT imports_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: income income_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.income
    ADD CONSTRAINT income_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: income income_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.income
    ADD CONSTRAINT income_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: knowledge knowledge_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge
    ADD CONSTRAINT knowledge_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: knowledge knowledge_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge
    ADD CONSTRAINT knowledge_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: labels labels_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.labels
    ADD CONSTRAINT labels_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: labels labels_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.labels
    ADD CONSTRAINT labels_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: leave_requests leave_requests_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leave_requests
    ADD CONSTRAINT leave_requests_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: leave_requests leave_requests_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leave_requests
    ADD CONSTRAINT leave_requests_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: leave_requests leave_requests_workspace_id_reviewed_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leave_requests
    ADD CONSTRAINT leave_requests_workspace_id_reviewed_by_fkey FOREIGN KEY (workspace_id, reviewed_by) REFERENCES public.users(workspace_id, id);

--
-- Name: leave_requests leave_requests_workspace_id_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leave_requests
    ADD CONSTRAINT leave_requests_workspace_id_user_id_fkey FOREIGN KEY (workspace_id, user_id) REFERENCES public.users(workspace_id, id);

--
-- Name: member_links member_links_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.member_links
    ADD CONSTRAINT member_links_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;

--
-- Name: member_links member_links_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.member_links
    ADD CONSTRAINT member_links_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: member_sign_ins member_sign_ins_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.member_sign_ins
    ADD CONSTRAINT member_sign_ins_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: metric_entries metric_entries_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_entries
    ADD CONSTRAINT metric_entries_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: metric_entries metric_entries_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_entries
    ADD CONSTRAINT metric_entries_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: metric_entries metric_entries_workspace_id_metric_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_entries
    ADD CONSTRAINT metric_entries_workspace_id_metric_id_fkey FOREIGN KEY (workspace_id, metric_id) REFERENCES public.metrics(workspace_id, id);

--
-- Name: metric_entries metric_entries_workspace_id_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_entries
    ADD CONSTRAINT metric_entries_workspace_id_user_id_fkey FOREIGN KEY (workspace_id, user_id) REFERENCES public.users(workspace_id, id);

--
-- Name: metric_pages metric_pages_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_pages
    ADD CONSTRAINT metric_pages_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: metric_pages metric_pages_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metric_pages
    ADD CONSTRAINT metric_pages_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: metrics metrics_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metrics
    ADD CONSTRAINT metrics_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: metrics metrics_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metrics
    ADD CONSTRAINT metrics_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: metrics metrics_workspace_id_page_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.metrics
    ADD CONSTRAINT metrics_workspace_id_page_id_fkey FOREIGN KEY (workspace_id, page_id) REFERENCES public.metric_pages(workspace_id, id);

--
-- Name: oauth_access_tokens oauth_access_tokens_family_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_access_tokens
    ADD CONSTRAINT oauth_access_tokens_family_id_fkey FOREIGN KEY (family_id) REFERENCES public.oauth_families(id) ON DELETE CASCADE;

--
-- Name: oauth_access_tokens oauth_access_tokens_refresh_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_access_tokens
    ADD CONSTRAINT oauth_access_tokens_refresh_id_fkey FOREIGN KEY (refresh_id) REFERENCES public.oauth_refresh_tokens(id) ON DELETE CASCADE;

--
-- Name: oauth_client_blocks oauth_client_blocks_blocked_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_client_blocks
    ADD CONSTRAINT oauth_client_blocks_blocked_by_fkey FOREIGN KEY (blocked_by) REFERENCES public.users(id) ON DELETE SET NULL;

--
-- Name: oauth_client_blocks oauth_client_blocks_client_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_client_blocks
    ADD CONSTRAINT oauth_client_blocks_client_id_fkey FOREIGN KEY (client_id) REFERENCES public.oauth_clients(id) ON DELETE CASCADE;

--
-- Name: oauth_client_blocks oauth_client_blocks_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_client_blocks
    ADD CONSTRAINT oauth_client_blocks_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: oauth_clients oauth_clients_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_clients
    ADD CONSTRAINT oauth_clients_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id);

--
-- Name: oauth_clients oauth_clients_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_clients
    ADD CONSTRAINT oauth_clients_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: oauth_codes oauth_codes_client_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_codes
    ADD CONSTRAINT oauth_codes_client_id_fkey FOREIGN KEY (client_id) REFERENCES public.oauth_clients(id) ON DELETE CASCADE;

--
-- Name: oauth_codes oauth_codes_family_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_codes
    ADD CONSTRAINT oauth_codes_family_id_fkey FOREIGN KEY (family_id) REFERENCES public.oauth_families(id) ON DELETE CASCADE;

--
-- Name: oauth_codes oauth_codes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_codes
    ADD CONSTRAINT oauth_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: oauth_codes oauth_codes_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_codes
    ADD CONSTRAINT oauth_codes_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: oauth_consents oauth_consents_client_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_consents
    ADD CONSTRAINT oauth_consents_client_id_fkey FOREIGN KEY (client_id) REFERENCES public.oauth_clients(id) ON DELETE CASCADE;

--
-- Name: oauth_consents oauth_consents_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_consents
    ADD CONSTRAINT oauth_consents_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: oauth_families oauth_families_client_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_families
    ADD CONSTRAINT oauth_families_client_id_fkey FOREIGN KEY (client_id) REFERENCES public.oauth_clients(id) ON DELETE CASCADE;

--
-- Name: oauth_families oauth_families_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_families
    ADD CONSTRAINT oauth_families_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: oauth_families oauth_families_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_families
    ADD CONSTRAINT oauth_families_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: oauth_refresh_tokens oauth_refresh_tokens_family_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_refresh_tokens
    ADD CONSTRAINT oauth_refresh_tokens_family_id_fkey FOREIGN KEY (family_id) REFERENCES public.oauth_families(id) ON DELETE CASCADE;

--
-- Name: oauth_sessions oauth_sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_sessions
    ADD CONSTRAINT oauth_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: org_chart org_chart_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_chart
    ADD CONSTRAINT org_chart_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: org_chart org_chart_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_chart
    ADD CONSTRAINT org_chart_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: org_chart org_chart_workspace_id_parent_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_chart
    ADD CONSTRAINT org_chart_workspace_id_parent_id_fkey FOREIGN KEY (workspace_id, parent_id) REFERENCES public.org_chart(workspace_id, id);

--
-- Name: org_chart org_chart_workspace_id_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_chart
    ADD CONSTRAINT org_chart_workspace_id_user_id_fkey FOREIGN KEY (workspace_id, user_id) REFERENCES public.users(workspace_id, id);

--
-- Name: people people_merged_into_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_merged_into_fkey FOREIGN KEY (workspace_id, merged_into_id) REFERENCES public.people(workspace_id, id);

--
-- Name: people people_workspace_id_company_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_workspace_id_company_id_fkey FOREIGN KEY (workspace_id, company_id) REFERENCES public.companies(workspace_id, id);

--
-- Name: people people_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: people people_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: pipeline_stages pipeline_stages_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipeline_stages
    ADD CONSTRAINT pipeline_stages_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: pipeline_stages pipeline_stages_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipeline_stages
    ADD CONSTRAINT pipeline_stages_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: pipeline_stages pipeline_stages_workspace_id_pipeline_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipeline_stages
    ADD CONSTRAINT pipeline_stages_workspace_id_pipeline_id_fkey FOREIGN KEY (workspace_id, pipeline_id) REFERENCES public.pipelines(workspace_id, id);

--
-- Name: pipelines pipelines_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipelines
    ADD CONSTRAINT pipelines_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: pipelines pipelines_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipelines
    ADD CONSTRAINT pipelines_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: project_stages project_stages_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_stages
    ADD CONSTRAINT project_stages_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: project_stages project_stages_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_stages
    ADD CONSTRAINT project_stages_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: project_stages project_stages_workspace_id_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_stages
    ADD CONSTRAINT project_stages_workspace_id_project_id_fkey FOREIGN KEY (workspace_id, project_id) REFERENCES public.projects(workspace_id, id);

--
-- Name: projects projects_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: projects projects_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: projects projects_workspace_id_space_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_workspace_id_space_id_fkey FOREIGN KEY (workspace_id, space_id) REFERENCES public.spaces(workspace_id, id);

--
-- Name: space_members space_members_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_members
    ADD CONSTRAINT space_members_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: space_members space_members_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_members
    ADD CONSTRAINT space_members_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: space_members space_members_workspace_id_space_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_members
    ADD CONSTRAINT space_members_workspace_id_space_id_fkey FOREIGN KEY (workspace_id, space_id) REFERENCES public.spaces(workspace_id, id);

--
-- Name: space_members space_members_workspace_id_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_members
    ADD CONSTRAINT space_members_workspace_id_user_id_fkey FOREIGN KEY (workspace_id, user_id) REFERENCES public.users(workspace_id, id);

--
-- Name: space_updates space_updates_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_updates
    ADD CONSTRAINT space_updates_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: space_updates space_updates_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_updates
    ADD CONSTRAINT space_updates_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: space_updates space_updates_workspace_id_space_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.space_updates
    ADD CONSTRAINT space_updates_workspace_id_space_id_fkey FOREIGN KEY (workspace_id, space_id) REFERENCES public.spaces(workspace_id, id);

--
-- Name: spaces spaces_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.spaces
    ADD CONSTRAINT spaces_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: spaces spaces_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.spaces
    ADD CONSTRAINT spaces_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: task_attachments task_attachments_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_attachments
    ADD CONSTRAINT task_attachments_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: task_attachments task_attachments_workspace_id_crm_task_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_attachments
    ADD CONSTRAINT task_attachments_workspace_id_crm_task_id_fkey FOREIGN KEY (workspace_id, crm_task_id) REFERENCES public.deal_tasks(workspace_id, id);

--
-- Name: task_attachments task_attachments_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_attachments
    ADD CONSTRAINT task_attachments_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: task_attachments task_attachments_workspace_id_space_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_attachments
    ADD CONSTRAINT task_attachments_workspace_id_space_id_fkey FOREIGN KEY (workspace_id, space_id) REFERENCES public.spaces(workspace_id, id);

--
-- Name: task_attachments task_attachments_workspace_id_task_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_attachments
    ADD CONSTRAINT task_attachments_workspace_id_task_id_fkey FOREIGN KEY (workspace_id, task_id) REFERENCES public.tasks(workspace_id, id);

--
-- Name: tasks tasks_workspace_id_assignee_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_workspace_id_assignee_id_fkey FOREIGN KEY (workspace_id, assignee_id) REFERENCES public.users(workspace_id, id);

--
-- Name: tasks tasks_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: tasks tasks_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: tasks tasks_workspace_id_parent_task_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_workspace_id_parent_task_id_fkey FOREIGN KEY (workspace_id, parent_task_id) REFERENCES public.tasks(workspace_id, id);

--
-- Name: tasks tasks_workspace_id_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_workspace_id_project_id_fkey FOREIGN KEY (workspace_id, project_id) REFERENCES public.projects(workspace_id, id);

--
-- Name: tasks tasks_workspace_id_space_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_workspace_id_space_id_fkey FOREIGN KEY (workspace_id, space_id) REFERENCES public.spaces(workspace_id, id);

--
-- Name: tasks tasks_workspace_id_stage_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_workspace_id_stage_id_fkey FOREIGN KEY (workspace_id, stage_id) REFERENCES public.project_stages(workspace_id, id);

--
-- Name: team_members team_members_workspace_id_authority_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_workspace_id_authority_user_id_fkey FOREIGN KEY (workspace_id, authority_user_id) REFERENCES public.users(workspace_id, id);

--
-- Name: team_members team_members_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: team_members team_members_workspace_id_department_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_workspace_id_department_id_fkey FOREIGN KEY (workspace_id, department_id) REFERENCES public.departments(workspace_id, id);

--
-- Name: team_members team_members_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: team_members team_members_workspace_id_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_workspace_id_user_id_fkey FOREIGN KEY (workspace_id, user_id) REFERENCES public.users(workspace_id, id);

--
-- Name: user_passwords user_passwords_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_passwords
    ADD CONSTRAINT user_passwords_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: users users_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: users users_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: webhook_deliveries webhook_deliveries_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: webhook_deliveries webhook_deliveries_workspace_id_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_workspace_id_endpoint_id_fkey FOREIGN KEY (workspace_id, endpoint_id) REFERENCES public.webhook_endpoints(workspace_id, id);

--
-- Name: webhook_deliveries webhook_deliveries_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: webhook_endpoints webhook_endpoints_workspace_id_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_workspace_id_created_by_fkey FOREIGN KEY (workspace_id, created_by) REFERENCES public.users(workspace_id, id);

--
-- Name: webhook_endpoints webhook_endpoints_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: webhook_events webhook_events_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_events
    ADD CONSTRAINT webhook_events_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id);

--
-- Name: webhook_secrets webhook_secrets_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_secrets
    ADD CONSTRAINT webhook_secrets_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id);

--
-- Name: webhook_secrets webhook_secrets_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_secrets
    ADD CONSTRAINT webhook_secrets_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: webhook_slots webhook_slots_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_slots
    ADD CONSTRAINT webhook_slots_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id);

--
-- Name: workspace_oauth_settings workspace_oauth_settings_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspace_oauth_settings
    ADD CONSTRAINT workspace_oauth_settings_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);

--
-- Name: activity; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.activity ENABLE ROW LEVEL SECURITY;

--
-- Name: agents; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.agents ENABLE ROW LEVEL SECURITY;

--
-- Name: automation_logs; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.automation_logs ENABLE ROW LEVEL SECURITY;

--
-- Name: automations; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.automations ENABLE ROW LEVEL SECURITY;

--
-- Name: canvases; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.canvases ENABLE ROW LEVEL SECURITY;

--
-- Name: comments; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.comments ENABLE ROW LEVEL SECURITY;

--
-- Name: companies; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.companies ENABLE ROW LEVEL SECURITY;

--
-- Name: competitor_reports; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.competitor_reports ENABLE ROW LEVEL SECURITY;

--
-- Name: competitor_workflows; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.competitor_workflows ENABLE ROW LEVEL SECURITY;

--
-- Name: credit_balances; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.credit_balances ENABLE ROW LEVEL SECURITY;

--
-- Name: credit_holds; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.credit_holds ENABLE ROW LEVEL SECURITY;

--
-- Name: credit_ledger; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.credit_ledger ENABLE ROW LEVEL SECURITY;

--
-- Name: crm_files; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.crm_files ENABLE ROW LEVEL SECURITY;

--
-- Name: custom_absent; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.custom_absent ENABLE ROW LEVEL SECURITY;

--
-- Name: custom_field_versions; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.custom_field_versions ENABLE ROW LEVEL SECURITY;

--
-- Name: custom_fields; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.custom_fields ENABLE ROW LEVEL SECURITY;

--
-- Name: custom_values; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.custom_values ENABLE ROW LEVEL SECURITY;

--
-- Name: deal_labels; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.deal_labels ENABLE ROW LEVEL SECURITY;

--
-- Name: deal_people; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.deal_people ENABLE ROW LEVEL SECURITY;

--
-- Name: deal_tasks; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.deal_tasks ENABLE ROW LEVEL SECURITY;

--
-- Name: deals; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.deals ENABLE ROW LEVEL SECURITY;

--
-- Name: debt_payments; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.debt_payments ENABLE ROW LEVEL SECURITY;

--
-- Name: debts; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.debts ENABLE ROW LEVEL SECURITY;

--
-- Name: departments; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.departments ENABLE ROW LEVEL SECURITY;

--
-- Name: documents; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.documents ENABLE ROW LEVEL SECURITY;

--
-- Name: enrichment_cache; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.enrichment_cache ENABLE ROW LEVEL SECURITY;

--
-- Name: expenses; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.expenses ENABLE ROW LEVEL SECURITY;

--
-- Name: finance_categories; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.finance_categories ENABLE ROW LEVEL SECURITY;

--
-- Name: hr_change_requests; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.hr_change_requests ENABLE ROW LEVEL SECURITY;

--
-- Name: hr_contracts; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.hr_contracts ENABLE ROW LEVEL SECURITY;

--
-- Name: idempotency_keys; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.idempotency_keys ENABLE ROW LEVEL SECURITY;

--
-- Name: import_chunks; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.import_chunks ENABLE ROW LEVEL SECURITY;

--
-- Name: import_errors; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.import_errors ENABLE ROW LEVEL SECURITY;

--
-- Name: import_parts; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.import_parts ENABLE ROW LEVEL SECURITY;

--
-- Name: imports; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.imports ENABLE ROW LEVEL SECURITY;

--
-- Name: income; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.income ENABLE ROW LEVEL SECURITY;

--
-- Name: knowledge; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.knowledge ENABLE ROW LEVEL SECURITY;

--
-- Name: labels; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.labels ENABLE ROW LEVEL SECURITY;

--
-- Name: leave_requests; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.leave_requests ENABLE ROW LEVEL SECURITY;

--
-- Name: metric_entries; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.metric_entries ENABLE ROW LEVEL SECURITY;

--
-- Name: metric_pages; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.metric_pages ENABLE ROW LEVEL SECURITY;

--
-- Name: metrics; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.metrics ENABLE ROW LEVEL SECURITY;

--
-- Name: org_chart; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.org_chart ENABLE ROW LEVEL SECURITY;

--
-- Name: people; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.people ENABLE ROW LEVEL SECURITY;

--
-- Name: pipeline_stages; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.pipeline_stages ENABLE ROW LEVEL SECURITY;

--
-- Name: pipelines; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.pipelines ENABLE ROW LEVEL SECURITY;

--
-- Name: project_stages; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.project_stages ENABLE ROW LEVEL SECURITY;

--
-- Name: projects; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.projects ENABLE ROW LEVEL SECURITY;

--
-- Name: space_members; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.space_members ENABLE ROW LEVEL SECURITY;

--
-- Name: space_updates; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.space_updates ENABLE ROW LEVEL SECURITY;

--
-- Name: spaces; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.spaces ENABLE ROW LEVEL SECURITY;

--
-- Name: task_attachments; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.task_attachments ENABLE ROW LEVEL SECURITY;

--
-- Name: tasks; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.tasks ENABLE ROW LEVEL SECURITY;

--
-- Name: team_members; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.team_members ENABLE ROW LEVEL SECURITY;

--
-- Name: users; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.users ENABLE ROW LEVEL SECURITY;

--
-- Name: webhook_deliveries; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.webhook_deliveries ENABLE ROW LEVEL SECURITY;

--
-- Name: webhook_endpoints; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.webhook_endpoints ENABLE ROW LEVEL SECURITY;

--
-- Name: webhook_secrets; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.webhook_secrets ENABLE ROW LEVEL SECURITY;

--
-- Name: workspaces; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.workspaces ENABLE ROW LEVEL SECURITY;

--
-- Name: automations ws_admin_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_admin_insert ON public.automations AS RESTRICTIVE FOR INSERT WITH CHECK (( SELECT public.app_is_admin() AS app_is_admin));

--
-- Name: custom_fields ws_admin_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_admin_insert ON public.custom_fields AS RESTRICTIVE FOR INSERT WITH CHECK (( SELECT public.app_is_admin() AS app_is_admin));

--
-- Name: webhook_deliveries ws_admin_only; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_admin_only ON public.webhook_deliveries AS RESTRICTIVE USING ((( SELECT public.app_is_admin() AS app_is_admin) OR (CURRENT_USER <> 'workspaced_app'::name))) WITH CHECK ((( SELECT public.app_is_admin() AS app_is_admin) OR (CURRENT_USER <> 'workspaced_app'::name)));

--
-- Name: webhook_endpoints ws_admin_only; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_admin_only ON public.webhook_endpoints AS RESTRICTIVE USING ((( SELECT public.app_is_admin() AS app_is_admin) OR (CURRENT_USER <> 'workspaced_app'::name))) WITH CHECK ((( SELECT public.app_is_admin() AS app_is_admin) OR (CURRENT_USER <> 'workspaced_app'::name)));

--
-- Name: activity ws_admin_records; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_admin_records ON public.activity AS RESTRICTIVE FOR SELECT USING (((entity_type <> ALL (ARRAY['agent_keys'::text, 'member_links'::text, 'oauth_clients'::text, 'workspace_oauth_settings'::text, 'credits'::text, 'oauth_connections'::text, 'webhook_endpoints'::text, 'webhook_deliveries'::text])) OR ( SELECT public.app_is_admin() AS app_is_admin)));

--
-- Name: automations ws_admin_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_admin_update ON public.automations AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK (( SELECT public.app_is_admin() AS app_is_admin));

--
-- Name: custom_fields ws_admin_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_admin_update ON public.custom_fields AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK (( SELECT public.app_is_admin() AS app_is_admin));

--
-- Name: workspaces ws_admin_writes; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_admin_writes ON public.workspaces AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK (( SELECT public.app_is_admin() AS app_is_admin));

--
-- Name: comments ws_author_edits; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_author_edits ON public.comments AS RESTRICTIVE FOR UPDATE USING (((user_id = ( SELECT public.app_user_id() AS app_user_id)) OR ( SELECT public.app_is_admin() AS app_is_admin))) WITH CHECK (((user_id = ( SELECT public.app_user_id() AS app_user_id)) OR ( SELECT public.app_is_admin() AS app_is_admin)));

--
-- Name: comments ws_deal_comment_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_deal_comment_insert ON public.comments AS RESTRICTIVE FOR INSERT WITH CHECK (((entity_type <> 'deal'::text) OR (( SELECT public.app_grant('crm'::text) AS app_grant) = 'full'::text)));

--
-- Name: comments ws_deal_comment_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_deal_comment_update ON public.comments AS RESTRICTIVE FOR UPDATE USING (((entity_type <> 'deal'::text) OR (( SELECT public.app_grant('crm'::text) AS app_grant) = 'full'::text))) WITH CHECK (((entity_type <> 'deal'::text) OR (( SELECT public.app_grant('crm'::text) AS app_grant) = 'full'::text)));

--
-- Name: agents ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.agents FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('agents'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: companies ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.companies FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: competitor_reports ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.competitor_reports FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('competitors'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: competitor_workflows ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.competitor_workflows FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('competitors'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: crm_files ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.crm_files FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_labels ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.deal_labels FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_people ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.deal_people FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_tasks ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.deal_tasks FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deals ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.deals FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: debt_payments ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.debt_payments FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: debts ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.debts FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: departments ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.departments FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: expenses ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.expenses FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: finance_categories ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.finance_categories FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: hr_change_requests ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.hr_change_requests FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: hr_contracts ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.hr_contracts FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: income ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.income FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: leave_requests ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.leave_requests FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metric_entries ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.metric_entries FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metric_pages ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.metric_pages FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metrics ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.metrics FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: org_chart ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.org_chart FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: people ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.people FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: pipeline_stages ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.pipeline_stages FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: pipelines ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.pipelines FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: team_members ws_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_delete ON public.team_members FOR DELETE USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: activity ws_entity_visible; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_entity_visible ON public.activity AS RESTRICTIVE FOR SELECT USING ((((feature IS NULL) OR (( SELECT public.app_grant(activity.feature) AS app_grant) = ANY (ARRAY['read'::text, 'full'::text]))) AND ((entity_type <> ALL (ARRAY['tasks'::text, 'deal_tasks'::text])) OR (EXISTS ( SELECT 1
   FROM public.tasks t
  WHERE (t.id = activity.entity_id))) OR (EXISTS ( SELECT 1
   FROM public.deal_tasks t
  WHERE (t.id = activity.entity_id)))) AND ((entity_type <> 'comments'::text) OR (EXISTS ( SELECT 1
   FROM public.comments c
  WHERE (c.id = activity.entity_id))))));

--
-- Name: comments ws_entity_visible; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_entity_visible ON public.comments AS RESTRICTIVE USING (
CASE entity_type
    WHEN 'deal'::text THEN (( SELECT public.app_grant('crm'::text) AS app_grant) = ANY (ARRAY['read'::text, 'full'::text]))
    ELSE ((EXISTS ( SELECT 1
       FROM public.tasks t
      WHERE (t.id = comments.entity_id))) OR (EXISTS ( SELECT 1
       FROM public.deal_tasks t
      WHERE (t.id = comments.entity_id))))
END);

--
-- Name: agents ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.agents FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('agents'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: companies ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.companies FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: competitor_reports ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.competitor_reports FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('competitors'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: competitor_workflows ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.competitor_workflows FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('competitors'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: crm_files ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.crm_files FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_labels ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.deal_labels FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_people ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.deal_people FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_tasks ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.deal_tasks FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deals ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.deals FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: debt_payments ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.debt_payments FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: debts ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.debts FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: departments ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.departments FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: expenses ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.expenses FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: finance_categories ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.finance_categories FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: hr_change_requests ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.hr_change_requests FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: hr_contracts ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.hr_contracts FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: income ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.income FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: leave_requests ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.leave_requests FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metric_entries ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.metric_entries FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metric_pages ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.metric_pages FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metrics ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.metrics FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: org_chart ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.org_chart FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: people ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.people FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: pipeline_stages ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.pipeline_stages FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: pipelines ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.pipelines FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: team_members ws_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_insert ON public.team_members FOR INSERT WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: activity ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.activity USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: automation_logs ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.automation_logs USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: automations ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.automations USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: canvases ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.canvases USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: comments ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.comments USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: credit_balances ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.credit_balances USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: credit_holds ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.credit_holds USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: credit_ledger ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.credit_ledger USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: custom_absent ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.custom_absent USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: custom_field_versions ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.custom_field_versions USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: custom_fields ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.custom_fields USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: custom_values ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.custom_values USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: documents ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.documents USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: enrichment_cache ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.enrichment_cache USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: idempotency_keys ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.idempotency_keys USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: knowledge ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.knowledge USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: labels ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.labels USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: project_stages ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.project_stages USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: projects ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.projects USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: space_members ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.space_members USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: space_updates ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.space_updates USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: spaces ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.spaces USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: task_attachments ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.task_attachments USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: tasks ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.tasks USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: users ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.users USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: webhook_deliveries ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.webhook_deliveries USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: webhook_endpoints ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.webhook_endpoints USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: webhook_secrets ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.webhook_secrets USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: workspaces ws_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_isolation ON public.workspaces USING ((id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((id = ( SELECT public.app_workspace_id() AS app_workspace_id)));

--
-- Name: import_chunks ws_own; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_own ON public.import_chunks USING ((import_id IN ( SELECT imports.id
   FROM public.imports))) WITH CHECK ((import_id IN ( SELECT imports.id
   FROM public.imports)));

--
-- Name: import_errors ws_own; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_own ON public.import_errors USING ((import_id IN ( SELECT imports.id
   FROM public.imports))) WITH CHECK ((import_id IN ( SELECT imports.id
   FROM public.imports)));

--
-- Name: import_parts ws_own; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_own ON public.import_parts USING ((import_id IN ( SELECT imports.id
   FROM public.imports))) WITH CHECK ((import_id IN ( SELECT imports.id
   FROM public.imports)));

--
-- Name: imports ws_own; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_own ON public.imports USING (((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)) AND (user_id = ( SELECT public.app_user_id() AS app_user_id)))) WITH CHECK (((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id)) AND (user_id = ( SELECT public.app_user_id() AS app_user_id))));

--
-- Name: deal_tasks ws_private; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_private ON public.deal_tasks AS RESTRICTIVE USING (((NOT is_private) OR (created_by = ( SELECT public.app_user_id() AS app_user_id)) OR (assignee_id = ( SELECT public.app_user_id() AS app_user_id)) OR (( SELECT public.app_user_id() AS app_user_id) = ANY (assignee_ids)) OR ( SELECT public.app_is_admin() AS app_is_admin))) WITH CHECK (((NOT is_private) OR (created_by = ( SELECT public.app_user_id() AS app_user_id)) OR (assignee_id = ( SELECT public.app_user_id() AS app_user_id)) OR (( SELECT public.app_user_id() AS app_user_id) = ANY (assignee_ids)) OR ( SELECT public.app_is_admin() AS app_is_admin)));

--
-- Name: tasks ws_private; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_private ON public.tasks AS RESTRICTIVE USING (((NOT is_private) OR (created_by = ( SELECT public.app_user_id() AS app_user_id)) OR (assignee_id = ( SELECT public.app_user_id() AS app_user_id)) OR (( SELECT public.app_user_id() AS app_user_id) = ANY (assignee_ids)) OR ( SELECT public.app_is_admin() AS app_is_admin))) WITH CHECK (((NOT is_private) OR (created_by = ( SELECT public.app_user_id() AS app_user_id)) OR (assignee_id = ( SELECT public.app_user_id() AS app_user_id)) OR (( SELECT public.app_user_id() AS app_user_id) = ANY (assignee_ids)) OR ( SELECT public.app_is_admin() AS app_is_admin)));

--
-- Name: task_attachments ws_private_parent; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_private_parent ON public.task_attachments AS RESTRICTIVE FOR SELECT USING ((((task_id IS NULL) OR (EXISTS ( SELECT 1
   FROM public.tasks t
  WHERE (t.id = task_attachments.task_id)))) AND ((crm_task_id IS NULL) OR (EXISTS ( SELECT 1
   FROM public.deal_tasks t
  WHERE (t.id = task_attachments.crm_task_id))))));

--
-- Name: agents ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.agents FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('agents'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: companies ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.companies FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: competitor_reports ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.competitor_reports FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('competitors'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: competitor_workflows ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.competitor_workflows FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('competitors'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: crm_files ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.crm_files FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_labels ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.deal_labels FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_people ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.deal_people FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_tasks ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.deal_tasks FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deals ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.deals FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: debt_payments ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.debt_payments FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: debts ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.debts FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: departments ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.departments FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: expenses ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.expenses FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: finance_categories ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.finance_categories FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: hr_change_requests ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.hr_change_requests FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: hr_contracts ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.hr_contracts FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: income ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.income FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: leave_requests ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.leave_requests FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metric_entries ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.metric_entries FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metric_pages ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.metric_pages FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metrics ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.metrics FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: org_chart ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.org_chart FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: people ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.people FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: pipeline_stages ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.pipeline_stages FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: pipelines ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.pipelines FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: team_members ws_read; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_read ON public.team_members FOR SELECT USING ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = ANY (ARRAY['read'::text, 'full'::text])) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: users ws_self_or_admin; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_self_or_admin ON public.users AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK (((id = ( SELECT public.app_user_id() AS app_user_id)) OR ( SELECT public.app_is_admin() AS app_is_admin)));

--
-- Name: custom_fields ws_target_grant; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_target_grant ON public.custom_fields AS RESTRICTIVE FOR SELECT USING (((resource = ANY (ARRAY['tasks'::text, 'projects'::text])) OR (( SELECT public.app_grant('crm'::text) AS app_grant) = ANY (ARRAY['read'::text, 'full'::text]))));

--
-- Name: agents ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.agents FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('agents'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: companies ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.companies FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: competitor_reports ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.competitor_reports FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('competitors'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: competitor_workflows ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.competitor_workflows FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('competitors'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: crm_files ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.crm_files FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_labels ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.deal_labels FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_people ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.deal_people FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deal_tasks ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.deal_tasks FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: deals ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.deals FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: debt_payments ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.debt_payments FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: debts ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.debts FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: departments ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.departments FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: expenses ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.expenses FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: finance_categories ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.finance_categories FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: hr_change_requests ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.hr_change_requests FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: hr_contracts ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.hr_contracts FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: income ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.income FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('finance'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: leave_requests ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.leave_requests FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metric_entries ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.metric_entries FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metric_pages ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.metric_pages FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: metrics ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.metrics FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('metrics'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: org_chart ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.org_chart FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: people ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.people FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: pipeline_stages ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.pipeline_stages FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: pipelines ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.pipelines FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('crm'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: team_members ws_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY ws_update ON public.team_members FOR UPDATE USING ((workspace_id = ( SELECT public.app_workspace_id() AS app_workspace_id))) WITH CHECK ((workspace_id = ( SELECT
        CASE
            WHEN (public.app_grant('hr'::text) = 'full'::text) THEN public.app_workspace_id()
            ELSE NULL::uuid
        END AS "case")));

--
-- Name: SCHEMA public; Type: ACL; Schema: -; Owner: -
--

GRANT USAGE ON SCHEMA public TO workspaced_app;

--
-- Name: FUNCTION oauth_client_check(client_id text, sent bytea); Type: ACL; Schema: public; Owner: -
--

REVOKE ALL ON FUNCTION public.oauth_client_check(client_id text, sent bytea) FROM PUBLIC;

--
-- Name: FUNCTION oauth_code_grant(client_id text, client_secret_hash bytea, code_hash bytea, at timestamp with time zone, request_ok boolean, redirect_uri text, challenge text, resource text, refresh_hash bytea, access_hash bytea, refresh_expires timestamp with time zone, access_expires timestamp with time zone, OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text); Type: ACL; Schema: public; Owner: -
--

REVOKE ALL ON FUNCTION public.oauth_code_grant(client_id text, client_secret_hash bytea, code_hash bytea, at timestamp with time zone, request_ok boolean, redirect_uri text, challenge text, resource text, refresh_hash bytea, access_hash bytea, refresh_expires timestamp with time zone, access_expires timestamp with time zone, OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text) FROM PUBLIC;

--
-- Name: FUNCTION oauth_refresh_grant(client_id text, client_secret_hash bytea, token_hash bytea, at timestamp with time zone, grace_start timestamp with time zone, scopes text[], resource text, refresh_hash bytea, access_hash bytea, refresh_expires timestamp with time zone, access_expires timestamp with time zone, OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text); Type: ACL; Schema: public; Owner: -
--

REVOKE ALL ON FUNCTION public.oauth_refresh_grant(client_id text, client_secret_hash bytea, token_hash bytea, at timestamp with time zone, grace_start timestamp with time zone, scopes text[], resource text, refresh_hash bytea, access_hash bytea, refresh_expires timestamp with time zone, access_expires timestamp with time zone, OUT outcome text, OUT family uuid, OUT granted text[], OUT bound text) FROM PUBLIC;

--
-- Name: FUNCTION oauth_revoke_family(family uuid, at timestamp with time zone); Type: ACL; Schema: public; Owner: -
--

REVOKE ALL ON FUNCTION public.oauth_revoke_family(family uuid, at timestamp with time zone) FROM PUBLIC;

--
-- Name: TABLE custom_fields; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.custom_fields TO workspaced_app;

--
-- Name: TABLE custom_values; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.custom_values TO workspaced_app;

--
-- Name: FUNCTION ws_sync_horizon(); Type: ACL; Schema: public; Owner: -
--

REVOKE ALL ON FUNCTION public.ws_sync_horizon() FROM PUBLIC;
GRANT ALL ON FUNCTION public.ws_sync_horizon() TO workspaced_app;

--
-- Name: TABLE activity; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT ON TABLE public.activity TO workspaced_app;

--
-- Name: TABLE agents; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.agents TO workspaced_app;

--
-- Name: TABLE automation_logs; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.automation_logs TO workspaced_app;

--
-- Name: TABLE automations; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.automations TO workspaced_app;

--
-- Name: TABLE canvases; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.canvases TO workspaced_app;

--
-- Name: TABLE comments; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.comments TO workspaced_app;

--
-- Name: TABLE companies; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.companies TO workspaced_app;

--
-- Name: TABLE competitor_reports; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.competitor_reports TO workspaced_app;

--
-- Name: TABLE competitor_workflows; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.competitor_workflows TO workspaced_app;

--
-- Name: TABLE credit_balances; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.credit_balances TO workspaced_app;

--
-- Name: COLUMN credit_balances.balance; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(balance) ON TABLE public.credit_balances TO workspaced_app;

--
-- Name: TABLE credit_holds; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE ON TABLE public.credit_holds TO workspaced_app;

--
-- Name: TABLE credit_ledger; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT ON TABLE public.credit_ledger TO workspaced_app;

--
-- Name: TABLE crm_files; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.crm_files TO workspaced_app;

--
-- Name: TABLE custom_absent; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.custom_absent TO workspaced_app;

--
-- Name: TABLE custom_field_versions; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.custom_field_versions TO workspaced_app;

--
-- Name: TABLE deal_labels; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE ON TABLE public.deal_labels TO workspaced_app;

--
-- Name: TABLE deal_people; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE ON TABLE public.deal_people TO workspaced_app;

--
-- Name: TABLE deal_tasks; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.deal_tasks TO workspaced_app;

--
-- Name: TABLE deals; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.deals TO workspaced_app;

--
-- Name: TABLE debt_payments; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.debt_payments TO workspaced_app;

--
-- Name: TABLE debts; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.debts TO workspaced_app;

--
-- Name: TABLE departments; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.departments TO workspaced_app;

--
-- Name: TABLE documents; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.documents TO workspaced_app;

--
-- Name: TABLE enrichment_cache; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.enrichment_cache TO workspaced_app;

--
-- Name: TABLE expenses; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.expenses TO workspaced_app;

--
-- Name: TABLE finance_categories; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.finance_categories TO workspaced_app;

--
-- Name: TABLE hr_change_requests; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.hr_change_requests TO workspaced_app;

--
-- Name: TABLE hr_contracts; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.hr_contracts TO workspaced_app;

--
-- Name: TABLE idempotency_keys; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.idempotency_keys TO workspaced_app;

--
-- Name: TABLE import_chunks; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT ON TABLE public.import_chunks TO workspaced_app;

--
-- Name: TABLE import_errors; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT ON TABLE public.import_errors TO workspaced_app;

--
-- Name: TABLE import_parts; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT ON TABLE public.import_parts TO workspaced_app;

--
-- Name: TABLE imports; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.imports TO workspaced_app;

--
-- Name: TABLE income; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.income TO workspaced_app;

--
-- Name: TABLE knowledge; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.knowledge TO workspaced_app;

--
-- Name: TABLE labels; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.labels TO workspaced_app;

--
-- Name: TABLE leave_requests; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.leave_requests TO workspaced_app;

--
-- Name: TABLE metric_entries; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.metric_entries TO workspaced_app;

--
-- Name: TABLE metric_pages; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.metric_pages TO workspaced_app;

--
-- Name: TABLE metrics; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.metrics TO workspaced_app;

--
-- Name: TABLE org_chart; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.org_chart TO workspaced_app;

--
-- Name: TABLE people; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.people TO workspaced_app;

--
-- Name: TABLE pipeline_stages; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.pipeline_stages TO workspaced_app;

--
-- Name: TABLE pipelines; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.pipelines TO workspaced_app;

--
-- Name: TABLE project_stages; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.project_stages TO workspaced_app;

--
-- Name: TABLE projects; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.projects TO workspaced_app;

--
-- Name: TABLE space_members; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE ON TABLE public.space_members TO workspaced_app;

--
-- Name: TABLE space_updates; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.space_updates TO workspaced_app;

--
-- Name: TABLE spaces; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.spaces TO workspaced_app;

--
-- Name: TABLE task_attachments; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.task_attachments TO workspaced_app;

--
-- Name: TABLE tasks; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.tasks TO workspaced_app;

--
-- Name: TABLE team_members; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.team_members TO workspaced_app;

--
-- Name: TABLE users; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.users TO workspaced_app;

--
-- Name: COLUMN users.display_name; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(display_name) ON TABLE public.users TO workspaced_app;

--
-- Name: COLUMN users.avatar_url; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(avatar_url) ON TABLE public.users TO workspaced_app;

--
-- Name: COLUMN users.task_color; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(task_color) ON TABLE public.users TO workspaced_app;

--
-- Name: COLUMN users.timezone; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(timezone) ON TABLE public.users TO workspaced_app;

--
-- Name: COLUMN users.department; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(department) ON TABLE public.users TO workspaced_app;

--
-- Name: TABLE webhook_deliveries; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.webhook_deliveries TO workspaced_app;

--
-- Name: TABLE webhook_endpoints; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.webhook_endpoints TO workspaced_app;

--
-- Name: TABLE webhook_secrets; Type: ACL; Schema: public; Owner: -
--

GRANT INSERT ON TABLE public.webhook_secrets TO workspaced_app;

--
-- Name: TABLE workspaces; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.name; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(name) ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.image_url; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(image_url) ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.timezone; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(timezone) ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.okr_enabled; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(okr_enabled) ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.kb_ai_enabled; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(kb_ai_enabled) ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.report_eod_enabled; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(report_eod_enabled) ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.report_eow_enabled; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(report_eow_enabled) ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.report_eom_enabled; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(report_eom_enabled) ON TABLE public.workspaces TO workspaced_app;

--
-- Name: COLUMN workspaces.security_contact_email; Type: ACL; Schema: public; Owner: -
--

GRANT UPDATE(security_contact_email) ON TABLE public.workspaces TO workspaced_app;

--
-- PostgreSQL database dump complete
--
