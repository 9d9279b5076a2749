-- +goose Up
-- A consent now also records the exact redirect URIs (port included) it was given for: an
-- unverified client is re-authorized silently only at one of them (RFC 8252 8.6, RFC 9700
-- 4.2; decisions.md 7). Consents given before hold none, so they are asked once more.
ALTER TABLE oauth_consents ADD COLUMN redirect_uris text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE oauth_consents DROP COLUMN redirect_uris;
