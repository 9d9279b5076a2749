// Package wellknown serves the service's discovery documents under /.well-known/: the
// OAuth authorization server metadata (RFC 8414), and whatever other document cmd adds
// (the RFC 9728 protected-resource metadata of the MCP server). It depends on nothing
// internal: cmd hands it the values.
package wellknown

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Document is one JSON document served at Path (relative to the origin, starting with
// /.well-known/).
type Document struct {
	Path string
	Body any
}

// Handler serves the documents with CORS * (browser-based MCP clients read them:
// docs/decisions.md 7) and a short public cache lifetime. Register it for each document's path,
// or mount it at /.well-known/; other paths answer 404.
func Handler(docs ...Document) (http.Handler, error) {
	bodies := map[string][]byte{}
	for _, d := range docs {
		if !strings.HasPrefix(d.Path, "/.well-known/") {
			return nil, fmt.Errorf("wellknown: %q is not under /.well-known/", d.Path)
		}
		b, err := json.MarshalIndent(d.Body, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("wellknown: %s: %w", d.Path, err)
		}
		bodies[d.Path] = append(b, '\n')
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		body, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch r.Method {
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, MCP-Protocol-Version")
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
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}), nil
}

// AuthorizationServer is RFC 8414 section 2 metadata, with the members this service
// publishes.
type AuthorizationServer struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint"`
	TokenEndpoint                              string   `json:"token_endpoint"`
	RevocationEndpoint                         string   `json:"revocation_endpoint"`
	RegistrationEndpoint                       string   `json:"registration_endpoint"`
	ScopesSupported                            []string `json:"scopes_supported"`
	ResponseTypesSupported                     []string `json:"response_types_supported"`
	ResponseModesSupported                     []string `json:"response_modes_supported"`
	GrantTypesSupported                        []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethodsSupported     []string `json:"revocation_endpoint_auth_methods_supported"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	ServiceDocumentation                       string   `json:"service_documentation,omitempty"`
}

// ASConfig is what cmd knows: the issuer (PUBLIC_URL, no trailing slash), the apikey the
// token and revocation endpoints require, the scope catalogue, the token endpoint's grant
// types, and where the docs live.
type ASConfig struct {
	Issuer               string
	APIKey               string
	Scopes               []string
	GrantTypes           []string
	ServiceDocumentation string
	// ClientIDMetadataDocuments advertises client_id_metadata_document_supported once the
	// provider fetches Client ID Metadata Documents.
	ClientIDMetadataDocuments bool
}

// AuthorizationServerPath is where RFC 8414 section 3 puts the metadata of an issuer
// without a path component.
const AuthorizationServerPath = "/.well-known/oauth-authorization-server"

// NewAuthorizationServer builds the RFC 8414 document. The token and revocation endpoints
// carry ?apikey= (docs/decisions.md 7): standard OAuth clients cannot add headers, and the key
// is a public routing value that grants nothing.
func NewAuthorizationServer(c ASConfig) Document {
	iss := strings.TrimRight(c.Issuer, "/")
	withKey := func(path string) string {
		if c.APIKey == "" {
			return iss + path
		}
		return iss + path + "?" + url.Values{"apikey": {c.APIKey}}.Encode()
	}
	auth := []string{"none", "client_secret_basic", "client_secret_post"}
	return Document{Path: AuthorizationServerPath, Body: AuthorizationServer{
		Issuer:                                     iss,
		AuthorizationEndpoint:                      iss + "/oauth/authorize",
		TokenEndpoint:                              withKey("/oauth/token"),
		RevocationEndpoint:                         withKey("/oauth/revoke"),
		RegistrationEndpoint:                       iss + "/oauth/register",
		ScopesSupported:                            c.Scopes,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        c.GrantTypes,
		CodeChallengeMethodsSupported:              []string{"S256"},
		TokenEndpointAuthMethodsSupported:          auth,
		RevocationEndpointAuthMethodsSupported:     auth,
		AuthorizationResponseIssParameterSupported: true,
		ClientIDMetadataDocumentSupported:          c.ClientIDMetadataDocuments,
		ServiceDocumentation:                       c.ServiceDocumentation,
	}}
}
