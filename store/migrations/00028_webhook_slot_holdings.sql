-- +goose Up
-- Webhook slots held in batches (docs/webhooks.md, "Delivery"; webhooks/slots.go): a
-- process no longer leases one of an endpoint's webhook_slots rows (00027) per attempt but
-- keeps a holding of several, marked with its holder id (random, one per process), leased
-- until the database's now() plus the lease, renewed while it delivers to the endpoint and
-- released (holder NULL, held_until '-infinity') once idle, so other processes can take
-- them. A row is free when held_until has passed, whoever its holder: a process that died
-- leaves its rows to expire. Statements find a holding's rows by (endpoint_id, holder)
-- through the primary key: no index on holder, so a renewal stays a HOT update.
ALTER TABLE webhook_slots ADD COLUMN holder uuid;

-- Webhook retention is no longer a River periodic job but a periodic task of
-- cmd/workspaced (store.ClaimRun, as the other sweeps): a retention job still queued would
-- find no worker, and River would log and retry it for weeks. Its tables exist once River's
-- own migrations ran (store/river.go), which a new database has not yet done here.
-- +goose StatementBegin
DO $$
BEGIN
  IF to_regclass('river_job') IS NOT NULL THEN
    DELETE FROM river_job WHERE kind = 'webhook_retention' AND state::text IN ('available', 'scheduled', 'retryable');
  END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE webhook_slots DROP COLUMN holder;
