package workspace_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestUsageCountsAndFlushesAtShutdown: every credential an authenticator accepts is
// counted per UTC day, a refused one is not; Run writes the counts when its context ends,
// and later flushes add to them.
func TestUsageCountsAndFlushesAtShutdown(t *testing.T) {
	s := storetest.New(t)
	f := storetest.Workspace(t, s, workspace.Scopes())
	now := time.Date(2026, 11, 24, 23, 59, 0, 0, time.UTC)
	usage := workspace.NewUsage(s, nil, func() time.Time { return now })
	p := *f.Admin
	p.Credential = store.Credential{Type: "oauth", ID: uuid.NewString(), ClientName: "Counted App"}
	auth := usage.Counted(workspace.AuthenticatorFunc(func(_ context.Context, bearer string) (*auth.Principal, error) {
		if bearer != "good" {
			return nil, apierr.Unauthorized("no")
		}
		return &p, nil
	}))
	for _, bearer := range []string{"good", "good", "bad", "good"} {
		_, _ = auth.Authenticate(t.Context(), bearer)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { usage.Run(ctx, time.Hour); close(done) }()
	cancel()
	<-done
	requests := func(day string) int {
		t.Helper()
		var n int
		err := storetest.Pool(t).QueryRow(t.Context(), `SELECT coalesce(sum(requests), 0) FROM credential_usage
			WHERE workspace_id = $1 AND day = $2::date AND credential = 'oauth:' || $3 AND client_name = 'Counted App'`,
			f.WorkspaceID, day, p.Credential.ID).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := requests("2026-11-24"); got != 3 {
		t.Fatalf("after shutdown: %d requests, want 3", got)
	}
	_, _ = auth.Authenticate(t.Context(), "good")
	now = now.Add(2 * time.Minute) // the next UTC day
	_, _ = auth.Authenticate(t.Context(), "good")
	if err := usage.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if a, b := requests("2026-11-24"), requests("2026-11-25"); a != 4 || b != 1 {
		t.Fatalf("after a second flush: %d and %d requests, want 4 and 1", a, b)
	}
}

// BenchmarkUsageCount is the counter alone, from every core at once.
func BenchmarkUsageCount(b *testing.B) {
	usage := workspace.NewUsage(nil, nil, nil)
	p := &auth.Principal{Identity: store.Identity{WorkspaceID: uuid.NewString(), Credential: store.Credential{Type: "oauth", ID: uuid.NewString()}}}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			usage.Count(p)
		}
	})
}
