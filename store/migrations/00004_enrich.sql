-- +goose Up
-- Credit holds: a fresh enrichment reserves its cost before the lookup (so N concurrent
-- lookups against a balance of B spend exactly min(N, B) and the rest get 402 before any
-- fetch), and the hold is settled with the stored result or refunded. A hold whose request
-- died is refunded by the sweeper after it expires.
SELECT ws_resource_table('credit_holds', $c$
  amount bigint NOT NULL CHECK (amount > 0), domain text NOT NULL, expires_at timestamptz NOT NULL$c$);
SELECT ws_protect('credit_holds', 'credit_holds', '', 'none');
GRANT INSERT, DELETE ON credit_holds TO workspaced_app;
CREATE INDEX credit_holds_expiry ON credit_holds (expires_at);

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
