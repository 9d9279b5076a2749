package workspace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/overload"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestSharesOfCapacity: with a workspace's share of searches taken, its next search (and
// its next list with q, a search too) waits, then is refused 429 rate_limited with a
// Retry-After of a second that its message states, while its plain reads and another
// workspace's searches are served; with the class full of others' searches, a search
// under its share is refused 503 overloaded.
func TestSharesOfCapacity(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	a := storetest.Workspace(t, s, workspace.Scopes())
	b := storetest.Workspace(t, s, workspace.Scopes())
	search := overload.NewShares(overload.SharesConfig{Capacity: 2, Shares: []int{1, 1}, Wait: 50 * time.Millisecond})
	type refusal struct {
		class workspace.Class
		own   bool
	}
	var refused []refusal
	ops := workspace.NewOps(workspace.Config{Store: s, Capacities: workspace.Capacities{Search: search,
		Read:    overload.NewShares(overload.SharesConfig{Capacity: 2, Shares: []int{1, 1}, Wait: 50 * time.Millisecond}),
		Refused: func(c workspace.Class, own bool) { refused = append(refused, refusal{c, own}) }}})
	deals := workspace.Lookup("deals")
	q := "acme"

	release, err := search.Acquire(ctx, workspace.CapacityKeys(a.Admin)...) // a's one search in flight
	if err != nil {
		t.Fatal(err)
	}
	_, err = ops.Search(ctx, a.Admin, workspace.SearchParams{Q: q})
	e := store.AsError(err)
	if e.Code != apierr.CodeRateLimited || e.RetryAfter != time.Second || !strings.Contains(e.Message, "retry after 1 second") {
		t.Errorf("a's second search: %v (Retry-After %s), want rate_limited saying to retry after 1 second", err, e.RetryAfter)
	}
	if _, err := ops.List(ctx, a.Admin, deals, workspace.ListParams{Q: &q}); store.AsError(err).Code != apierr.CodeRateLimited {
		t.Errorf("a's list with q: %v, want rate_limited", err)
	}
	if _, err := ops.List(ctx, a.Admin, deals, workspace.ListParams{}); err != nil {
		t.Errorf("a's plain list, a read: %v", err)
	}
	if _, err := ops.Search(ctx, b.Admin, workspace.SearchParams{Q: q}); err != nil {
		t.Errorf("b's search: %v", err)
	}
	// The class full of others' searches: b's is refused as overload, not as its own.
	other, err := search.Acquire(ctx, "workspace:other", "credential:other")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Search(ctx, b.Admin, workspace.SearchParams{Q: q}); store.AsError(err).Code != apierr.CodeOverloaded {
		t.Errorf("b's search in a full class: %v, want overloaded", err)
	}
	release()
	other()
	if _, err := ops.Search(ctx, a.Admin, workspace.SearchParams{Q: q}); err != nil {
		t.Errorf("a's search once its place is free: %v", err)
	}
	want := []refusal{{workspace.ClassSearch, true}, {workspace.ClassSearch, true}, {workspace.ClassSearch, false}}
	if len(refused) != len(want) {
		t.Fatalf("refusals told %v, want %v", refused, want)
	}
	for i := range want {
		if refused[i] != want[i] {
			t.Errorf("refusal %d told %v, want %v", i, refused[i], want[i])
		}
	}
}

// TestClassSharesSizes: a 0 bound is the pool's size for reads and writes and a quarter of
// it for searches (at least one place); a set bound is kept; a workspace holds its share
// of a class (50% by default) and waits beyond it.
func TestClassSharesSizes(t *testing.T) {
	got := workspace.ClassShares(workspace.CapacityConfig{Writes: 3, ShareWait: time.Millisecond}, 16)
	for class, want := range map[workspace.Class]int{workspace.ClassRead: 16, workspace.ClassSearch: 4, workspace.ClassWrite: 3} {
		if c := got[class].Capacity(); c != want {
			t.Errorf("%s: capacity %d, want %d", class, c, want)
		}
	}
	if c := workspace.ClassShares(workspace.CapacityConfig{}, 2)[workspace.ClassSearch].Capacity(); c != 1 {
		t.Errorf("searches of a pool of 2: capacity %d, want 1", c)
	}
	ctx := context.Background()
	reads := got[workspace.ClassRead]
	for i := range workspace.DefaultWorkspaceShare * 16 / 100 {
		if _, err := reads.Acquire(ctx, "workspace:a", "credential:"+string(rune('a'+i))); err != nil {
			t.Fatalf("read %d of the workspace's share: %v", i+1, err)
		}
	}
	if _, err := reads.Acquire(ctx, "workspace:a", "credential:z"); err == nil {
		t.Fatal("a read beyond the workspace's share was admitted")
	}
	if _, err := reads.Acquire(ctx, "workspace:b", "credential:b"); err != nil {
		t.Fatalf("another workspace's read: %v", err)
	}
}
