package oauth_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store/storetest"
)

// allowAll lets every registration through, so the table below is not rate limited.
type allowAll struct{}

func (allowAll) Allow(context.Context, netip.Addr) (bool, error) { return true, nil }

// TestRegister is dynamic client registration (RFC 7591, docs/contract.md section 4.3 rule 7,
// docs/decisions.md 7).
func TestRegister(t *testing.T) {
	e := newEnv(t, func(c *oauth.Config) { c.RegisterLimiter = allowAll{} })
	good := []string{
		"https://claude.ai/api/mcp/auth_callback",
		"https://chatgpt.com/connector_platform_oauth_redirect",
		"http://localhost:3000/callback",
		"http://127.0.0.1/callback",
		"http://127.5.6.7:8080/cb",
		"http://[::1]:33418/cb",
		"com.example.app:/oauth2redirect",
		"cursor://anysphere.cursor-retrieval/oauth/callback",
		"vscode://vscode.github-authentication/did-authenticate",
	}
	for _, u := range good {
		t.Run("accepts "+u, func(t *testing.T) {
			r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{u}, "client_name": "X",
				"token_endpoint_auth_method": "none", "application_type": "native", "resource": "ignored"})
			if r.Status != 201 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
		})
	}
	bad := []struct {
		name    string
		body    map[string]any
		wantErr string
	}{
		{"plain http to a non-loopback host (RFC 8252 8.3)", map[string]any{"redirect_uris": []string{"http://app.example.com/cb"}}, "invalid_redirect_uri"},
		{"http to a host that merely starts with localhost", map[string]any{"redirect_uris": []string{"http://localhost.evil.example/cb"}}, "invalid_redirect_uri"},
		{"fragment (RFC 6749 3.1.2)", map[string]any{"redirect_uris": []string{"https://app.example.com/cb#x"}}, "invalid_redirect_uri"},
		{"javascript:", map[string]any{"redirect_uris": []string{"javascript:alert(1)"}}, "invalid_redirect_uri"},
		{"data:", map[string]any{"redirect_uris": []string{"data:text/html,<script>alert(1)</script>"}}, "invalid_redirect_uri"},
		{"file:", map[string]any{"redirect_uris": []string{"file:///etc/passwd"}}, "invalid_redirect_uri"},
		{"vbscript:", map[string]any{"redirect_uris": []string{"vbscript:msgbox"}}, "invalid_redirect_uri"},
		{"about:", map[string]any{"redirect_uris": []string{"about:blank"}}, "invalid_redirect_uri"},
		{"blob:", map[string]any{"redirect_uris": []string{"blob:https://app.example.com/x"}}, "invalid_redirect_uri"},
		{"mailto:", map[string]any{"redirect_uris": []string{"mailto:a@example.com"}}, "invalid_redirect_uri"},
		{"ftp:", map[string]any{"redirect_uris": []string{"ftp://example.com/"}}, "invalid_redirect_uri"},
		{"wss:", map[string]any{"redirect_uris": []string{"wss://example.com/"}}, "invalid_redirect_uri"},
		{"user info", map[string]any{"redirect_uris": []string{"https://app.example.com@evil.example/"}}, "invalid_redirect_uri"},
		{"out-of-band urn", map[string]any{"redirect_uris": []string{"urn:ietf:wg:oauth:2.0:oob"}}, "invalid_redirect_uri"},
		{"ms-settings:", map[string]any{"redirect_uris": []string{"ms-settings:x"}}, "invalid_redirect_uri"},
		{"ms-msdt with a path", map[string]any{"redirect_uris": []string{"ms-msdt:/id"}}, "invalid_redirect_uri"},
		{"opaque private-use URI", map[string]any{"redirect_uris": []string{"com.example.app:callback"}}, "invalid_redirect_uri"},
		{"non-ASCII redirect URI", map[string]any{"redirect_uris": []string{"https://app.example/caf\u00e9"}}, "invalid_redirect_uri"},
		{"NUL in client_name", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "client_name": "a\u0000b"}, "invalid_client_metadata"},
		{"direction override in client_name", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "client_name": "Trusted\u202eppA"}, "invalid_client_metadata"},
		{"relative", map[string]any{"redirect_uris": []string{"/callback"}}, "invalid_redirect_uri"},
		{"missing redirect_uris", map[string]any{"client_name": "x"}, "invalid_redirect_uri"},
		{"empty redirect_uris", map[string]any{"redirect_uris": []string{}}, "invalid_redirect_uri"},
		{"11 redirect URIs (docs/contract.md section 8)", map[string]any{"redirect_uris": elevenURIs()}, "invalid_redirect_uri"},
		{"token_endpoint_auth_method client_secret_basic", map[string]any{"redirect_uris": []string{"https://a.example/cb"},
			"token_endpoint_auth_method": "client_secret_basic"}, "invalid_client_metadata"},
		{"http logo_uri", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "logo_uri": "http://a.example/l.png"}, "invalid_client_metadata"},
		{"javascript client_uri", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "client_uri": "javascript:alert(1)"}, "invalid_client_metadata"},
		{"unknown scope", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "scope": "deals:delete"}, "invalid_client_metadata"},
		{"implicit grant", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		{"redirect_uris not a list", map[string]any{"redirect_uris": "https://a.example/cb"}, "invalid_client_metadata"},
	}
	for _, c := range bad {
		t.Run("refuses "+c.name, func(t *testing.T) {
			wantOAuthError(t, e.postJSON("/oauth/register", c.body), 400, c.wantErr)
		})
	}

	t.Run("201 body is exactly the spec's", func(t *testing.T) {
		before := time.Now().Unix()
		r := e.postJSON("/oauth/register", map[string]any{"client_name": "Claude", "redirect_uris": []string{"https://claude.ai/api/mcp/auth_callback"},
			"token_endpoint_auth_method": "none", "scope": "deals:read people:*", "logo_uri": "https://claude.ai/logo.png"})
		if r.Status != 201 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("%d %v %s", r.Status, r.Header, r.Raw)
		}
		var keys []string
		for k := range r.Body {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := []string{"client_id", "client_id_issued_at", "client_name", "grant_types", "redirect_uris", "response_types", "scope",
			"token_endpoint_auth_method"}
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Fatalf("keys (-want +got):\n%s", diff)
		}
		issued, _ := r.Body["client_id_issued_at"].(float64)
		if int64(issued) < before-1 || int64(issued) > time.Now().Unix()+1 || !strings.HasPrefix(r.str("client_id"), "svcdyn_") {
			t.Fatalf("body: %s", r.Raw)
		}
		if r.str("scope") != "deals:read people:read people:write" || r.str("token_endpoint_auth_method") != "none" {
			t.Fatalf("body: %s", r.Raw)
		}
		// The registered scope bounds what the client may request.
		_, challenge := pkce()
		res := e.browser().get(e.authURL(r.str("client_id"), "https://claude.ai/api/mcp/auth_callback", challenge, "hr:read", "s"))
		if loc := pageLink(t, res); loc.Query().Get("error") != "invalid_scope" {
			t.Fatalf("want invalid_scope, got %d %s", res.Status, loc)
		}
	})
	t.Run("application_type is echoed (RFC 7591 3.2.1)", func(t *testing.T) {
		for _, app := range []string{"native", "web"} {
			r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"http://127.0.0.1:4000/cb"}, "application_type": app})
			if r.Status != 201 || r.str("application_type") != app {
				t.Fatalf("application_type %s: %d %s", app, r.Status, r.Raw)
			}
		}
		// Not a value OpenID Connect Dynamic Registration defines: ignored as before, not echoed.
		r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "application_type": "browser"})
		if _, ok := r.Body["application_type"]; r.Status != 201 || ok {
			t.Fatalf("application_type browser: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("omitted scope means the whole catalogue", func(t *testing.T) {
		r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://a.example/cb"}})
		if r.Status != 201 || len(strings.Fields(r.str("scope"))) != 35 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	})
	t.Run("CORS preflight", func(t *testing.T) {
		for _, path := range []string{"/oauth/register", "/oauth/token", "/oauth/revoke"} {
			req, _ := http.NewRequest("OPTIONS", e.srv.URL+path, nil)
			req.Header.Set("Origin", "https://app.example.com")
			req.Header.Set("Access-Control-Request-Method", "POST")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
				!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "apikey") {
				t.Fatalf("%s preflight: %d %v", path, res.StatusCode, res.Header)
			}
		}
	})
}

