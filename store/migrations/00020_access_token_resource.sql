-- +goose Up
-- RFC 8707 section 2.2: a refresh may ask for an access token bound to a narrower resource
-- than its authorization (an unbound family). The token's own binding is kept here; NULL
-- means the family's (oauth_families.resource), so every earlier token is unchanged.
ALTER TABLE oauth_access_tokens ADD COLUMN resource text;

-- +goose Down
ALTER TABLE oauth_access_tokens DROP COLUMN resource;
