package oauth_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/oauth"
)

// TestMetadataDocumentFailures: a document that cannot be fetched is reported without
// internal detail, the failure is remembered briefly, and fetches spend the per-IP
// registration budget.
func TestMetadataDocumentFailures(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "internal detail: db at 10.1.2.3", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	allowLoopback := &enrich.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	_, challenge := pkce()
	redirect := "http://127.0.0.1/callback"

	t.Run("an internal address is not named", func(t *testing.T) {
		// The production guard refuses the loopback server, as it would 10.1.2.3.
		e := newEnv(t, func(c *oauth.Config) { c.ClientMetadata = oauth.NewMetadataDocuments((&enrich.Guard{}).Transport(nil)) })
		r := e.browser().get(e.authURL(srv.URL+"/client.json", redirect, challenge, "deals:read", "s"))
		host := strings.TrimPrefix(srv.URL, "https://")
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Raw, "client metadata document could not be fetched") {
			t.Fatalf("want the error page, got %d %s", r.Status, r.Raw)
		}
		for _, leak := range []string{"127.0.0.1:", host, "dial", "not allowed", "blocked"} {
			if strings.Contains(r.Raw, leak) {
				t.Fatalf("the page reveals %q: %s", leak, r.Raw)
			}
		}
	})
	t.Run("failures are cached and fetches spend the registration budget", func(t *testing.T) {
		e := newEnv(t, func(c *oauth.Config) {
			c.ClientMetadata = oauth.NewMetadataDocuments(allowLoopback.Transport(&tls.Config{RootCAs: roots}))
			c.RegisterLimiter = oauth.NewMemoryLimiter(3, time.Hour, nil)
		})
		for range 3 {
			r := e.browser().get(e.authURL(srv.URL+"/a.json", redirect, challenge, "deals:read", "s"))
			if r.Status != http.StatusBadRequest || !strings.Contains(r.Raw, "could not be fetched") || strings.Contains(r.Raw, "10.1.2.3") {
				t.Fatalf("want the error page, got %d %s", r.Status, r.Raw)
			}
		}
		if n := hits.Load(); n != 1 {
			t.Fatalf("fetched %d times, want once: the failure is remembered", n)
		}
		// Two more distinct documents spend the rest of the budget of 3...
		for _, p := range []string{"/b.json", "/c.json"} {
			if r := e.browser().get(e.authURL(srv.URL+p, redirect, challenge, "deals:read", "s")); r.Status != http.StatusBadRequest {
				t.Fatalf("%s: %d %s", p, r.Status, r.Raw)
			}
		}
		// ...so a fourth is not fetched at all, and registration shares the same budget.
		r := e.browser().get(e.authURL(srv.URL+"/d.json", redirect, challenge, "deals:read", "s"))
		if r.Status != http.StatusTooManyRequests || hits.Load() != 3 {
			t.Fatalf("want 429 without a fetch, got %d after %d fetches: %s", r.Status, hits.Load(), r.Raw)
		}
		reg := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{redirect}})
		wantOAuthError(t, reg, http.StatusTooManyRequests, "rate_limited")
	})
}
