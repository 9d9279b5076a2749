package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

func oauthCreateApp(e *env, confidential bool, redirects ...string) (oauth.CreatedApp, error) {
	return oauth.CreateApp(context.Background(), e.store, oauth.NewApp{WorkspaceID: e.WorkspaceID, Name: "Acme CRM sync",
		RedirectURIs: redirects, Confidential: confidential}, time.Now())
}

// TestCodeExchangeAttacks is a fosite-style table of authorization_code grants that must
// fail, each on a fresh code.
func TestCodeExchangeAttacks(t *testing.T) {
	e := newEnv(t)
	redirect := "https://app.example.com/cb"
	client := e.register(redirect)
	other := e.register(redirect)
	b := e.browser()
	cases := []struct {
		name       string
		edit       func(form url.Values, verifier string)
		before     func()
		wantStatus int
		wantErr    string
	}{
		{name: "fails because the verifier is wrong (RFC 7636 4.6)", wantErr: "invalid_grant",
			edit: func(f url.Values, _ string) { v, _ := pkce(); f.Set("code_verifier", v) }},
		{name: "fails because the verifier is missing (RFC 7636 4.5)", wantErr: "invalid_request",
			edit: func(f url.Values, _ string) { f.Del("code_verifier") }},
		{name: "fails because the verifier is too short (RFC 7636 4.1)", wantErr: "invalid_grant",
			edit: func(f url.Values, v string) { f.Set("code_verifier", v[:42]) }},
		{name: "fails because the verifier has reserved characters (RFC 7636 4.1)", wantErr: "invalid_grant",
			edit: func(f url.Values, v string) { f.Set("code_verifier", v[:42]+"/") }},
		{name: "fails because plain PKCE is not accepted: the challenge is not a verifier (RFC 7636 4.2)", wantErr: "invalid_grant",
			edit: func(f url.Values, v string) { f.Set("code_verifier", challengeOf(v)) }},
		{name: "fails because the code belongs to another client (RFC 6749 4.1.3)", wantErr: "invalid_grant",
			edit: func(f url.Values, _ string) { f.Set("client_id", other) }},
		{name: "fails because redirect_uri differs (RFC 6749 4.1.3)", wantErr: "invalid_grant",
			edit: func(f url.Values, _ string) { f.Set("redirect_uri", "https://app.example.com/cb2") }},
		{name: "fails because redirect_uri is missing (RFC 6749 4.1.3)", wantErr: "invalid_grant",
			edit: func(f url.Values, _ string) { f.Del("redirect_uri") }},
		{name: "fails because the code expired after 60 s (RFC 6749 4.1.2)", wantErr: "invalid_grant",
			before: func() { e.clock.Advance(61 * time.Second) }},
		{name: "fails because the code is unknown", wantErr: "invalid_grant",
			edit: func(f url.Values, _ string) { f.Set("code", "svc_ac_"+strings.Repeat("A", 49)) }},
		{name: "fails because the client is unknown (RFC 6749 5.2)", wantErr: "invalid_client", wantStatus: 401,
			edit: func(f url.Values, _ string) { f.Set("client_id", "svcdyn_unknown") }},
		{name: "fails because the client is unknown, whatever else is wrong with the request", wantErr: "invalid_client", wantStatus: 401,
			edit: func(f url.Values, _ string) { f.Set("client_id", "svcdyn_unknown"); f.Del("code_verifier") }},
		{name: "fails because grant_type is unsupported", wantErr: "unsupported_grant_type",
			edit: func(f url.Values, _ string) { f.Set("grant_type", "password") }},
		{name: "fails because the resource is foreign (RFC 8707)", wantErr: "invalid_target",
			edit: func(f url.Values, _ string) { f.Set("resource", "https://evil.example/") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, verifier := e.flow(b, e.Member, client, redirect, "deals:read", nil)
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
				"client_id": {client}, "redirect_uri": {redirect}}
			if c.edit != nil {
				c.edit(form, verifier)
			}
			if c.before != nil {
				c.before()
			}
			status := c.wantStatus
			if status == 0 {
				status = 400
			}
			wantOAuthError(t, e.post("/oauth/token", form), status, c.wantErr)
		})
	}

	t.Run("fails without the apikey (docs/decisions.md 7)", func(t *testing.T) {
		code, verifier := e.flow(b, e.Member, client, redirect, "deals:read", nil)
		r := e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
			"client_id": {client}, "redirect_uri": {redirect}}, "apikey", "")
		wantOAuthError(t, r, 401, "invalid_request")
		r = e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}}, "apikey", "pk_wrong")
		wantOAuthError(t, r, 401, "invalid_request")
	})

	t.Run("a reused code fails and revokes what the first exchange issued (RFC 6749 4.1.2)", func(t *testing.T) {
		code, verifier := e.flow(b, e.Member, client, redirect, "deals:read", nil)
		first := e.exchange(client, code, verifier, redirect)
		if me := e.me(first.Access); me.Status != 200 {
			t.Fatalf("first token: %d", me.Status)
		}
		r := e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
			"client_id": {client}, "redirect_uri": {redirect}})
		wantOAuthError(t, r, 400, "invalid_grant")
		waitStatus(t, e, first.Access, 401)
		wantOAuthError(t, e.refresh(client, first.Refresh), 400, "invalid_grant")
	})

	t.Run("a failed attempt consumes the code", func(t *testing.T) {
		code, verifier := e.flow(b, e.Member, client, redirect, "deals:read", nil)
		bad, _ := pkce()
		r := e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {bad},
			"client_id": {client}, "redirect_uri": {redirect}})
		wantOAuthError(t, r, 400, "invalid_grant")
		r = e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
			"client_id": {client}, "redirect_uri": {redirect}})
		wantOAuthError(t, r, 400, "invalid_grant")
	})
}

