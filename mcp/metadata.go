package mcp

import (
	"github.com/mark3labs/mcp-go/server"
)

// RootMetadataPath is the bare RFC 9728 well-known path. Each MCP path has its own document
// below it (section 3.1: the resource's path appended), which the 401 challenge names;
// cmd serves MetadataDocuments through package wellknown.
const RootMetadataPath = server.WellKnownProtectedResourcePath

// metadataPath is where RFC 9728 section 3.1 puts the document of the resource at path.
func metadataPath(path string) string { return RootMetadataPath + path }

// MetadataDocument is one RFC 9728 document and the path it is served at.
type MetadataDocument struct {
	Path string
	Body server.ProtectedResourceMetadataConfig
}

// MetadataDocuments returns the document of every MCP path (ResourcePaths), each naming
// that path's URL as resource (section 3.3: it must equal the URL the metadata was
// derived from), and the root document, which names the origin: the resource a token for
// the whole service (REST and MCP) is bound to.
func (s *Server) MetadataDocuments() []MetadataDocument {
	docs := []MetadataDocument{{Path: RootMetadataPath, Body: s.metadata(s.cfg.PublicURL, "workspaced")}}
	for _, p := range ResourcePaths() {
		docs = append(docs, MetadataDocument{Path: metadataPath(p), Body: s.metadata(s.cfg.PublicURL+p, "workspaced MCP tools")})
	}
	return docs
}

// metadata is the RFC 9728 document of resource: the issuer PUBLIC_URL as the one
// authorization server, the 33 scopes (a read-only view's read scopes only), and bearer
// tokens in the Authorization header only.
func (s *Server) metadata(resource, name string) server.ProtectedResourceMetadataConfig {
	return server.ProtectedResourceMetadataConfig{
		Resource:               resource,
		AuthorizationServers:   []string{s.cfg.PublicURL},
		ScopesSupported:        viewScopes(readonlyPath(resource)),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           name,
	}
}
