-- +goose Up
-- RFC 8707 section 2.2: a refresh may ask for an access token bound to a narrower resource
-- than its authorization (an unbound family). The token's own binding is kept here; NULL
-- means the family's (oauth_families.resource), so every earlier token is unchanged.
ALTER TABLE oauth_access_tokens ADD COLUMN resource text;

-- One open credit hold per workspace and domain: concurrent enrichments of one domain
-- fetch and charge once; the others wait for that result (enrich.Service.Enrich).
CREATE UNIQUE INDEX credit_holds_one_per_domain ON credit_holds (workspace_id, domain);

-- +goose Down
DROP INDEX credit_holds_one_per_domain;
ALTER TABLE oauth_access_tokens DROP COLUMN resource;
