-- +goose Up
-- REST for integrations: idempotency keys, strictly increasing record versions
-- (ETag and If-Match), and the (workspace_id, updated_at, id) index incremental sync walks.

-- Idempotency keys (Stripe semantics): a POST with Idempotency-Key first claims the key
-- (response_status NULL, locked_until a lease), then stores its response in the same
-- transaction as its write; a retry within 24 hours replays it. The sweeper deletes rows
-- past expires_at. Keys belong to a credential, so one credential cannot replay another's.
CREATE TABLE idempotency_keys (
  workspace_id uuid NOT NULL DEFAULT app_workspace_id() REFERENCES workspaces (id),
  credential text NOT NULL,
  key text NOT NULL,
  fingerprint bytea NOT NULL,
  response_status integer,
  response_body bytea,
  locked_until timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, credential, key)
);
ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY ws_isolation ON idempotency_keys
  USING (workspace_id = (SELECT app_workspace_id()))
  WITH CHECK (workspace_id = (SELECT app_workspace_id()));
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO workspaced_app;
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Every update moves updated_at strictly forward: the statement's clock, or one microsecond
-- past the previous version when two writes land within the same microsecond (or the
-- clock steps back). updated_at is then the record's version: ETags are made from it and
-- If-Match compares it inside the UPDATE, and a sync cursor never sees a change twice.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := greatest(clock_timestamp(), OLD.updated_at + interval '1 microsecond');
  RETURN NEW;
END
$$;
-- +goose StatementEnd

-- The sync index on every workspace table: the ones ws_protect made carry <table>_keyset.
-- +goose StatementBegin
DO $$
DECLARE
  t text;
BEGIN
  FOR t IN SELECT tablename FROM pg_indexes WHERE schemaname = 'public' AND indexname = tablename || '_keyset' LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (workspace_id, updated_at, id)', t || '_sync', t);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- Tables protected from now on get the sync index too. ws_protect keeps its body (whatever
-- the migrations before this one made it) under the name ws_protect_base, and ws_protect
-- adds the index after it.
ALTER FUNCTION ws_protect(text, text, text, text) RENAME TO ws_protect_base;
-- +goose StatementBegin
CREATE FUNCTION ws_protect(tbl text, resource text, feature text, writes text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ws_protect_base(tbl, resource, feature, writes);
  EXECUTE format('CREATE INDEX %I ON %I (workspace_id, updated_at, id)', tbl || '_sync', tbl);
END
$$;
-- +goose StatementEnd

-- +goose Down
SELECT 'down migrations are not supported: restore from backup';
