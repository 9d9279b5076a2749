package oauth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store/storetest"
)

// idp is an OpenID Connect provider inside the test: discovery, JWKS, an authorization
// endpoint that signs in at once, and a token endpoint that checks PKCE and returns an
// ID token shaped by the test.
type idp struct {
	t        testing.TB
	srv      *httptest.Server
	key      *rsa.PrivateKey
	otherKey *rsa.PrivateKey // signs "bad signature" tokens; never published

	mu       sync.Mutex
	requests map[string]url.Values // code -> authorization request
	claims   func(req url.Values) map[string]any
	signWith *rsa.PrivateKey
}

func newIDP(t testing.TB) *idp {
	p := &idp{t: t, requests: map[string]url.Values{}}
	var err error
	if p.key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if p.otherKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	iss := p.srv.URL
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "authorization_endpoint": iss + "/authorize",
			"token_endpoint": iss + "/token", "jwks_uri": iss + "/jwks", "response_types_supported": []string{"code"},
			"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"},
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: "k1",
			Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := base64.RawURLEncoding.EncodeToString([]byte(time.Now().String()))
		p.mu.Lock()
		p.requests[code] = q
		p.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		p.mu.Lock()
		req, ok := p.requests[r.PostForm.Get("code")]
		delete(p.requests, r.PostForm.Get("code"))
		claimsFn, key := p.claims, p.signWith
		p.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || req.Get("code_challenge") != base64.RawURLEncoding.EncodeToString(sum[:]) || req.Get("code_challenge_method") != "S256" {
			w.WriteHeader(400)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
			return
		}
		if id, secret, _ := r.BasicAuth(); id != "ws-client" || secret != "ws-secret" {
			w.WriteHeader(401)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
			return
		}
		claims := claimsFn(req)
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, nil)
		if err != nil {
			t.Error(err)
			return
		}
		payload, _ := json.Marshal(claims)
		jws, err := signer.Sign(payload)
		if err != nil {
			t.Error(err)
			return
		}
		idToken, _ := jws.CompactSerialize()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "upstream-at", "token_type": "Bearer", "expires_in": 300,
			"id_token": idToken})
	})
	return p
}

// set decides the next ID tokens: claims built from the authorization request, signed by key.
func (p *idp) set(key *rsa.PrivateKey, claims func(req url.Values) map[string]any) {
	p.mu.Lock()
	p.claims, p.signWith = claims, key
	p.mu.Unlock()
}

func (p *idp) standard(email string, verified any, aud string) func(url.Values) map[string]any {
	return func(req url.Values) map[string]any {
		now := time.Now()
		return map[string]any{"iss": p.srv.URL, "sub": "upstream-" + email, "aud": aud, "iat": now.Unix(),
			"exp": now.Add(5 * time.Minute).Unix(), "nonce": req.Get("nonce"), "email": email, "email_verified": verified}
	}
}

