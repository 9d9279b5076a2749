-- +goose Up
-- The audit log kept secrets from members only where 00025_console_audit.sql listed them:
-- records about webhook endpoints and deliveries, which only admins may read as resources,
-- were visible to every member with activity:read, and an endpoint's URL (its credential,
-- for chat services' hook URLs) was in their changes (docs/webhooks.md, "Endpoints").

-- Records about the catalogue's admin-only resources (workspace.Resource.AdminOnly) and the
-- administration entities of store.AdminOnlyEntities are for admins only; workspace's
-- TestAdminRecordsFollowCatalogue compares this list with the two.
DROP POLICY ws_admin_records ON activity;
CREATE POLICY ws_admin_records ON activity AS RESTRICTIVE FOR SELECT
  USING (entity_type NOT IN ('agent_keys', 'member_links', 'oauth_clients', 'workspace_oauth_settings', 'credits',
      'oauth_connections', 'webhook_endpoints', 'webhook_deliveries')
    OR (SELECT app_is_admin()));

-- An endpoint URL in activity keeps its scheme, host and port only: userinfo, path, query
-- and fragment become /[redacted] (a bare "/" stays). The secret is the endpoint's, not the
-- log's: admins read the URL itself on the endpoint. Anything that is not an absolute URL
-- is [redacted] whole.
-- +goose StatementBegin
CREATE FUNCTION ws_redact_url(u text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN m IS NULL THEN '[redacted]'
    ELSE m[1] || regexp_replace(m[2], '^.*@', '') || CASE WHEN m[3] IN ('', '/') THEN m[3] ELSE '/[redacted]' END
  END
  FROM regexp_match(u, '^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)(.*)$') AS m
$$;
-- +goose StatementEnd

-- Every writer of activity (the records' trigger, store/audit.go) goes through this.
-- +goose StatementBegin
CREATE FUNCTION ws_activity_redact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.entity_type = 'webhook_endpoints' AND jsonb_typeof(NEW.changes -> 'url') = 'string' THEN
    NEW.changes := jsonb_set(NEW.changes, '{url}', to_jsonb(ws_redact_url(NEW.changes ->> 'url')));
  END IF;
  RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER activity_redact BEFORE INSERT ON activity FOR EACH ROW EXECUTE FUNCTION ws_activity_redact();

-- Records written before this migration lose their URLs' secrets too.
UPDATE activity SET changes = jsonb_set(changes, '{url}', to_jsonb(ws_redact_url(changes ->> 'url')))
 WHERE entity_type = 'webhook_endpoints' AND jsonb_typeof(changes -> 'url') = 'string';

-- +goose Down
DROP TRIGGER activity_redact ON activity;
DROP FUNCTION ws_activity_redact();
DROP FUNCTION ws_redact_url(text);
DROP POLICY ws_admin_records ON activity;
CREATE POLICY ws_admin_records ON activity AS RESTRICTIVE FOR SELECT
  USING (entity_type NOT IN ('agent_keys', 'member_links', 'oauth_clients', 'workspace_oauth_settings', 'credits',
      'oauth_connections')
    OR (SELECT app_is_admin()));
