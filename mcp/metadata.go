package mcp

import (
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/restapi"
)

// Where cmd serves Metadata (through package wellknown), decisions.md 8: MetadataPath is
// derived from the MCP URL (RFC 9728 section 3.1) and named by the 401 challenge;
// RootMetadataPath is the bare well-known path, which clients that drop the resource's path
// try.
const (
	MetadataPath     = server.WellKnownProtectedResourcePath + Path
	RootMetadataPath = server.WellKnownProtectedResourcePath
)

// MetadataURL is the absolute URL the 401 challenge's resource_metadata names.
func (s *Server) MetadataURL() string { return s.cfg.PublicURL + MetadataPath }

// Metadata returns the RFC 9728 document: the MCP URL as resource (section 2: it must equal
// the URL the client used), the issuer PUBLIC_URL as the one authorization server, the 33
// scopes, and bearer tokens in the Authorization header only.
func (s *Server) Metadata() server.ProtectedResourceMetadataConfig {
	return server.ProtectedResourceMetadataConfig{
		Resource:               s.resource,
		AuthorizationServers:   []string{s.cfg.PublicURL},
		ScopesSupported:        restapi.Scopes(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "workspaced MCP tools",
	}
}
