package store_test

import (
	"context"
	"testing"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestEventRedactMigrationRedactsStoredEvents: migration 00039 takes the path and query out
// of the URL of every stored event about a webhook endpoint, pending in the outbox or in
// the event log, keeping scheme, host and port; events about other resources keep theirs.
func TestEventRedactMigrationRedactsStoredEvents(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.EmptyDatabase(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := store.MigrateTo(ctx, s, 38); err != nil {
		t.Fatal(err)
	}
	db := store.PoolOf(s)
	one := func(sql string, args ...any) string {
		t.Helper()
		var v string
		if err := db.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	ws := one(`INSERT INTO workspaces (name) VALUES ('Old') RETURNING id::text`)
	const hook = `{"url": "https://hooks.slack.com:8443/services/T01/B02/PathSecret?token=QuerySecret"}`
	pending := one(`INSERT INTO webhook_outbox (workspace_id, type, object, record) VALUES ($1, 'webhook_endpoints.created', 'webhook_endpoints', $2)
		RETURNING seq::text`, ws, hook)
	logged := one(`INSERT INTO webhook_events (workspace_id, type, object, record, dispatched_at) VALUES ($1, 'webhook_endpoints.updated', 'webhook_endpoints', $2, now())
		RETURNING seq::text`, ws, hook)
	other := one(`INSERT INTO webhook_outbox (workspace_id, type, object, record) VALUES ($1, 'companies.created', 'companies', $2)
		RETURNING seq::text`, ws, hook)

	if err := s.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	const redacted = "https://hooks.slack.com:8443/[redacted]"
	if got := one(`SELECT record ->> 'url' FROM webhook_outbox WHERE seq = $1::bigint`, pending); got != redacted {
		t.Errorf("pending endpoint event's url after 00039: %s, want %s", got, redacted)
	}
	if got := one(`SELECT record ->> 'url' FROM webhook_events WHERE seq = $1::bigint`, logged); got != redacted {
		t.Errorf("logged endpoint event's url after 00039: %s, want %s", got, redacted)
	}
	if got := one(`SELECT record::text FROM webhook_outbox WHERE seq = $1::bigint`, other); got != `{"url": "https://hooks.slack.com:8443/services/T01/B02/PathSecret?token=QuerySecret"}` {
		t.Errorf("another resource's event changed: %s", got)
	}
}
