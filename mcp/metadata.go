package mcp

import (
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/restapi"
)

// MetadataPaths are where the RFC 9728 protected resource metadata is served: the path
// derived from the MCP URL (RFC 9728 section 3.1, /.well-known/oauth-protected-resource/mcp)
// and the bare well-known path, which clients that drop the resource's path try
// (decisions.md 8).
var MetadataPaths = []string{
	server.WellKnownProtectedResourcePath + Path,
	server.WellKnownProtectedResourcePath,
}

// MetadataURL is the absolute URL the 401 challenge's resource_metadata names.
func (s *Server) MetadataURL() string { return s.cfg.PublicURL + MetadataPaths[0] }

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

// MetadataHandler serves Metadata at MetadataPaths with CORS open to any origin, since
// browser-based MCP clients read it (decisions.md 7). mcp-go's own handler is not used
// because its CORS headers cannot be set.
func (s *Server) MetadataHandler() http.Handler {
	body, err := json.Marshal(s.Metadata())
	if err != nil {
		panic(err) // strings and string slices always marshal
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
		case http.MethodGet, http.MethodHead:
			h.Set("Content-Type", "application/json")
			h.Set("Cache-Control", "public, max-age=300")
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = w.Write(body)
			}
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			restapi.WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method_not_allowed",
				"message": "use GET", "request_id": restapi.RequestIDFrom(r.Context())})
		}
	})
}
