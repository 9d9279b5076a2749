package console_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// waitStatus polls /v1/me with bearer until it answers want, for at most a second (the
// revocation reaches the credential cache through LISTEN/NOTIFY).
func (e *env) waitStatus(bearer string, want int) {
	e.t.Helper()
	deadline := time.Now().Add(time.Second)
	for got := e.me(bearer); got != want; got = e.me(bearer) {
		if time.Now().After(deadline) {
			e.t.Fatalf("/v1/me answers %d, want %d within a second", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBlockDynamicClient drives Chromium: a member authorizes a dynamically registered
// client; the admin blocks it on the apps page; its token answers 401 and a new
// authorization shows the blocked page; unblocking lets members authorize it again.
func TestBlockDynamicClient(t *testing.T) {
	e := newEnv(t)
	clientID := e.registerClient("MCP CLI Proxy")
	member := e.agent().signIn(e.Member)
	token := member.authorize(clientID, "companies:read")
	e.waitStatus(token, 200)

	ctx := newBrowser(t)
	browserSignIn(t, ctx, e.srv.URL, e.Admin)
	row := `tr[id="app-` + clientID + `"]`
	run(t, ctx, "block",
		chromedp.Navigate(e.srv.URL+"/console/apps"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row)))
	if err != nil || !strings.Contains(text, "MCP CLI Proxy") || !strings.Contains(text, e.Member.Email) ||
		!strings.Contains(text, "unverified") || !strings.Contains(text, "127.0.0.1") || !strings.Contains(text, "companies:read") {
		t.Fatalf("app row %q %v", text, err)
	}
	run(t, ctx, "block", chromedp.Click(chromedp.CSS(row+" button.danger")), chromedp.WaitVisible(chromedp.CSS("#confirm-button")),
		chromedp.Click(chromedp.CSS("#confirm-button")), chromedp.WaitVisible(chromedp.CSS("#notice")))
	e.waitStatus(token, http.StatusUnauthorized)

	q := url.Values{"client_id": {clientID}, "redirect_uri": {loopbackRedirect}, "response_type": {"code"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}, "state": {"s"}}
	run(t, ctx, "authorize the blocked app", chromedp.Navigate(e.srv.URL+"/oauth/authorize?"+q.Encode()),
		chromedp.WaitVisible(chromedp.CSS("#error")))
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
	if err != nil || title != "This app is blocked" {
		t.Fatalf("authorize a blocked app: %q %v", title, err)
	}
	if res := member.get("/oauth/authorize?" + q.Encode()); res.Status != http.StatusForbidden || res.Location != "" {
		t.Fatalf("member authorizes a blocked app: %d %q", res.Status, res.Location)
	}
	// Unblocked, the member may authorize it again.
	a := e.agent().signIn(e.Admin)
	if res := a.form("/console/apps", "/console/apps/unblock", url.Values{"client_id": {clientID}}); res.Status != 200 {
		t.Fatalf("unblock: %d", res.Status)
	}
	e.waitStatus(member.authorize(clientID, "companies:read"), 200)
}

// TestAppsSettingIsolationAndRevokeAll: "admin-registered apps only" refuses dynamic
// clients; another workspace's client is 404 to block; members get 403 on the apps page
// and forms; a member's "Revoke all" stops every token they gave.
func TestAppsSettingIsolationAndRevokeAll(t *testing.T) {
	e := newEnv(t)
	first, second := e.registerClient("First"), e.registerClient("Second")
	member := e.agent().signIn(e.Member)
	t1, t2 := member.authorize(first, "companies:read"), member.authorize(second, "companies:read")

	// Another workspace's member connects a third client: it is not this workspace's.
	other := newEnvSameDB(t, e)
	third := e.registerClient("Third")
	other.authorize(third, "companies:read")
	a := e.agent().signIn(e.Admin)
	if res := a.form("/console/apps", "/console/apps/block", url.Values{"confirm": {"yes"}, "client_id": {third}}); res.Status != http.StatusNotFound {
		t.Fatalf("blocking another workspace's app: %d", res.Status)
	}
	if res := a.get("/console/apps"); strings.Contains(res.Body, third) || !strings.Contains(res.Body, first) {
		t.Fatal("the apps page lists another workspace's app, or not this one's")
	}
	if res := a.form("/console/apps", "/console/apps/block", url.Values{"confirm": {"yes"}, "client_id": {"x\x00y"}}); res.Status != http.StatusNotFound {
		t.Fatalf("malformed client id: %d", res.Status)
	}
	mem := e.agent().signIn(e.Member)
	if res := mem.get("/console/apps"); res.Status != http.StatusForbidden {
		t.Fatalf("member opens apps: %d", res.Status)
	}
	token := csrf(t, mem.get("/console"))
	for _, path := range []string{"/console/apps/block", "/console/apps/unblock", "/console/apps/setting"} {
		if res := mem.post(path, url.Values{"csrf": {token}, "client_id": {first}, "admin_apps_only": {"on"}}); res.Status != http.StatusForbidden {
			t.Errorf("member posts %s: %d", path, res.Status)
		}
	}

	// Admin-registered apps only: a new authorization of a dynamic client is refused.
	if res := a.form("/console/apps", "/console/apps/setting", url.Values{"admin_apps_only": {"on"}}); res.Status != 200 ||
		!strings.Contains(res.Body, `id="admin-apps-only" name="admin_apps_only" checked`) {
		t.Fatalf("setting: %d", res.Status)
	}
	q := url.Values{"client_id": {first}, "redirect_uri": {loopbackRedirect}, "response_type": {"code"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}, "state": {"s"}}
	if res := member.get("/oauth/authorize?" + q.Encode()); res.Status != http.StatusForbidden ||
		!strings.Contains(res.Body, "allows only apps its admins registered") {
		t.Fatalf("dynamic client under admin-apps-only: %d", res.Status)
	}
	// The other workspace is not affected: its member's approval still yields a code.
	q.Set("client_id", third)
	q.Set("scope", "companies:read")
	if res := other.get("/oauth/authorize?" + q.Encode()); res.Status != http.StatusFound || !strings.Contains(res.Location, "code=") {
		t.Fatalf("another workspace under this one's setting: %d %q", res.Status, res.Location)
	}
	if res := a.form("/console/apps", "/console/apps/setting", url.Values{}); res.Status != 200 {
		t.Fatalf("setting off: %d", res.Status)
	}

	// Revoke all, from the member's own page.
	res := member.form("/console/account", "/console/account/revoke", url.Values{"confirm": {"yes"}, "all": {"1"}})
	if res.Status != 200 || !strings.Contains(res.Body, `id="none"`) {
		t.Fatalf("revoke all: %d", res.Status)
	}
	e.waitStatus(t1, http.StatusUnauthorized)
	e.waitStatus(t2, http.StatusUnauthorized)
}

// TestAppsInPlainWords: the account page (the member's own connected apps) and the apps
// page (every app of the workspace) word each app's permissions as the consent page does,
// grouped by family, with each scope's code after the line that says what it reaches.
func TestAppsInPlainWords(t *testing.T) {
	e := newEnv(t)
	clientID := e.registerClient("Pipeline Tool")
	member := e.agent().signIn(e.Member)
	member.authorize(clientID, "deals:read people:read")
	admin := e.agent().signIn(e.Admin)
	for _, p := range []struct {
		who  *agent
		path string
	}{{member, "/console/account"}, {admin, "/console/apps"}} {
		res := p.who.get(p.path)
		if res.Status != http.StatusOK || !strings.Contains(res.Body, "Pipeline Tool") {
			t.Fatalf("%s: %d %s", p.path, res.Status, res.Body)
		}
		text := visibleText(res.Body)
		for _, want := range []string{"CRM Read deals and people", "See deals and crm files deals:read", "See people people:read"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q: %s", p.path, want, text)
			}
		}
		if strings.Contains(res.Body, "</code> <code>") {
			t.Errorf("a scope code stands alone on %s: %s", p.path, res.Body)
		}
	}
}

// visibleText is a page's text as read: tags dropped, runs of white space made one space.
func visibleText(html string) string {
	return strings.Join(strings.Fields(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(html, " ")), " ")
}

// TestBlockedAppRefusedBeforeConsent: once an admin blocks a self-registered app, no member
// of the workspace is shown its consent page or gets a code: not after a fresh sign-in,
// not with a session, not a member who never used it, not by a consent form opened
// before the block.
func TestBlockedAppRefusedBeforeConsent(t *testing.T) {
	e := newEnv(t)
	clientID := e.registerClient("Blocked Later")
	token := e.agent().signIn(e.Member).authorize(clientID, "companies:read")
	e.waitStatus(token, 200)

	// A second member opens the consent page before the block and answers it after.
	second := e.addUser(e.WorkspaceID, "member", "active", map[string]string{"crm": "full"})
	early := e.agent().signIn(second)
	q := url.Values{"client_id": {clientID}, "redirect_uri": {loopbackRedirect}, "response_type": {"code"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}, "state": {"s"},
		"scope": {"companies:read"}}
	consent := early.get("/oauth/authorize?" + q.Encode())
	if consent.Status != 200 || !strings.Contains(consent.Body, `id="consent"`) {
		t.Fatalf("consent page before the block: %d", consent.Status)
	}
	approve := url.Values{"action": {"approve"}, "scope": {"companies:read"}}
	for _, m := range hiddenRE.FindAllStringSubmatch(consent.Body, -1) {
		approve.Set(m[1], html.UnescapeString(m[2]))
	}

	// The first member authorizes again just before the block (the consent is remembered,
	// so the code comes at once); the code is not exchanged yet.
	verifier := "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" // RFC 7636 appendix B: its challenge is q's
	pending := e.agent().signIn(e.Member)
	res := pending.get("/oauth/authorize?" + q.Encode())
	loc, _ := url.Parse(res.Location)
	if res.Status != http.StatusFound || loc == nil || loc.Query().Get("code") == "" {
		t.Fatalf("authorize before the block: %d %q %.800s", res.Status, res.Location, res.Body)
	}
	code := loc.Query().Get("code")

	a := e.agent().signIn(e.Admin)
	if res := a.form("/console/apps", "/console/apps/block", url.Values{"confirm": {"yes"}, "client_id": {clientID}}); res.Status != 200 {
		t.Fatalf("block: %d", res.Status)
	}
	e.waitStatus(token, http.StatusUnauthorized)

	t.Run("a code issued before the block", func(t *testing.T) {
		res := pending.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"code_verifier": {verifier}, "client_id": {clientID}, "redirect_uri": {loopbackRedirect}}, "apikey", testAPIKey)
		if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, `"invalid_grant"`) {
			t.Fatalf("exchange after the block: %d %s", res.Status, res.Body)
		}
	})

	blocked := func(t *testing.T, res page) {
		t.Helper()
		if res.Status != http.StatusForbidden || !strings.Contains(res.Body, "This app is blocked") ||
			strings.Contains(res.Body, `id="consent"`) || strings.Contains(res.Location, "code=") {
			t.Fatalf("want the blocked page, got %d %q %.600s", res.Status, res.Location, res.Body)
		}
	}
	t.Run("fresh browser signing in", func(t *testing.T) {
		for _, u := range []user{e.Member, second} {
			b := e.agent()
			res := b.get("/oauth/authorize?" + q.Encode())
			if res.Status != http.StatusFound || !strings.HasPrefix(res.Location, "/oauth/login") {
				t.Fatalf("anonymous: %d %q", res.Status, res.Location)
			}
			login := b.get(res.Location)
			form := url.Values{"email": {u.Email}, "password": {u.Password}}
			for _, m := range hiddenRE.FindAllStringSubmatch(login.Body, -1) {
				form.Set(m[1], html.UnescapeString(m[2]))
			}
			res = b.post("/oauth/login", form)
			if res.Status == http.StatusSeeOther {
				res = b.get(res.Location)
			}
			blocked(t, res)
		}
	})
	t.Run("existing session", func(t *testing.T) {
		blocked(t, e.agent().signIn(e.Member).get("/oauth/authorize?"+q.Encode()))
		blocked(t, early.get("/oauth/authorize?"+q.Encode()))
	})
	t.Run("consent form opened before the block", func(t *testing.T) {
		blocked(t, early.post("/oauth/authorize", approve))
	})
	if n := e.count(`SELECT count(*) FROM oauth_codes WHERE client_id = $1 AND user_id = $2`, clientID, second.ID); n != 0 {
		t.Fatalf("%d codes issued to a blocked app", n)
	}
}