func challengeOf(verifier string) string {
	_, c := pkceFrom(verifier)
	return c
}

// TestConfidentialClient: admin apps with a secret authenticate with HTTP Basic or
// client_secret (RFC 6749 2.3.1) on top of PKCE.
func TestConfidentialClient(t *testing.T) {
	e := newEnv(t)
	redirect := "https://crm.example.com/oauth/cb"
	app, err := oauthCreateApp(e, true, redirect)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(app.ClientID, "svcapp_") || !strings.HasPrefix(app.ClientSecret, "svc_sk_") {
		t.Fatalf("app: %+v", app)
	}
	b := e.browser()
	exchange := func(form url.Values, headers ...string) response {
		code, verifier := e.flow(b, e.Member, app.ClientID, redirect, "deals:read", nil)
		form.Set("grant_type", "authorization_code")
		form.Set("code", code)
		form.Set("code_verifier", verifier)
		form.Set("redirect_uri", redirect)
		return e.post("/oauth/token", form, headers...)
	}
	t.Run("fails without the secret", func(t *testing.T) {
		wantOAuthError(t, exchange(url.Values{"client_id": {app.ClientID}}), 401, "invalid_client")
	})
	t.Run("fails with a wrong secret in the body", func(t *testing.T) {
		wantOAuthError(t, exchange(url.Values{"client_id": {app.ClientID}, "client_secret": {"svc_sk_wrong"}}), 401, "invalid_client")
	})
	t.Run("fails with a wrong secret over Basic, with a challenge (RFC 6749 5.2)", func(t *testing.T) {
		r := exchange(url.Values{}, "Authorization", basic(app.ClientID, "svc_sk_"+strings.Repeat("x", 49)))
		wantOAuthError(t, r, 401, "invalid_client")
		if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic ") {
			t.Fatalf("WWW-Authenticate: %q", r.Header.Get("WWW-Authenticate"))
		}
	})
	t.Run("succeeds with client_secret_post", func(t *testing.T) {
		if r := exchange(url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}}); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	})
	t.Run("succeeds with client_secret_basic", func(t *testing.T) {
		r := exchange(url.Values{}, "Authorization", basic(app.ClientID, app.ClientSecret))
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		// Refreshing needs the secret too.
		wantOAuthError(t, e.refresh(app.ClientID, r.str("refresh_token")), 401, "invalid_client")
		ref := e.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {r.str("refresh_token")}},
			"Authorization", basic(app.ClientID, app.ClientSecret))
		if ref.Status != 200 {
			t.Fatalf("refresh: %d %s", ref.Status, ref.Raw)
		}
	})
	t.Run("an app of another workspace is refused to this workspace's members", func(t *testing.T) {
		other := newEnv(t)
		b := other.browser()
		_, challenge := pkce()
		b.get(other.authURL(app.ClientID, redirect, challenge, "deals:read", "s"))
		r := b.login(other.Member)
		loc, _ := url.Parse(r.Header.Get("Location"))
		if r.Status != http.StatusFound || loc.Query().Get("error") != "access_denied" {
			t.Fatalf("want access_denied, got %d %s", r.Status, r.Header.Get("Location"))
		}
	})
}

