-- +goose Up
-- RFC 8707 section 2.2: a refresh may ask for an access token bound to a narrower resource
-- than its authorization (an unbound family). The token's own binding is kept here; NULL
-- means the family's (oauth_families.resource), so every earlier token is unchanged.
ALTER TABLE oauth_access_tokens ADD COLUMN resource text;

-- One open credit hold per workspace and domain: concurrent enrichments of one domain
-- fetch and charge once; the others wait for that result (enrich.Service.Enrich).
CREATE UNIQUE INDEX credit_holds_one_per_domain ON credit_holds (workspace_id, domain);

-- A leave or HR change request created with a status other than pending is a review made
-- at creation: it stamps reviewed_by and reviewed_at as a status change does (docs/contract.md 2.2
-- rule 1). Stamped rather than refused: recording an already-approved leave is a real
-- task, and hr_change_requests' statuses are not enumerated, so no "initial" one could be
-- enforced; the stamp keeps who decided on record either way.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_stamp_review() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (TG_OP = 'INSERT' AND NEW.status IS NOT NULL AND NEW.status <> 'pending')
    OR (TG_OP = 'UPDATE' AND NEW.status IS DISTINCT FROM OLD.status) THEN
    NEW.reviewed_by := app_user_id();
    NEW.reviewed_at := now();
  END IF;
  RETURN NEW;
END
$$;
-- +goose StatementEnd
DROP TRIGGER review ON leave_requests;
DROP TRIGGER review ON hr_change_requests;
CREATE TRIGGER review BEFORE INSERT OR UPDATE ON leave_requests FOR EACH ROW EXECUTE FUNCTION ws_stamp_review();
CREATE TRIGGER review BEFORE INSERT OR UPDATE ON hr_change_requests FOR EACH ROW EXECUTE FUNCTION ws_stamp_review();

-- ws_sync_horizon is the newest updated_at an incremental sync may return (docs/rest.md,
-- "Incremental sync"): the start of the oldest transaction still in flight that could
-- write this workspace's rows, since its writes are stamped with that start (ws_touch:
-- now()) and seen only once it commits. Transactions of other workspaces cannot (the
-- actor's statements name their workspace in application_name, store/actor.go); any other
-- (the CLI, a migration, a sweep) counts. It reads pg_stat_activity as its owner, who must
-- see the application's sessions (the same login, or pg_read_all_stats): sessions it
-- cannot see count as none.
-- +goose StatementBegin
CREATE FUNCTION ws_sync_horizon() RETURNS timestamptz LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog AS $$
  SELECT least(statement_timestamp(), min(a.xact_start))
  FROM pg_stat_activity a
  WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
    AND a.backend_type = 'client backend'
    AND (a.application_name NOT LIKE 'workspaced ws:%'
      OR a.application_name = 'workspaced ws:' || current_setting('app.workspace_id', true))
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION ws_sync_horizon() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ws_sync_horizon() TO workspaced_app;

-- +goose Down
DROP FUNCTION ws_sync_horizon();
DROP TRIGGER review ON hr_change_requests;
DROP TRIGGER review ON leave_requests;
CREATE TRIGGER review BEFORE UPDATE ON leave_requests FOR EACH ROW EXECUTE FUNCTION ws_stamp_review();
CREATE TRIGGER review BEFORE UPDATE ON hr_change_requests FOR EACH ROW EXECUTE FUNCTION ws_stamp_review();
DROP INDEX credit_holds_one_per_domain;
ALTER TABLE oauth_access_tokens DROP COLUMN resource;