// TestUpstreamSignIn: "Sign in with <name>" against an OpenID Connect provider started
// here; the ID token must verify (signature, issuer, audience, expiry, nonce) and carry a
// verified email of an active member.
func TestUpstreamSignIn(t *testing.T) {
	p := newIDP(t)
	e := newEnv(t, func(c *oauth.Config) {
		c.Upstream = &oauth.Upstream{Issuer: p.srv.URL, ClientID: "ws-client", ClientSecret: "ws-secret", Name: "Acme SSO"}
	})
	redirect := "https://app.example.com/cb"
	client := e.register(redirect)
	upstreamHref := regexp.MustCompile(`id="upstream" href="([^"]+)"`)

	// signIn runs the browser through the upstream and returns the page it ends on.
	signIn := func(b *browser) response {
		t.Helper()
		_, challenge := pkce()
		r := b.get(e.authURL(client, redirect, challenge, "deals:read", "s"))
		login := b.get(r.Header.Get("Location"))
		m := upstreamHref.FindStringSubmatch(login.Raw)
		if m == nil || !strings.Contains(login.Raw, "Sign in with Acme SSO") {
			t.Fatalf("no upstream button on the login page: %s", login.Raw)
		}
		r = b.get(html.UnescapeString(m[1])) // -> the provider
		if r.Status != http.StatusFound || !strings.HasPrefix(r.Header.Get("Location"), p.srv.URL+"/authorize?") {
			t.Fatalf("start: %d %s", r.Status, r.Header.Get("Location"))
		}
		auth, _ := url.Parse(r.Header.Get("Location"))
		if auth.Query().Get("code_challenge_method") != "S256" || auth.Query().Get("nonce") == "" || auth.Query().Get("state") == "" {
			t.Fatalf("upstream request lacks PKCE, nonce or state: %s", auth)
		}
		r = b.get(r.Header.Get("Location"))  // the provider signs in and sends us back
		r = b.get(r.Header.Get("Location"))  // our callback
		if r.Status == http.StatusSeeOther { // signed in: back to the authorization request
			return b.get(r.Header.Get("Location"))
		}
		return r
	}

	t.Run("a verified email of an active member signs in", func(t *testing.T) {
		p.set(p.key, p.standard(strings.ToUpper(e.Member.Email), true, "ws-client"))
		r := signIn(e.browser())
		if r.Status != 200 || !strings.Contains(r.Raw, `id="consent"`) || !strings.Contains(r.Raw, e.Member.Email) {
			t.Fatalf("want the consent page, got %d %s", r.Status, r.Raw)
		}
		var subject string
		_ = storetest.Pool(t).QueryRow(context.Background(), `SELECT upstream_subject FROM users WHERE id = $1`, e.Member.ID).Scan(&subject)
		if subject != p.srv.URL+"|upstream-"+strings.ToUpper(e.Member.Email) {
			t.Fatalf("upstream subject %q", subject)
		}
	})
	refused := []struct {
		name   string
		key    *rsa.PrivateKey
		claims func(url.Values) map[string]any
		want   string
	}{
		{"an unknown email", p.key, p.standard("stranger@example.test", true, "ws-client"), "No member"},
		{"an unverified email", p.key, p.standard(e.Admin.Email, false, "ws-client"), "verified"},
		{"a missing email_verified", p.key, p.standard(e.Admin.Email, nil, "ws-client"), "verified"},
		{"a bad signature", p.otherKey, p.standard(e.Admin.Email, true, "ws-client"), "could not be verified"},
		{"a wrong audience", p.key, p.standard(e.Admin.Email, true, "another-client"), "could not be verified"},
		{"an expired ID token", p.key, func(req url.Values) map[string]any {
			c := p.standard(e.Admin.Email, true, "ws-client")(req)
			c["exp"] = time.Now().Add(-time.Hour).Unix()
			return c
		}, "could not be verified"},
		{"another nonce (OIDC Core 3.1.3.7)", p.key, func(req url.Values) map[string]any {
			c := p.standard(e.Admin.Email, true, "ws-client")(req)
			c["nonce"] = "replayed"
			return c
		}, "not issued for this sign-in"},
		{"another issuer", p.key, func(req url.Values) map[string]any {
			c := p.standard(e.Admin.Email, true, "ws-client")(req)
			c["iss"] = "https://evil.example"
			return c
		}, "could not be verified"},
		{"a suspended member", p.key, p.standard(e.addUser("member", "suspended", nil).Email, true, "ws-client"), "suspended"},
		{"a member linked to another upstream account", p.key, func(req url.Values) map[string]any {
			c := p.standard(e.Member.Email, true, "ws-client")(req)
			c["sub"] = "someone-else"
			return c
		}, "linked to another"},
	}
	for _, c := range refused {
		t.Run("refuses "+c.name, func(t *testing.T) {
			p.set(c.key, c.claims)
			r := signIn(e.browser())
			if r.Status != http.StatusForbidden || !strings.Contains(r.Raw, c.want) {
				t.Fatalf("want 403 mentioning %q, got %d %s", c.want, r.Status, r.Raw)
			}
			if strings.Contains(r.Raw, `id="consent"`) {
				t.Fatal("signed in anyway")
			}
		})
	}
	t.Run("refuses a callback whose state does not match the browser's", func(t *testing.T) {
		p.set(p.key, p.standard(e.Admin.Email, true, "ws-client"))
		b := e.browser()
		_, challenge := pkce()
		r := b.get(e.authURL(client, redirect, challenge, "deals:read", "s"))
		login := b.get(r.Header.Get("Location"))
		r = b.get(html.UnescapeString(upstreamHref.FindStringSubmatch(login.Raw)[1]))
		r = b.get(r.Header.Get("Location"))
		back, _ := url.Parse(r.Header.Get("Location"))
		q := back.Query()
		q.Set("state", "attacker-state")
		back.RawQuery = q.Encode()
		if r := b.get(back.String()); r.Status != http.StatusBadRequest {
			t.Fatalf("want 400, got %d %s", r.Status, r.Raw)
		}
		// A callback in a browser that never started the flow (login CSRF).
		if r := e.browser().get(back.String()); r.Status != http.StatusBadRequest {
			t.Fatalf("want 400, got %d", r.Status)
		}
	})
}
