package oauth_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/oauth"
)

// cimdEnv is a provider that resolves Client ID Metadata Documents, and an https server on
// loopback publishing them; the guard reaches it only because the test allows 127.0.0.0/8.
func cimdEnv(t *testing.T, docs map[string]func(self string) string, configure ...func(*oauth.Config)) (*env, string) {
	t.Helper()
	var base string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(doc(base + r.URL.Path)))
	}))
	t.Cleanup(srv.Close)
	base = srv.URL
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	guard := &enrich.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	e := newEnv(t, append([]func(*oauth.Config){func(c *oauth.Config) {
		c.ClientMetadata = oauth.NewMetadataDocuments(guard.Transport(&tls.Config{RootCAs: roots}))
	}}, configure...)...)
	return e, base
}

func metadataDoc(clientID string) string {
	return `{"client_id":"` + clientID + `","client_name":"Desktop Assistant","redirect_uris":["http://127.0.0.1/callback"],` +
		`"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`
}

// TestClientIDMetadataDocumentFlow: MCP authorization 2025-11-25, "Client ID Metadata
// Documents": an https client_id is fetched, shown as unverified, its redirect_uris
// enforced, and its tokens work.
func TestClientIDMetadataDocumentFlow(t *testing.T) {
	e, base := cimdEnv(t, map[string]func(string) string{
		"/client.json": metadataDoc,
		"/liar.json":   func(string) string { return metadataDoc("https://elsewhere.example/client.json") },
	})
	clientID := base + "/client.json"
	redirect := "http://127.0.0.1:49200/callback" // loopback: any port (RFC 8252 section 7.3)

	b := e.browser()
	_, challenge := pkce()
	r := b.get(e.authURL(clientID, redirect, challenge, "deals:read", "st-1"))
	if r.Status == http.StatusFound {
		r = b.login(e.Member)
	}
	if r.Status != 200 || !strings.Contains(r.Raw, `id="unverified"`) || !strings.Contains(r.Raw, "Desktop Assistant") {
		t.Fatalf("consent page for a metadata-document client: %d %s", r.Status, r.Raw)
	}

	code, verifier := e.flow(b, e.Member, clientID, redirect, "deals:read", nil)
	tk := e.exchange(clientID, code, verifier, redirect)
	me := e.me(tk.Access)
	if me.Status != 200 {
		t.Fatalf("/v1/me with the token: %d %s", me.Status, me.Raw)
	}
	if cred := me.Body["data"].(map[string]any)["credential"].(map[string]any); cred["client_id"] != clientID {
		t.Fatalf("credential %v, want client_id %s", cred, clientID)
	}
	if r := e.refresh(clientID, tk.Refresh); r.Status != 200 {
		t.Fatalf("refresh: %d %s", r.Status, r.Raw)
	}

	t.Run("redirect_uri not in the document", func(t *testing.T) {
		_, challenge := pkce()
		r := e.browser().get(e.authURL(clientID, "https://evil.example/callback", challenge, "deals:read", "st-2"))
		if r.Status == http.StatusFound || !strings.Contains(r.Raw, "did not register") {
			t.Fatalf("want an error page, never a redirect: %d %s %s", r.Status, r.Header.Get("Location"), r.Raw)
		}
	})
	t.Run("document naming another client_id", func(t *testing.T) {
		liar := base + "/liar.json"
		_, challenge := pkce()
		r := e.browser().get(e.authURL(liar, redirect, challenge, "deals:read", "st-3"))
		if r.Status == http.StatusFound || !strings.Contains(r.Raw, "not its own URL") {
			t.Fatalf("want an error page: %d %s", r.Status, r.Raw)
		}
		tok := e.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.Refresh}, "client_id": {liar}})
		wantOAuthError(t, tok, http.StatusUnauthorized, "invalid_client")
	})
}
