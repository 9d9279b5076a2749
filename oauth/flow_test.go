package oauth_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestFlow walks the whole flow as a browser and a client would: sign-in, consent, code,
// exchange, a REST call, refresh, a REST call with the new token.
func TestFlow(t *testing.T) {
	e := newEnv(t)
	redirect := "https://app.example.com/callback?tenant=1"
	client := e.register(redirect)
	b := e.browser()
	verifier, challenge := pkce()
	state := "a state/with ?odd=chars&+ünïcode"
	r := b.get(e.authURL(client, redirect, challenge, "deals:read deals:write people:read enrich:write", state,
		"resource", e.issuer+"/v1/"))
	if r.Status != http.StatusFound || !strings.HasPrefix(r.Header.Get("Location"), "/oauth/login?") {
		t.Fatalf("unauthenticated authorize: %d %s", r.Status, r.Header.Get("Location"))
	}
	r = b.login(e.Member)
	if !strings.Contains(r.Raw, `id="unverified"`) {
		t.Fatal("a dynamically registered app must carry the unverified warning")
	}
	if !strings.Contains(r.Raw, `value="enrich:write" id="scope-enrich-write">`) {
		t.Fatal("enrich:write must start unticked")
	}
	if csp := r.Header.Get("Content-Security-Policy"); csp != "default-src 'none'; style-src 'self'; img-src https: data:; form-action 'self' https://app.example.com; frame-ancestors 'none'; base-uri 'none'" {
		t.Fatalf("CSP: %s", csp)
	}
	loc := b.approve(nil)
	// RFC 6749 4.1.2: the registered query is kept; state comes back unchanged; RFC 9207: iss.
	if loc.Scheme+"://"+loc.Host+loc.Path != "https://app.example.com/callback" || loc.Query().Get("tenant") != "1" {
		t.Fatalf("redirected to %s", loc)
	}
	if got := loc.Query().Get("state"); got != state {
		t.Fatalf("state %q came back as %q", state, got)
	}
	if got := loc.Query().Get("iss"); got != e.issuer {
		t.Fatalf("iss %q, want %q", got, e.issuer)
	}
	tok := e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"code_verifier": {verifier}, "client_id": {client}, "redirect_uri": {redirect}})
	if tok.Status != 200 || tok.Header.Get("Cache-Control") != "no-store" || tok.Header.Get("Pragma") != "no-cache" {
		t.Fatalf("token: %d %v %s", tok.Status, tok.Header, tok.Raw)
	}
	if tok.str("token_type") != "Bearer" || tok.Body["expires_in"] != float64(3600) ||
		tok.str("scope") != "deals:read deals:write people:read" {
		t.Fatalf("token body: %s", tok.Raw)
	}
	if !strings.HasPrefix(tok.str("access_token"), "svc_at_") || !strings.HasPrefix(tok.str("refresh_token"), "svc_rt_") {
		t.Fatalf("token prefixes: %s", tok.Raw)
	}
	me := e.me(tok.str("access_token"))
	if me.Status != 200 {
		t.Fatalf("me: %d %s", me.Status, me.Raw)
	}
	data := me.Body["data"].(map[string]any)
	cred := data["credential"].(map[string]any)
	if cred["type"] != "oauth" || cred["client_id"] != client || cred["expires_at"] == nil {
		t.Fatalf("me credential: %s", me.Raw)
	}
	if data["user"].(map[string]any)["id"] != e.Member.ID {
		t.Fatalf("me user: %s", me.Raw)
	}
	ref := e.refresh(client, tok.str("refresh_token"))
	if ref.Status != 200 || ref.str("refresh_token") == tok.str("refresh_token") || ref.str("scope") != tok.str("scope") {
		t.Fatalf("refresh: %d %s", ref.Status, ref.Raw)
	}
	if me := e.me(ref.str("access_token")); me.Status != 200 {
		t.Fatalf("me with the refreshed token: %d %s", me.Status, me.Raw)
	}

	// The consent is remembered: the same request is answered at once.
	_, challenge = pkce()
	r = b.get(e.authURL(client, redirect, challenge, "deals:read", "again"))
	if r.Status != http.StatusFound || !strings.HasPrefix(r.Header.Get("Location"), "https://app.example.com/callback?") {
		t.Fatalf("second authorization should skip consent: %d %s", r.Status, r.Raw)
	}
	// Wider than granted (enrich:write was left unticked): asked again.
	r = b.get(e.authURL(client, redirect, challenge, "deals:read enrich:write", "again"))
	if r.Status != 200 || !strings.Contains(r.Raw, `id="consent"`) {
		t.Fatalf("a wider request must ask again: %d", r.Status)
	}
}

