package workspace_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// TestCacheRevocationWinsOverLookupInFlight: a credential lookup that read the token before
// its revocation, and finishes after the revocation's NOTIFY flushed the cache, must not
// store what it read; the next request looks again and is refused. The
// interleaving is forced with channels, so the test is deterministic.
func TestCacheRevocationWinsOverLookupInFlight(t *testing.T) {
	ctx := context.Background()
	var revoked atomic.Bool
	var calls atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	inner := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		live := !revoked.Load() // the database read, before the revocation commits
		if calls.Add(1) == 1 && bearer == "slow" {
			close(entered)
			<-release
		}
		if !live {
			return nil, apierr.Unauthorized("the access token was revoked")
		}
		return &auth.Principal{Identity: store.Identity{UserID: "u", WorkspaceID: "w"}}, nil
	})
	c := workspace.NewCache(inner, time.Minute)
	c.SetListening(true)

	t.Run("a settled lookup is cached", func(t *testing.T) {
		for i := 0; i < 2; i++ {
			if _, err := c.Authenticate(ctx, "fast"); err != nil {
				t.Fatal(err)
			}
		}
		if n := calls.Swap(0); n != 1 {
			t.Fatalf("two requests made %d lookups; the cache should have answered the second", n)
		}
	})
	t.Run("a revocation during a lookup wins", func(t *testing.T) {
		done := make(chan error)
		go func() {
			_, err := c.Authenticate(ctx, "slow")
			done <- err
		}()
		<-entered // the lookup has read the token as live
		revoked.Store(true)
		c.Flush("oauth_access:slow") // the revocation's NOTIFY arrives
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("the lookup in flight: %v", err) // it began before the revocation
		}
		if _, err := c.Authenticate(ctx, "slow"); httpx.Status(store.AsError(err)) != 401 {
			t.Fatalf("after the revocation the token still authenticates (err %v): the stale lookup was cached", err)
		}
	})
}

// TestCacheFloodKeepsRecentCredentials: a flood of distinct tokens past the cache's bound
// evicts the least recently used credentials, not every one: the tokens seen last are
// still answered from the cache (the bound used to empty the whole cache).
func TestCacheFloodKeepsRecentCredentials(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int32
	inner := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		calls.Add(1)
		return &auth.Principal{Identity: store.Identity{UserID: bearer, WorkspaceID: "w"}}, nil
	})
	c := workspace.NewCache(inner, time.Minute)
	c.SetListening(true)
	const flood = 100_002 // two past the bound of 100,000 credentials
	for i := range flood {
		if _, err := c.Authenticate(ctx, fmt.Sprintf("token-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	calls.Store(0)
	for i := flood - 10; i < flood; i++ {
		if _, err := c.Authenticate(ctx, fmt.Sprintf("token-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("the 10 most recent tokens cost %d lookups after the flood; the cache should have kept them", n)
	}
}
