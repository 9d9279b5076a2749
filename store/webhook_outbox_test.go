package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestOutboxMigrationMovesPendingEvents: migration 00034 moves the events still pending in
// webhook_events to webhook_outbox with their seq and id, giving an event written before
// 00032 (no endpoints named) the enabled endpoints subscribed to it then; dispatched
// events stay in the log; seq goes on increasing; and a pending event inserted into the
// log afterwards (a write whose trigger ran 00032's function while 00034 committed) lands
// in the outbox.
func TestOutboxMigrationMovesPendingEvents(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.EmptyDatabase(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := store.MigrateTo(ctx, s, 33); err != nil {
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
	endpoint := func(events string, enabled bool) string {
		return one(`INSERT INTO webhook_endpoints (workspace_id, url, events, enabled) VALUES ($1, 'https://hooks.example/x', $2, $3)
			RETURNING id::text`, ws, events, enabled)
	}
	labels, deals, off := endpoint("{labels.*}", true), endpoint("{deals.*}", true), endpoint("{*}", false)
	event := func(typ, endpointID, endpointIDs string, dispatched bool) string {
		return one(`INSERT INTO webhook_events (workspace_id, type, object, endpoint_id, endpoint_ids, dispatched_at)
			VALUES ($1, $2, split_part($2, '.', 1), nullif($3, '')::uuid, nullif($4, '')::uuid[], CASE WHEN $5 THEN now() END)
			RETURNING seq || ' ' || id`, ws, typ, endpointID, endpointIDs, dispatched)
	}
	before := event("labels.created", "", "", false)          // written before 00032
	named := event("deals.updated", "", "{"+deals+"}", false) // 00032: its endpoints named
	ping := event("ping", off, "", false)                     // a ping, to its one endpoint
	done := event("labels.updated", "", "{"+labels+"}", true) // dispatched: stays in the log

	if err := s.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	outbox := func() string {
		return one(`SELECT coalesce(string_agg(seq || ' ' || id || ' ' || type || ' ' || coalesce(endpoint_id::text, '-') || ' '
			|| coalesce(endpoint_ids::text, '-'), ' | ' ORDER BY seq), '') FROM webhook_outbox`)
	}
	want := fmt.Sprintf("%s labels.created - {%s} | %s deals.updated - {%s} | %s ping %s -", before, labels, named, deals, ping, off)
	if got := outbox(); got != want {
		t.Errorf("the outbox after 00034:\n got %s\nwant %s", got, want)
	}
	if got := one(`SELECT string_agg(seq || ' ' || id, ',') FROM webhook_events`); got != done {
		t.Errorf("the event log after 00034 holds %s, want only the dispatched event %s", got, done)
	}

	late := one(`WITH x AS (INSERT INTO webhook_events (workspace_id, type, object, endpoint_ids) VALUES ($1, 'labels.created', 'labels', $2)
		RETURNING 1) SELECT count(*) FROM x`, ws, "{"+labels+"}")
	if late != "0" || one(`SELECT count(*) FROM webhook_events`) != "1" {
		t.Errorf("a pending event inserted into the log stayed there (%s rows returned)", late)
	}
	if got := one(`SELECT count(*) FROM webhook_outbox WHERE seq > $1::bigint AND endpoint_ids = $2`,
		one(`SELECT max(seq) FROM webhook_outbox WHERE type = 'ping'`), "{"+labels+"}"); got != "1" {
		t.Errorf("%s events in the outbox after the ping's with the late event's endpoints, want 1", got)
	}
}