// TestJSONTokenRequest: the token endpoint also takes JSON bodies (docs/contract.md section 4.3).
func TestJSONTokenRequest(t *testing.T) {
	e := newEnv(t)
	redirect := "https://app.example.com/cb"
	client := e.register(redirect)
	code, verifier := e.flow(e.browser(), e.Member, client, redirect, "deals:read", nil)
	r := e.postJSON("/oauth/token?apikey="+testAPIKey, map[string]string{"grant_type": "authorization_code", "code": code,
		"code_verifier": verifier, "client_id": client, "redirect_uri": redirect})
	if r.Status != 200 || r.str("access_token") == "" {
		t.Fatalf("JSON exchange: %d %s", r.Status, r.Raw)
	}
	r = e.postJSON("/oauth/token", map[string]string{"grant_type": "refresh_token", "refresh_token": r.str("refresh_token"),
		"client_id": client}, "apikey", testAPIKey)
	if r.Status != 200 {
		t.Fatalf("JSON refresh: %d %s", r.Status, r.Raw)
	}
}

// TestAuthorizeRequestErrors: an untrusted client or redirect_uri is an error page, never a
// redirect (RFC 6749 4.1.2.1, RFC 9700 4.1); other errors go back to the client with state
// and iss (RFC 9207).
func TestAuthorizeRequestErrors(t *testing.T) {
	e := newEnv(t)
	redirect := "https://app.example.com/callback"
	client := e.register(redirect, "http://127.0.0.1/loopback", "http://localhost/cb?x=1")
	_, challenge := pkce()
	page := func(name string, extra ...string) {
		t.Run(name, func(t *testing.T) {
			r := e.browser().get(e.authURL(client, redirect, challenge, "deals:read", "s", extra...))
			if r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" || !strings.Contains(r.Raw, `id="error"`) {
				t.Fatalf("want an error page, got %d %s", r.Status, r.Header.Get("Location"))
			}
		})
	}
	page("unknown client", "client_id", "svcdyn_nosuchclient")
	page("missing client", "client_id", "")
	page("unregistered redirect_uri (RFC 6749 3.1.2.4)", "redirect_uri", "https://evil.example/callback")
	page("registered host, other path", "redirect_uri", "https://app.example.com/callback/../evil")
	page("registered host, path prefix", "redirect_uri", "https://app.example.com/callback/more")
	page("registered host, other query", "redirect_uri", "https://app.example.com/callback?next=https://evil.example")
	page("suffix host (open redirect)", "redirect_uri", "https://app.example.com.evil.example/callback")
	page("user info (open redirect)", "redirect_uri", "https://app.example.com@evil.example/callback")
	page("scheme downgrade", "redirect_uri", "http://app.example.com/callback")
	page("fragment", "redirect_uri", "https://app.example.com/callback#frag")
	page("case change in path", "redirect_uri", "https://app.example.com/Callback")
	page("loopback other host (RFC 8252 7.3)", "redirect_uri", "http://localhost:4000/loopback")
	page("loopback other path", "redirect_uri", "http://127.0.0.1:4000/other")
	page("loopback other query", "redirect_uri", "http://localhost:4000/cb?x=2")
	page("no redirect_uri with several registered (RFC 6749 3.1.2.3)", "redirect_uri", "")

	// Other errors go back to the client (RFC 6749 4.1.2.1), automatically only to an
	// admin-registered app or a loopback URI; a self-registered client's own site gets them
	// through a link on an error page, so this server is no open redirector (RFC 9700
	// 4.11.2, docs/decisions.md 7).
	app, err := oauthCreateApp(e, false, redirect)
	if err != nil {
		t.Fatal(err)
	}
	loopback := "http://127.0.0.1:43210/loopback"
	redirected := func(name, want string, extra ...string) {
		t.Run(name, func(t *testing.T) {
			check := func(loc *url.URL, target string) {
				t.Helper()
				if loc == nil || !strings.HasPrefix(loc.String(), target+"?") {
					t.Fatalf("want the error sent to %s, got %v", target, loc)
				}
				q := loc.Query()
				if q.Get("error") != want || q.Get("error_description") == "" || q.Get("state") != "xyz state" || q.Get("iss") != e.issuer {
					t.Fatalf("want error=%s with state and iss, got %s", want, loc.RawQuery)
				}
				if q.Get("code") != "" {
					t.Fatal("an error carries no code")
				}
			}
			for _, c := range []struct{ client, target string }{{app.ClientID, redirect}, {client, loopback}} {
				r := e.browser().get(e.authURL(c.client, c.target, challenge, "deals:read", "xyz state", extra...))
				loc, _ := url.Parse(r.Header.Get("Location"))
				if r.Status != http.StatusFound {
					t.Fatalf("%s: want a redirect to the client, got %d %s", c.target, r.Status, r.Raw)
				}
				check(loc, c.target)
			}
			r := e.browser().get(e.authURL(client, redirect, challenge, "deals:read", "xyz state", extra...))
			if r.Status < 400 || r.Header.Get("Location") != "" || !strings.Contains(r.Raw, `id="error"`) {
				t.Fatalf("self-registered client, https redirect: want an error page, got %d %s", r.Status, r.Header.Get("Location"))
			}
			check(pageLink(t, r), redirect)
		})
	}
	redirected("missing code_challenge (RFC 7636 4.4.1)", "invalid_request", "code_challenge", "")
	redirected("plain PKCE (RFC 7636 4.2, S256 only)", "invalid_request", "code_challenge_method", "plain")
	redirected("missing code_challenge_method (defaults to plain)", "invalid_request", "code_challenge_method", "")
	redirected("malformed code_challenge", "invalid_request", "code_challenge", "short")
	redirected("unknown scope (RFC 6749 3.3)", "invalid_scope", "scope", "deals:read deals:delete")
	redirected("unknown wildcard", "invalid_scope", "scope", "nothing:*")
	redirected("response_type token (RFC 6749 4.1.1)", "unsupported_response_type", "response_type", "token")
	redirected("missing response_type", "invalid_request", "response_type", "")
	redirected("foreign resource (RFC 8707 2)", "invalid_target", "resource", "https://evil.example/v1")
	redirected("resource on our host, other path", "invalid_target", "resource", e.issuer+"/v2")
	redirected("resource with a fragment (RFC 8707 2)", "invalid_target", "resource", e.issuer+"/mcp#tools")

	t.Run("loopback redirect ignores the port (RFC 8252 7.3)", func(t *testing.T) {
		for _, u := range []string{"http://127.0.0.1:51004/loopback", "http://127.0.0.1/loopback", "http://localhost:9/cb?x=1"} {
			r := e.browser().get(e.authURL(client, u, challenge, "deals:read", "s"))
			if r.Status != http.StatusFound || !strings.HasPrefix(r.Header.Get("Location"), "/oauth/login?") {
				t.Fatalf("%s: want the login redirect, got %d %s", u, r.Status, r.Raw)
			}
		}
	})
	t.Run("resource normalised (RFC 8707, docs/decisions.md 7)", func(t *testing.T) {
		mcp := strings.Replace(e.issuer, "http://", "HTTP://", 1) + "/mcp/"
		r := e.browser().get(e.authURL(client, redirect, challenge, "deals:read", "s", "resource", mcp))
		if r.Status != http.StatusFound || !strings.HasPrefix(r.Header.Get("Location"), "/oauth/login?") {
			t.Fatalf("want the login redirect, got %d %s", r.Status, r.Header.Get("Location"))
		}
	})
	redirected("prompt=none without a session (OIDC Core 3.1.2.6)", "login_required", "prompt", "none")
	t.Run("omitted scope asks for the whole catalogue", func(t *testing.T) {
		b := e.browser()
		b.get(e.authURL(client, redirect, challenge, "", "s"))
		r := b.login(e.Admin)
		if !strings.Contains(r.Raw, `value="hr:write"`) || !strings.Contains(r.Raw, `value="credits:read"`) {
			t.Fatalf("the admin's consent page should offer every scope: %s", r.Raw)
		}
	})
}

