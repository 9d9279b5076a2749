package mcp_test

import (
	"context"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestListingsCarryACacheTTL: on 2026-07-28, tools/list and server/discover say how long a
// client may reuse them (docs/mcp.md): positive, and private, since the list follows the
// credential's scopes and grants.
func TestListingsCarryACacheTTL(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	c := e.client(t, e.token(f.Admin), "")
	tools, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	disc, err := c.Discover(context.Background(), mcpgo.DiscoverRequest{})
	if err != nil {
		t.Fatalf("server/discover: %v", err)
	}
	for name, r := range map[string]mcpgo.CacheableResult{"tools/list": tools.CacheableResult, "server/discover": disc.CacheableResult} {
		if r.TTLMs == nil || *r.TTLMs <= 0 || r.CacheScope != mcpgo.CacheScopePrivate {
			ttl := int64(-1)
			if r.TTLMs != nil {
				ttl = *r.TTLMs
			}
			t.Errorf("%s: ttlMs %d, cacheScope %q; want a positive private TTL", name, ttl, r.CacheScope)
		}
	}
}
