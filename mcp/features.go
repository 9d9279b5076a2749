package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// featureOptions are the mcp-go options of everything beside the tools themselves:
// progress notifications on slow tool calls (progress.go), prompts (listed
// through visiblePrompts), resources and their templates (listings narrowed by the
// hooks), completions, and the cache hints of their listings, which change, as
// tools/list does, only with a deploy or the credential.
func (s *Server) featureOptions() []server.ServerOption {
	c := completer{s}
	opts := []server.ServerOption{
		server.WithPromptCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithCompletions(),
		server.WithPromptFilter(s.visiblePrompts),
		server.WithPromptCompletionProvider(c),
		server.WithResourceCompletionProvider(c),
		server.WithToolHandlerMiddleware(s.progress),
		server.WithToolFilter(s.linkViews), // after visibleTools: views.go
		s.hooks(),
	}
	for _, m := range []mcpgo.MCPMethod{mcpgo.MethodPromptsList, mcpgo.MethodResourcesList, mcpgo.MethodResourcesTemplatesList} {
		opts = append(opts, server.WithMethodCacheHints(m, listingTTL.Milliseconds(), mcpgo.CacheScopePrivate))
	}
	// What a read returns is workspace data another call may change at any moment: stale
	// at once (MCP 2026-07-28, "Caching"); the listings above change only with a deploy.
	opts = append(opts, server.WithMethodCacheHints(mcpgo.MethodResourcesRead, 0, mcpgo.CacheScopePrivate))
	return opts
}

// hooks are the server's one set of mcp-go hooks (mcp-go keeps only the last
// WithHooks): the listen acknowledgement (listen.go) and the listings' filters
// (resources.go).
func (s *Server) hooks() server.ServerOption {
	h := &server.Hooks{}
	h.AddAfterSubscriptionsListen(awaitAck)
	h.AddAfterListResources(s.filterResources)
	h.AddAfterListResourceTemplates(s.filterTemplates)
	h.AddAfterListResources(s.filterViews) // record views: views.go
	h.AddAfterInitialize(s.offerViews)
	return server.WithHooks(h)
}

// addFeatures registers the prompts, resources, templates and record views.
func (s *Server) addFeatures(m *server.MCPServer) {
	s.addPrompts(m)
	s.addResources(m)
	s.addViews(m)
}