// TestConsentPage covers what the member sees and can do on the consent page.
func TestConsentPage(t *testing.T) {
	e := newEnv(t)
	redirect := "https://app.example.com/cb"

	t.Run("client_name and logo are escaped (XSS)", func(t *testing.T) {
		r := e.postJSON("/oauth/register", map[string]any{"client_name": `<script>alert(1)</script>"><img src=x onerror=alert(2)>`,
			"redirect_uris": []string{redirect}, "client_uri": `https://evil.example/"><script>alert(3)</script>`,
			"logo_uri": "https://evil.example/logo.png"})
		if r.Status != 201 {
			t.Fatalf("register: %d %s", r.Status, r.Raw)
		}
		b := e.browser()
		_, challenge := pkce()
		b.get(e.authURL(r.str("client_id"), redirect, challenge, "deals:read", "s"))
		page := b.login(e.Member)
		if strings.Contains(page.Raw, "<script>") || strings.Contains(page.Raw, "<img src=x") {
			t.Fatalf("unescaped client metadata on the consent page:\n%s", page.Raw)
		}
		if !strings.Contains(page.Raw, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Fatalf("client_name not shown escaped:\n%s", page.Raw)
		}
	})

	t.Run("a member cannot grant hr without an hr grant (docs/decisions.md 3)", func(t *testing.T) {
		client := e.register(redirect)
		b := e.browser()
		verifier, challenge := pkce()
		b.get(e.authURL(client, redirect, challenge, "deals:read hr:* automations:write", "s"))
		page := b.login(e.Member)
		for _, s := range []string{"hr:read", "hr:write", "automations:write"} {
			if strings.Contains(page.Raw, `name="scope" value="`+s+`"`) {
				t.Fatalf("%s offered to a member without the grant", s)
			}
			if !strings.Contains(page.Raw, "<code>"+s+"</code>") {
				t.Fatalf("%s should be listed as not available", s)
			}
		}
		// A forged form ticks them anyway: they are dropped.
		loc := b.approve([]string{"deals:read", "hr:read", "hr:write", "automations:write"})
		tk := e.exchange(client, loc.Query().Get("code"), verifier, redirect)
		if tk.Scope != "deals:read" {
			t.Fatalf("granted %q, want deals:read", tk.Scope)
		}
	})

	t.Run("consent without the CSRF token is refused", func(t *testing.T) {
		client := e.register(redirect)
		b := e.browser()
		_, challenge := pkce()
		b.get(e.authURL(client, redirect, challenge, "deals:read", "s"))
		b.login(e.Member)
		form := b.hidden()
		form.Del("csrf")
		form.Set("action", "approve")
		form.Set("scope", "deals:read")
		r := b.postForm("/oauth/authorize", form)
		if r.Status != http.StatusForbidden || r.Header.Get("Location") != "" {
			t.Fatalf("want 403 without redirect, got %d %s", r.Status, r.Header.Get("Location"))
		}
		form.Set("csrf", "forged")
		if r := b.postForm("/oauth/authorize", form); r.Status != http.StatusForbidden {
			t.Fatalf("forged token: %d", r.Status)
		}
		// Another browser's valid token does not work in this one.
		other := e.browser()
		other.get("/oauth/login")
		form.Set("csrf", other.hidden().Get("csrf"))
		if r := b.postForm("/oauth/authorize", form); r.Status != http.StatusForbidden {
			t.Fatalf("another browser's token: %d", r.Status)
		}
	})

	t.Run("login without the CSRF token is refused", func(t *testing.T) {
		b := e.browser()
		r := b.postForm("/oauth/login", url.Values{"email": {e.Member.Email}, "password": {e.Member.Password}})
		if r.Status != http.StatusForbidden {
			t.Fatalf("want 403, got %d", r.Status)
		}
	})

	t.Run("deny sends access_denied", func(t *testing.T) {
		client := e.register(redirect)
		b := e.browser()
		_, challenge := pkce()
		b.get(e.authURL(client, redirect, challenge, "deals:read", "s1"))
		b.login(e.Member)
		form := b.hidden()
		form.Set("action", "deny")
		r := b.postForm("/oauth/authorize", form)
		loc, _ := url.Parse(r.Header.Get("Location"))
		if r.Status != http.StatusSeeOther || loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "s1" {
			t.Fatalf("deny: %d %s", r.Status, r.Header.Get("Location"))
		}
	})

	t.Run("suspended and invited members cannot sign in, and learn nothing of their password", func(t *testing.T) {
		// A right password of an account that cannot sign in answers exactly as a wrong
		// one, or the sign-in page tells whoever guesses which password is right.
		loginError := regexp.MustCompile(`id="login-error">([^<]*)<`)
		answer := func(email, password string) (int, string) {
			t.Helper()
			b := e.browser()
			b.get("/oauth/login")
			form := b.hidden()
			form.Set("email", email)
			form.Set("password", password)
			r := b.postForm("/oauth/login", form)
			m := loginError.FindStringSubmatch(r.Raw)
			if m == nil {
				t.Fatalf("%s: no message on the login page: %d %s", email, r.Status, r.Raw)
			}
			return r.Status, m[1]
		}
		wrongStatus, wrongMsg := answer(e.Member.Email, "wrong password")
		if wrongStatus != http.StatusUnauthorized {
			t.Fatalf("wrong password: %d", wrongStatus)
		}
		for _, status := range []string{"suspended", "invited"} {
			u := e.addUser("member", status, nil)
			for _, pw := range []string{u.Password, "wrong password"} {
				if st, msg := answer(u.Email, pw); st != wrongStatus || msg != wrongMsg {
					t.Fatalf("%s member, password %q: %d %q; an active member's wrong password: %d %q", status, pw, st, msg, wrongStatus, wrongMsg)
				}
			}
		}
	})

	t.Run("admin-registered apps are verified", func(t *testing.T) {
		app, err := oauthCreateApp(e, false, redirect)
		if err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		_, challenge := pkce()
		b.get(e.authURL(app.ClientID, redirect, challenge, "deals:read", "s"))
		page := b.login(e.Member)
		if strings.Contains(page.Raw, `id="unverified"`) {
			t.Fatal("a verified app shows the unverified warning")
		}
	})
}
