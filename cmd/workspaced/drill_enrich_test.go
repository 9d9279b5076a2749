package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestDrillCrashRefundsHolds: a process killed during a paid lookup leaves its credit
// hold behind; the next start gives it back within 30 s, so the workspace is not left
// paying (or seeing 402s) for minutes.
func TestDrillCrashRefundsHolds(t *testing.T) {
	dsn := storetest.DSN(t)
	ws, key := agentKey(t, dsn)
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.GrantCredits(ctx, ws, 5, store.By{}); err != nil {
		t.Fatal(err)
	}
	balance := func() int64 {
		t.Helper()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var b int64
		if err := conn.QueryRow(ctx, `SELECT balance FROM credit_balances WHERE workspace_id = $1`, ws).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}

	// The provider takes the request and never answers before the crash.
	hit := make(chan struct{}, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit <- struct{}{}
		<-r.Context().Done()
	}))
	defer upstream.Close()
	env := []string{"DATABASE_URL=" + dsn, "FIRMOGRAPHICS_URL=" + upstream.URL, "FIRMOGRAPHICS_KEY=drill"}
	bin := buildBinary(t)
	first := startDaemon(t, bin, nil, env...)
	go call(http.DefaultClient, "POST", first.url+"/v1/enrich", key, map[string]any{"domain": "example.com"})
	select {
	case <-hit:
	case <-time.After(10 * time.Second):
		t.Fatal("the lookup never reached the provider")
	}
	if b := balance(); b != 4 {
		t.Fatalf("balance during the lookup: %d, want 4 (one credit held)", b)
	}
	first.cmd.Process.Kill()
	<-first.exited

	startDaemon(t, bin, nil, env...)
	started := time.Now()
	waitFor(t, 30*time.Second, func() bool { return balance() == 5 }, "refund of the crashed process's hold")
	t.Logf("hold refunded %s after the next start became ready", time.Since(started).Round(time.Second))
}
