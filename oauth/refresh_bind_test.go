package oauth_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestRefreshGrantBindsInItsStatement: a refresh of an unbound authorization that names a
// resource (RFC 8707 section 2.2) stores its access token already bound, in the grant's
// own statement (store.GrantRefresh, oauth_refresh_grant): there is no moment, and no
// failure between two statements, at which the token exists unbound.
func TestRefreshGrantBindsInItsStatement(t *testing.T) {
	e := newEnv(t)
	client, tk := e.tokensFor(e.Member, "deals:read")
	now := time.Now()
	_, accessHash := store.NewSecret(store.PrefixAccessToken)
	_, refreshHash := store.NewSecret(store.PrefixRefreshToken)
	g, err := e.store.GrantRefresh(context.Background(), store.RefreshGrant{Client: store.GrantClient{ID: client},
		TokenHash: store.HashSecret(tk.Refresh), Now: now, GraceStart: now.Add(-30 * time.Second), Resource: e.issuer + "/mcp",
		Pair: store.OAuthPair{RefreshHash: refreshHash, AccessHash: accessHash, RefreshExpires: now.Add(time.Hour), AccessExpires: now.Add(time.Hour)}})
	if err != nil || g.Outcome != store.RefreshRotated {
		t.Fatalf("GrantRefresh: %+v %v, want rotated", g, err)
	}
	var tokenResource, familyResource *string
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT a.resource, f.resource
		FROM oauth_access_tokens a JOIN oauth_families f ON f.id = a.family_id WHERE a.token_hash = $1`, accessHash).
		Scan(&tokenResource, &familyResource); err != nil {
		t.Fatal(err)
	}
	if tokenResource == nil || *tokenResource != e.issuer+"/mcp" {
		t.Errorf("the access token's resource after the grant statement: %v, want %s/mcp", deref(tokenResource), e.issuer)
	}
	if familyResource != nil && *familyResource != "" {
		t.Errorf("the family's resource: %q, want unbound (docs/oauth.md: the refresh token stays unbound)", *familyResource)
	}
}

// TestConcurrentRefreshesBindTheirOwnResource: parallel refreshes of one unbound token,
// half asking for the MCP URL and half for the REST base URL. They serialise on the family
// (one rotates, the rest are grace retries), and:
//   - every token issued is bound to the resource its own request named, never another's,
//     and was never visible unbound while the refreshes ran;
//   - exactly one binding wins: one issued access token stays live, the one the last
//     grant issued, bound to its request's resource;
//   - the family itself stays unbound (docs/oauth.md).
func TestConcurrentRefreshesBindTheirOwnResource(t *testing.T) {
	e := newEnv(t)
	client, tk := e.tokensFor(e.Member, "deals:read")
	pool := storetest.Pool(t)
	ctx := context.Background()
	var familyID string
	if err := pool.QueryRow(ctx, `SELECT family_id::text FROM oauth_refresh_tokens WHERE token_hash = $1`,
		store.HashSecret(tk.Refresh)).Scan(&familyID); err != nil {
		t.Fatal(err)
	}

	// A watcher looks for an access token issued by a refresh (generation > 1) that is not
	// bound; every refresh here names a resource, so there must never be one.
	stop := make(chan struct{})
	var sawUnbound atomic.Int32
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			default:
			}
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM oauth_access_tokens a JOIN oauth_refresh_tokens r ON r.id = a.refresh_id
				WHERE a.family_id = $1 AND r.generation > 1 AND a.resource IS NULL`, familyID).Scan(&n); err == nil && n > 0 {
				sawUnbound.Add(1)
			}
		}
	}()

	const n = 8
	resources := []string{e.issuer + "/mcp", e.issuer + "/v1"}
	results := make([]response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = e.refresh(client, tk.Refresh, "resource", resources[i%2])
		}()
	}
	close(start)
	wg.Wait()
	close(stop)
	<-watched

	live := 0
	for i, r := range results {
		if r.Status != 200 {
			t.Fatalf("refresh %d: %d %s", i, r.Status, r.Raw)
		}
		var resource *string
		var revoked bool
		if err := pool.QueryRow(ctx, `SELECT resource, revoked_at IS NOT NULL FROM oauth_access_tokens WHERE token_hash = $1`,
			store.HashSecret(r.str("access_token"))).Scan(&resource, &revoked); err != nil {
			t.Fatal(err)
		}
		if want := resources[i%2]; resource == nil || *resource != want {
			t.Errorf("refresh %d asked for %s; its access token is bound to %v", i, want, deref(resource))
		}
		if !revoked {
			live++
			p, err := e.oauth.Verifier().Authenticate(ctx, r.str("access_token"))
			if err != nil || p.Credential.Resource != resources[i%2] {
				t.Errorf("the live token of refresh %d: resource %v %v, want %s", i, p, err, resources[i%2])
			}
		}
	}
	if live != 1 {
		t.Errorf("%d issued access tokens live after the parallel refreshes; want exactly one", live)
	}
	if c := sawUnbound.Load(); c > 0 {
		t.Errorf("an access token issued for a resource was seen unbound %d times while the refreshes ran", c)
	}
	var familyResource *string
	if err := pool.QueryRow(ctx, `SELECT resource FROM oauth_families WHERE id = $1`, familyID).Scan(&familyResource); err != nil {
		t.Fatal(err)
	}
	if familyResource != nil && *familyResource != "" {
		t.Errorf("the family's resource: %q, want unbound", *familyResource)
	}
	wantOneLivePair(t, e, client)
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
