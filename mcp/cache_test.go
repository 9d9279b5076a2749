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

// TestEveryListAndReadCarriesCacheHints: on 2026-07-28 every list and read result says how
// long it stays fresh (MCP 2026-07-28, "Caching"): listings of what the server offers an
// hour, private (resources/list names fixed documents, not records); what a resource read
// returns, workspace data, immediately stale (ttlMs 0), private.
func TestEveryListAndReadCarriesCacheHints(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	c := e.client(t, e.token(f.Admin), "")
	ctx := context.Background()
	type answer struct {
		hints mcpgo.CacheableResult
		err   error
	}
	hour := int64(3600000)
	results := map[string]struct {
		answer
		ttl int64
	}{}
	add := func(name string, ttl int64, r mcpgo.CacheableResult, err error) {
		results[name] = struct {
			answer
			ttl int64
		}{answer{r, err}, ttl}
	}
	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	add("tools/list", hour, cacheable(tools, func() mcpgo.CacheableResult { return tools.CacheableResult }), err)
	disc, err := c.Discover(ctx, mcpgo.DiscoverRequest{})
	add("server/discover", hour, cacheable(disc, func() mcpgo.CacheableResult { return disc.CacheableResult }), err)
	prompts, err := c.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
	add("prompts/list", hour, cacheable(prompts, func() mcpgo.CacheableResult { return prompts.CacheableResult }), err)
	templates, err := c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
	add("resources/templates/list", hour, cacheable(templates, func() mcpgo.CacheableResult { return templates.CacheableResult }), err)
	resources, err := c.ListResources(ctx, mcpgo.ListResourcesRequest{})
	add("resources/list", hour, cacheable(resources, func() mcpgo.CacheableResult { return resources.CacheableResult }), err)
	if err != nil || len(resources.Resources) == 0 {
		t.Fatalf("resources/list: %v %v; want the workspace's documents", resources, err)
	}
	read := mcpgo.ReadResourceRequest{}
	read.Params.URI = resources.Resources[0].URI
	res, err := c.ReadResource(ctx, read)
	add("resources/read", 0, cacheable(res, func() mcpgo.CacheableResult { return res.CacheableResult }), err)
	for name, r := range results {
		if r.err != nil {
			t.Errorf("%s: %v", name, r.err)
			continue
		}
		if r.hints.TTLMs == nil || *r.hints.TTLMs != r.ttl || r.hints.CacheScope != mcpgo.CacheScopePrivate {
			ttl := int64(-1)
			if r.hints.TTLMs != nil {
				ttl = *r.hints.TTLMs
			}
			t.Errorf("%s: ttlMs %d, cacheScope %q; want %d, private", name, ttl, r.hints.CacheScope, r.ttl)
		}
	}
}

// cacheable reads a result's hints where there is a result.
func cacheable[T any](res *T, hints func() mcpgo.CacheableResult) mcpgo.CacheableResult {
	if res == nil {
		return mcpgo.CacheableResult{}
	}
	return hints()
}
