-- +goose Up
-- RFC 8707 section 2.2: a refresh may ask for an access token bound to a narrower resource
-- than its authorization (an unbound family). The token's own binding is kept here; NULL
-- means the family's (oauth_families.resource), so every earlier token is unchanged.
ALTER TABLE oauth_access_tokens ADD COLUMN resource text;

-- One open credit hold per workspace and domain: concurrent enrichments of one domain
-- fetch and charge once; the others wait for that result (enrich.Service.Enrich).
CREATE UNIQUE INDEX credit_holds_one_per_domain ON credit_holds (workspace_id, domain);

-- A leave or HR change request created with a status other than pending is a review made
-- at creation: it stamps reviewed_by and reviewed_at as a status change does (spec 2.2
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
CREATE TRIGGER review_on_create BEFORE INSERT ON leave_requests FOR EACH ROW EXECUTE FUNCTION ws_stamp_review();
CREATE TRIGGER review_on_create BEFORE INSERT ON hr_change_requests FOR EACH ROW EXECUTE FUNCTION ws_stamp_review();

-- +goose Down
DROP TRIGGER review_on_create ON hr_change_requests;
DROP TRIGGER review_on_create ON leave_requests;
DROP INDEX credit_holds_one_per_domain;
ALTER TABLE oauth_access_tokens DROP COLUMN resource;