// TestClientAuthenticatedFirst: the grant functions authenticate the client before
// anything else (store/migrations/00017), so a request that fails client authentication
// consumes no code and rotates no token, and a disabled client gets nothing.
func TestClientAuthenticatedFirst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pool := storetest.Pool(t)
	redirect := "https://crm.example.com/oauth/cb"
	app, err := oauthCreateApp(e, true, redirect)
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	code, verifier := e.flow(b, e.Member, app.ClientID, redirect, "deals:read", nil)
	exchange := func(secret string) response {
		return e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"code_verifier": {verifier}, "redirect_uri": {redirect}}, "Authorization", basic(app.ClientID, secret))
	}
	refresh := func(token, secret string) response {
		return e.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}},
			"Authorization", basic(app.ClientID, secret))
	}
	retired := func(token string) bool {
		t.Helper()
		var at *time.Time
		if err := pool.QueryRow(ctx, `SELECT retired_at FROM oauth_refresh_tokens WHERE token_hash = $1`,
			store.HashSecret(token)).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at != nil
	}
	wrong, _ := store.NewSecret(store.PrefixClientSecret)

	for _, secret := range []string{wrong, "not-a-secret"} {
		wantOAuthError(t, exchange(secret), 401, "invalid_client")
	}
	tok := exchange(app.ClientSecret)
	if tok.Status != 200 {
		t.Fatalf("the code must survive failed client authentications: %d %s", tok.Status, tok.Raw)
	}
	first := tok.str("refresh_token")
	wantOAuthError(t, refresh(first, wrong), 401, "invalid_client")
	wantOAuthError(t, e.refresh(app.ClientID, first), 401, "invalid_client") // no secret
	if retired(first) {
		t.Fatal("a refresh that failed client authentication retired the token")
	}
	next := refresh(first, app.ClientSecret)
	if next.Status != 200 || !retired(first) {
		t.Fatalf("refresh: %d %s", next.Status, next.Raw)
	}

	// Revocation, and a token request refused before its grant, make the same client check.
	access := next.str("access_token")
	revoke := func(secret string) response {
		return e.post("/oauth/revoke", url.Values{"token": {access}}, "Authorization", basic(app.ClientID, secret))
	}
	wantOAuthError(t, revoke(wrong), 401, "invalid_client")
	wantOAuthError(t, e.post("/oauth/revoke", url.Values{"token": {access}, "client_id": {app.ClientID}}), 401, "invalid_client")
	wantOAuthError(t, refresh("", wrong), 401, "invalid_client")
	if me := e.me(access); me.Status != 200 {
		t.Fatalf("a revocation that failed client authentication revoked the token: %d", me.Status)
	}
	if r := revoke(app.ClientSecret); r.Status != 200 {
		t.Fatalf("revoke with the client's secret: %d %s", r.Status, r.Raw)
	}
	waitStatus(t, e, access, 401)

	// Disabled without revoking its families, so only the client check can refuse.
	code, verifier = e.flow(b, e.Member, app.ClientID, redirect, "deals:read", nil)
	if _, err := pool.Exec(ctx, `UPDATE oauth_clients SET disabled_at = now() WHERE id = $1`, app.ClientID); err != nil {
		t.Fatal(err)
	}
	wantOAuthError(t, exchange(app.ClientSecret), 401, "invalid_client")
	wantOAuthError(t, refresh(next.str("refresh_token"), app.ClientSecret), 401, "invalid_client")
	if retired(next.str("refresh_token")) {
		t.Fatal("a disabled client's refresh retired the token")
	}
	wantOAuthError(t, revoke(app.ClientSecret), 401, "invalid_client")
}

