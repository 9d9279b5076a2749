package wellknown_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agencyos/workspaced/wellknown"
)

func TestAuthorizationServer(t *testing.T) {
	h, err := wellknown.Handler(wellknown.NewAuthorizationServer(wellknown.ASConfig{Issuer: "https://ws.example.com/",
		APIKey: "pk_key+/=", Scopes: []string{"deals:read", "deals:write"},
		GrantTypes: []string{"authorization_code", "refresh_token"}, ServiceDocumentation: "https://docs.example.com/oauth"}))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/.well-known/oauth-authorization-server", nil))
	if rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "*" || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	auth := []any{"none", "client_secret_basic", "client_secret_post"}
	want := map[string]any{
		"issuer":                                         "https://ws.example.com",
		"authorization_endpoint":                         "https://ws.example.com/oauth/authorize",
		"token_endpoint":                                 "https://ws.example.com/oauth/token?apikey=pk_key%2B%2F%3D",
		"revocation_endpoint":                            "https://ws.example.com/oauth/revoke?apikey=pk_key%2B%2F%3D",
		"registration_endpoint":                          "https://ws.example.com/oauth/register",
		"scopes_supported":                               []any{"deals:read", "deals:write"},
		"response_types_supported":                       []any{"code"},
		"response_modes_supported":                       []any{"query"},
		"grant_types_supported":                          []any{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []any{"S256"},
		"token_endpoint_auth_methods_supported":          auth,
		"revocation_endpoint_auth_methods_supported":     auth,
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          "https://docs.example.com/oauth",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("metadata (-want +got):\n%s", diff)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("OPTIONS", "/.well-known/oauth-authorization-server", nil))
	if rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight: %d %v", rec.Code, rec.Header())
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/.well-known/other", nil))
	if rec.Code != 404 {
		t.Fatalf("unknown document: %d", rec.Code)
	}
}

func TestSecondDocument(t *testing.T) {
	h, err := wellknown.Handler(
		wellknown.NewAuthorizationServer(wellknown.ASConfig{Issuer: "https://ws.example.com"}),
		wellknown.Document{Path: "/.well-known/oauth-protected-resource/mcp", Body: map[string]any{"resource": "https://ws.example.com/mcp"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/.well-known/oauth-protected-resource/mcp", nil))
	if rec.Code != 200 {
		t.Fatalf("%d", rec.Code)
	}
	if _, err := wellknown.Handler(wellknown.Document{Path: "/elsewhere"}); err == nil {
		t.Fatal("a document outside /.well-known/ must be refused")
	}
}