func elevenURIs() []string {
	var out []string
	for i := range 11 {
		out = append(out, "https://app.example.com/cb"+string(rune('a'+i)))
	}
	return out
}

// TestRegisterRateLimit: 20 registrations per hour per address; the 21st is 429.
func TestRegisterRateLimit(t *testing.T) {
	e := newEnv(t)
	for i := range 20 {
		r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://a.example/cb"}})
		if r.Status != 201 {
			t.Fatalf("registration %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://a.example/cb"}})
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("21st registration: %d %s", r.Status, r.Raw)
	}
	e.clock.Advance(time.Hour)
	if r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://a.example/cb"}}); r.Status != 201 {
		t.Fatalf("an hour later: %d %s", r.Status, r.Raw)
	}
}

// TestPurge: dynamic clients never used within 30 days of registration are deleted; used
// ones and admin apps stay.
func TestPurge(t *testing.T) {
	e := newEnv(t)
	unused := e.register("https://unused.example/cb")
	used, _ := e.tokensFor(e.Member, "deals:read")
	app, err := oauthCreateApp(e, false, "https://app.example.com/cb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.oauth.Purge(context.Background()); err != nil {
		t.Fatal(err)
	}
	exists := func(id string) bool {
		var n int
		_ = storetest.Pool(t).QueryRow(context.Background(), `SELECT count(*) FROM oauth_clients WHERE id = $1`, id).Scan(&n)
		return n == 1
	}
	if !exists(unused) {
		t.Fatal("a fresh client was purged")
	}
	e.clock.Advance(31 * 24 * time.Hour)
	res, err := e.oauth.Purge(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if exists(unused) || res.Clients < 1 {
		t.Fatalf("the unused client survived: %+v", res)
	}
	if !exists(used) || !exists(app.ClientID) {
		t.Fatal("a used client or an admin app was purged")
	}
}

// TestRevoke is RFC 7009.
func TestRevoke(t *testing.T) {
	e := newEnv(t)
	revoke := func(client, token string, headers ...string) response {
		return e.post("/oauth/revoke", url.Values{"token": {token}, "client_id": {client}, "token_type_hint": {"refresh_token"}}, headers...)
	}
	t.Run("a refresh token takes its whole family (docs/contract.md section 4.3 rule 5)", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		next := e.refresh(client, tk.Refresh)
		if me := e.me(next.str("access_token")); me.Status != 200 {
			t.Fatal(me.Raw)
		}
		r := revoke(client, next.str("refresh_token"))
		if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("%d %v", r.Status, r.Header)
		}
		waitStatus(t, e, next.str("access_token"), 401)
		waitStatus(t, e, tk.Access, 401)
		wantOAuthError(t, e.refresh(client, next.str("refresh_token")), 400, "invalid_grant")
	})
	t.Run("an access token only itself", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		if me := e.me(tk.Access); me.Status != 200 {
			t.Fatal(me.Raw)
		}
		if r := e.post("/oauth/revoke", url.Values{"token": {tk.Access}, "client_id": {client}}); r.Status != 200 {
			t.Fatal(r.Raw)
		}
		waitStatus(t, e, tk.Access, 401)
		if r := e.refresh(client, tk.Refresh); r.Status != 200 {
			t.Fatalf("the refresh token survives: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("unknown tokens answer 200 (RFC 7009 2.2)", func(t *testing.T) {
		client := e.register("https://a.example/cb")
		for _, tok := range []string{"svc_rt_" + strings.Repeat("A", 49), "garbage", "svc_at_nope"} {
			if r := revoke(client, tok); r.Status != 200 {
				t.Fatalf("%s: %d %s", tok, r.Status, r.Raw)
			}
		}
	})
	t.Run("another client's token: 200 and no effect (RFC 7009 2.1)", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		other := e.register("https://other.example/cb")
		if r := revoke(other, tk.Refresh); r.Status != 200 {
			t.Fatal(r.Raw)
		}
		if r := e.post("/oauth/revoke", url.Values{"token": {tk.Access}, "client_id": {other}}); r.Status != 200 {
			t.Fatal(r.Raw)
		}
		if me := e.me(tk.Access); me.Status != 200 {
			t.Fatalf("access token revoked by another client: %d", me.Status)
		}
		if r := e.refresh(client, tk.Refresh); r.Status != 200 {
			t.Fatalf("refresh token revoked by another client: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("the apikey is required; the query form works", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		wantOAuthError(t, revoke(client, tk.Refresh, "apikey", ""), 401, "invalid_request")
		req, _ := http.NewRequest("POST", e.srv.URL+"/oauth/revoke?apikey="+testAPIKey,
			strings.NewReader(url.Values{"token": {tk.Refresh}, "client_id": {client}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("%v %v", res, err)
		}
		res.Body.Close()
	})
	t.Run("missing token is invalid_request", func(t *testing.T) {
		client := e.register("https://a.example/cb")
		wantOAuthError(t, e.post("/oauth/revoke", url.Values{"client_id": {client}}), 400, "invalid_request")
	})
}