func basic(id, secret string) string {
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	return req.Header.Get("Authorization")
}

// TestRefresh covers rotation, narrowing, the grace window and family revocation
// (RFC 6749 6, RFC 9700 4.14.2, docs/decisions.md 7).
func TestRefresh(t *testing.T) {
	e := newEnv(t)
	t.Run("rotation retires the old token; narrowing is allowed, widening is not", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read deals:write people:read")
		r := e.refresh(client, tk.Refresh, "scope", "deals:read")
		if r.Status != 200 || r.str("scope") != "deals:read" {
			t.Fatalf("narrowing: %d %s", r.Status, r.Raw)
		}
		me := e.me(r.str("access_token"))
		if got := me.Body["data"].(map[string]any)["scopes"]; len(got.([]any)) != 1 {
			t.Fatalf("narrowed token scopes: %v", got)
		}
		wantOAuthError(t, e.refresh(client, r.str("refresh_token"), "scope", "deals:read deals:write"), 400, "invalid_scope")
		wantOAuthError(t, e.refresh(client, r.str("refresh_token"), "scope", "hr:read"), 400, "invalid_scope")
		wantOAuthError(t, e.refresh(client, r.str("refresh_token"), "scope", "bogus:read"), 400, "invalid_scope")
		// The failed widening changed nothing: the token still works.
		if r2 := e.refresh(client, r.str("refresh_token")); r2.Status != 200 {
			t.Fatalf("after refused widening: %d %s", r2.Status, r2.Raw)
		}
	})
	t.Run("reuse inside the grace window gets a new pair and revokes the one issued before", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		first := e.refresh(client, tk.Refresh)
		e.clock.Advance(10 * time.Second)
		retry := e.refresh(client, tk.Refresh)
		if retry.Status != 200 {
			t.Fatalf("retry inside grace: %d %s", retry.Status, retry.Raw)
		}
		if me := e.me(first.str("access_token")); me.Status != 401 {
			t.Fatalf("the pair issued before must be revoked: %d", me.Status)
		}
		if me := e.me(retry.str("access_token")); me.Status != 200 {
			t.Fatalf("the new pair works: %d", me.Status)
		}
		// The original access token (issued with the retired refresh) lives out its hour.
		if me := e.me(tk.Access); me.Status != 200 {
			t.Fatalf("original access token: %d", me.Status)
		}
		if r := e.refresh(client, retry.str("refresh_token")); r.Status != 200 {
			t.Fatalf("the new refresh token works: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("reuse outside the grace window revokes the whole family", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		next := e.refresh(client, tk.Refresh)
		e.clock.Advance(31 * time.Second)
		wantOAuthError(t, e.refresh(client, tk.Refresh), 400, "invalid_grant")
		for _, a := range []string{tk.Access, next.str("access_token")} {
			if me := e.me(a); me.Status != 401 {
				t.Fatalf("access tokens of a revoked family must fail: %d", me.Status)
			}
		}
		wantOAuthError(t, e.refresh(client, next.str("refresh_token")), 400, "invalid_grant")
	})
	t.Run("a token superseded by a grace retry is honoured inside the window and revokes the family after it", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		lost := e.refresh(client, tk.Refresh)
		retry := e.refresh(client, tk.Refresh)
		again := e.refresh(client, lost.str("refresh_token"))
		if again.Status != 200 {
			t.Fatalf("the superseded token inside the window: %d %s", again.Status, again.Raw)
		}
		e.clock.Advance(31 * time.Second)
		wantOAuthError(t, e.refresh(client, retry.str("refresh_token")), 400, "invalid_grant")
		wantOAuthError(t, e.refresh(client, again.str("refresh_token")), 400, "invalid_grant")
	})
	t.Run("the resource stays bound across refreshes (RFC 8707 2.2)", func(t *testing.T) {
		redirect := "https://app.example.com/callback"
		client := e.register(redirect)
		b := e.browser()
		verifier, challenge := pkce()
		b.get(e.authURL(client, redirect, challenge, "deals:read", "s", "resource", e.issuer+"/mcp"))
		b.login(e.Member)
		loc := b.approve(nil)
		tk := e.exchange(client, loc.Query().Get("code"), verifier, redirect)
		p, err := e.oauth.Verifier().Authenticate(context.Background(), tk.Access)
		if err != nil || p.Credential.Resource != e.issuer+"/mcp" {
			t.Fatalf("resource %+v %v", p, err)
		}
		wantOAuthError(t, e.refresh(client, tk.Refresh, "resource", e.issuer+"/v1"), 400, "invalid_target")
		if r := e.refresh(client, tk.Refresh, "resource", e.issuer+"/mcp/"); r.Status != 200 {
			t.Fatalf("same resource: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("a refresh may bind an unbound authorization's token to a narrower resource (RFC 8707 2.2)", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		r := e.refresh(client, tk.Refresh, "resource", e.issuer+"/mcp")
		if r.Status != 200 {
			t.Fatalf("refresh: %d %s", r.Status, r.Raw)
		}
		p, err := e.oauth.Verifier().Authenticate(context.Background(), r.str("access_token"))
		if err != nil || p.Credential.Resource != e.issuer+"/mcp" {
			t.Fatalf("the narrowed token: resource %q %v, want %s/mcp", p.Credential.Resource, err, e.issuer)
		}
		if r := e.me(r.str("access_token")); r.Status != 401 {
			t.Fatalf("the token bound to /mcp on /v1/me: %d, want 401", r.Status)
		}
		again := e.refresh(client, r.str("refresh_token"))
		p, err = e.oauth.Verifier().Authenticate(context.Background(), again.str("access_token"))
		if again.Status != 200 || err != nil || p.Credential.Resource != "" {
			t.Fatalf("a later refresh without resource: %d %q %v, want an unbound token", again.Status, p.Credential.Resource, err)
		}
	})
	t.Run("refresh of another client's token fails and changes nothing", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		other := e.register("https://other.example/cb")
		wantOAuthError(t, e.refresh(other, tk.Refresh), 400, "invalid_grant")
		if r := e.refresh(client, tk.Refresh); r.Status != 200 {
			t.Fatalf("owner's refresh: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("refresh tokens expire after 30 days", func(t *testing.T) {
		client, tk := e.tokensFor(e.Member, "deals:read")
		e.clock.Advance(30*24*time.Hour + time.Second)
		defer e.clock.Advance(-(30*24*time.Hour + time.Second))
		wantOAuthError(t, e.refresh(client, tk.Refresh), 400, "invalid_grant")
	})
	t.Run("access tokens expire after an hour", func(t *testing.T) {
		_, tk := e.tokensFor(e.Member, "deals:read")
		verifier := e.oauth.Verifier()
		if _, err := verifier.Authenticate(context.Background(), tk.Access); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Hour)
		defer e.clock.Advance(-time.Hour)
		if _, err := verifier.Authenticate(context.Background(), tk.Access); err == nil {
			t.Fatal("an access token older than an hour must fail")
		}
	})
	t.Run("a suspended member's tokens stop working and cannot be refreshed", func(t *testing.T) {
		u := e.addUser("member", "active", map[string]string{"crm": "read"})
		client, tk := e.tokensFor(u, "deals:read")
		if err := e.store.SetMember(context.Background(), u.ID, storeMember("suspended")); err != nil {
			t.Fatal(err)
		}
		waitStatus(t, e, tk.Access, 401)
		wantOAuthError(t, e.refresh(client, tk.Refresh), 400, "invalid_grant")
	})
	t.Run("a grant removed later is insufficient_permission, not insufficient_scope (docs/contract.md section 5.6)", func(t *testing.T) {
		u := e.addUser("member", "active", map[string]string{"crm": "full"})
		_, tk := e.tokensFor(u, "deals:read deals:write labels:read")
		if tk.Scope != "deals:read deals:write labels:read" {
			t.Fatalf("granted %q", tk.Scope)
		}
		if err := e.store.SetMember(context.Background(), u.ID, storeMemberGrants(map[string]string{"crm": "read"})); err != nil {
			t.Fatal(err)
		}
		p, err := e.oauth.Verifier().Authenticate(context.Background(), tk.Access)
		if err != nil || strings.Join(p.Scopes, " ") != "deals:read deals:write labels:read" || p.Grant("crm") != "read" {
			t.Fatalf("after the grant dropped to read: scopes %v, err %v; want the token's scopes and crm=read", p, err)
		}
		deadline := time.Now().Add(3 * time.Second) // the cache flush is asynchronous
		for {
			req, _ := http.NewRequest("POST", e.srv.URL+"/v1/deals", strings.NewReader(`{}`))
			req.Header.Set("apikey", testAPIKey)
			req.Header.Set("Authorization", "Bearer "+tk.Access)
			res, err := http.DefaultClient.Do(req)
			r := decode(t, res, err)
			if r.Status == http.StatusForbidden {
				if r.str("error") != "insufficient_permission" {
					t.Fatalf("a write after the grant dropped: %d %s", r.Status, r.Raw)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a write after the grant dropped: %d %s", r.Status, r.Raw)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// waitStatus polls /v1/me until it answers want (the cache flush is asynchronous).
func waitStatus(t testing.TB, e *env, access string, want int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		r := e.me(access)
		if r.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/v1/me: want %d, got %d %s", want, r.Status, r.Raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConcurrentRefresh: 20 parallel refreshes of one token all succeed (they serialise
// on the family: one rotates, the rest are grace retries), and a client that kept any of
// the 19 superseded pairs is not logged out: inside the grace window each of them is
// honoured in turn, the family lives, and exactly one pair stays live after every step.
// Outside the window, a superseded token revokes the family.
func TestConcurrentRefresh(t *testing.T) {
	e := newEnv(t)
	client, tk := e.tokensFor(e.Member, "deals:read")
	const n = 20
	results := make([]response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = e.refresh(client, tk.Refresh)
		}()
	}
	close(start)
	wg.Wait()
	var live []response
	for _, r := range results {
		if r.Status != 200 {
			t.Fatalf("every parallel refresh succeeds; got %d %s", r.Status, r.Raw)
		}
		if e.me(r.str("access_token")).Status == 200 {
			live = append(live, r)
		}
	}
	if len(live) != 1 {
		t.Fatalf("%d pairs live after the parallel refreshes; want exactly one", len(live))
	}
	wantOneLivePair(t, e, client)

	// Each superseded pair, used inside the window, is honoured and becomes the live one.
	e.clock.Advance(10 * time.Second)
	var last response
	for _, r := range results {
		if r.str("refresh_token") == live[0].str("refresh_token") {
			continue
		}
		last = e.refresh(client, r.str("refresh_token"))
		if last.Status != 200 {
			t.Fatalf("a superseded refresh token inside the grace window: %d %s", last.Status, last.Raw)
		}
		wantOneLivePair(t, e, client)
	}
	waitStatus(t, e, live[0].str("access_token"), 401) // superseded by the replays
	if me := e.me(last.str("access_token")); me.Status != 200 {
		t.Fatalf("the pair issued last works: %d", me.Status)
	}

	// Outside the window, a superseded token is a stolen one: the family dies.
	e.clock.Advance(31 * time.Second)
	wantOAuthError(t, e.refresh(client, live[0].str("refresh_token")), 400, "invalid_grant")
	waitStatus(t, e, last.str("access_token"), 401)
	wantOAuthError(t, e.refresh(client, last.str("refresh_token")), 400, "invalid_grant")
}

// wantOneLivePair asserts that client has one unrevoked family holding exactly one live
// (neither retired nor revoked) refresh token.
func wantOneLivePair(t testing.TB, e *env, client string) {
	t.Helper()
	var families, liveRefresh int
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT count(DISTINCT f.id),
			count(r.id) FILTER (WHERE r.retired_at IS NULL AND r.revoked_at IS NULL)
		FROM oauth_families f JOIN oauth_refresh_tokens r ON r.family_id = f.id
		WHERE f.client_id = $1 AND f.revoked_at IS NULL`, client).Scan(&families, &liveRefresh); err != nil {
		t.Fatal(err)
	}
	if families != 1 || liveRefresh != 1 {
		t.Fatalf("%d live families with %d live refresh tokens; want 1 and 1", families, liveRefresh)
	}
}
