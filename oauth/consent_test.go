package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/oauth"
)

// TestConsentRemembered: an earlier approval is reused silently only for an admin app, or
// at the exact redirect URI (port included) it was given at, within the scopes approved
// (RFC 8252 8.6, RFC 9700 4.2, docs/decisions.md 7). Otherwise the consent page is shown again
// with the earlier choices ticked.
func TestConsentRemembered(t *testing.T) {
	e := newEnv(t)
	client := e.register("http://127.0.0.1/callback")
	first := "http://127.0.0.1:50001/callback"
	b := e.browser()
	_, challenge := pkce()
	b.get(e.authURL(client, first, challenge, "deals:read deals:write people:read", "s"))
	b.login(e.Member)
	b.approve([]string{"deals:read", "people:read"})

	silent := func(t *testing.T, r response, target string) {
		t.Helper()
		loc, _ := url.Parse(r.Header.Get("Location"))
		if r.Status != http.StatusFound || loc == nil || !strings.HasPrefix(loc.String(), target+"?") || loc.Query().Get("code") == "" {
			t.Fatalf("want a code sent to %s at once, got %d %s", target, r.Status, r.Header.Get("Location"))
		}
	}
	asked := func(t *testing.T, r response) {
		t.Helper()
		if r.Status != http.StatusOK || !strings.Contains(r.Raw, `id="consent"`) {
			t.Fatalf("want the consent page, got %d %s", r.Status, r.Header.Get("Location"))
		}
	}

	t.Run("same redirect URI and scopes: no page", func(t *testing.T) {
		silent(t, b.get(e.authURL(client, first, challenge, "deals:read people:read", "s")), first)
		silent(t, b.get(e.authURL(client, first, challenge, "deals:read", "s")), first)
	})
	t.Run("another loopback port: asked again, earlier choices ticked", func(t *testing.T) {
		other := "http://127.0.0.1:50002/callback"
		asked(t, b.get(e.authURL(client, other, challenge, "deals:read people:read", "s")))
		r := b.get(e.authURL(client, other, challenge, "deals:read deals:write people:read", "s"))
		asked(t, r)
		for scope, ticked := range map[string]bool{"deals:read": true, "people:read": true, "deals:write": false} {
			has := strings.Contains(r.Raw, `value="`+scope+`" id="scope-`+strings.ReplaceAll(scope, ":", "-")+`" checked`)
			if has != ticked {
				t.Fatalf("%s ticked=%v, want %v", scope, has, ticked)
			}
		}
		// Approving there adds that port; the first one still works.
		b.approve([]string{"deals:read", "people:read"})
		silent(t, b.get(e.authURL(client, other, challenge, "deals:read", "s")), other)
		silent(t, b.get(e.authURL(client, first, challenge, "deals:read", "s")), first)
	})
	t.Run("wider scopes: asked again", func(t *testing.T) {
		asked(t, b.get(e.authURL(client, first, challenge, "deals:read deals:write", "s")))
	})
	t.Run("widening the approval forgets the other redirect URIs", func(t *testing.T) {
		third := "http://127.0.0.1:50003/callback"
		b.get(e.authURL(client, third, challenge, "deals:read deals:write", "s"))
		b.approve([]string{"deals:read", "deals:write"})
		silent(t, b.get(e.authURL(client, third, challenge, "deals:write", "s")), third)
		asked(t, b.get(e.authURL(client, first, challenge, "deals:read", "s")))
	})
	t.Run("admin-registered app: no page within the approved scopes", func(t *testing.T) {
		app, err := oauthCreateApp(e, false, "http://127.0.0.1/callback")
		if err != nil {
			t.Fatal(err)
		}
		b.get(e.authURL(app.ClientID, first, challenge, "deals:read", "s"))
		b.approve(nil)
		silent(t, b.get(e.authURL(app.ClientID, "http://127.0.0.1:50009/callback", challenge, "deals:read", "s")),
			"http://127.0.0.1:50009/callback")
	})
}

// TestMemberNeverOfferedAdminScopes: docs/decisions.md 3: the consent page
// never offers a member directory:write or automations:write, which change workspace
// settings and automations (admin-only), and an approval that names them anyway grants
// neither; an admin is offered both.
func TestMemberNeverOfferedAdminScopes(t *testing.T) {
	e := newEnv(t)
	const asked = "directory:read directory:write automations:read automations:write"
	redirect := "https://app.example.com/callback"
	client := e.register(redirect)
	b := e.browser()
	_, challenge := pkce()
	b.get(e.authURL(client, redirect, challenge, asked, "s"))
	page := b.login(e.Member)
	for _, sc := range []string{"directory:write", "automations:write"} {
		if strings.Contains(page.Raw, `name="scope" value="`+sc+`"`) {
			t.Fatalf("the consent page offers a member %s", sc)
		}
	}
	// A forged form naming them anyway.
	code, v := e.flow(e.browser(), e.Member, client, redirect, asked, []string{"directory:read", "directory:write", "automations:write"})
	tk := e.exchange(client, code, v, redirect)
	for _, sc := range strings.Fields(tk.Scope) {
		if sc == "directory:write" || sc == "automations:write" {
			t.Fatalf("a member was granted %q", tk.Scope)
		}
	}
	_, admin := e.tokensFor(e.Admin, asked)
	if got := strings.Fields(admin.Scope); len(got) != 4 || !strings.Contains(admin.Scope, "directory:write") || !strings.Contains(admin.Scope, "automations:write") {
		t.Fatalf("an admin was granted %q, want %q", admin.Scope, asked)
	}
}

// TestConsentShowsUnverifiedRedirectHost: an unverified client names itself, so the
// consent page's "From" is the host the member will be sent to, never a client_uri host
// that differs (else "From trusted-bank.example" could stand above a redirect elsewhere).
func TestConsentShowsUnverifiedRedirectHost(t *testing.T) {
	e := newEnv(t)
	r := e.postJSON("/oauth/register", map[string]any{"client_name": "Bank", "client_uri": "https://trusted-bank.example",
		"redirect_uris": []string{"https://collector.example/cb"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.Status, r.Raw)
	}
	b := e.browser()
	_, challenge := pkce()
	b.get(e.authURL(r.str("client_id"), "https://collector.example/cb", challenge, "deals:read", "s"))
	page := b.login(e.Member)
	if !strings.Contains(page.Raw, `id="client-host">collector.example<`) || strings.Contains(page.Raw, "trusted-bank.example") {
		t.Fatalf("want From collector.example and no trusted-bank.example: %s", page.Raw)
	}
}

// TestSignInPagePresentsApp: the sign-in page that continues an
// authorization request presents the app as the consent page does, before the password
// is typed: an unverified app carries the warning above the password field and its
// "From" is the host the member will be sent to, never the host of its own client_uri; an
// app the workspace's admin registered carries a badge instead, and its home page host:
// "Verified by your workspace" on the consent page, and on the sign-in page, before the
// member (and so their workspace) is known, "Verified by a workspace admin".
func TestSignInPagePresentsApp(t *testing.T) {
	e := newEnv(t)
	_, challenge := pkce()
	r := e.postJSON("/oauth/register", map[string]any{"client_name": "Bank", "client_uri": "https://trusted-bank.example",
		"redirect_uris": []string{"https://collector.example/cb"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.Status, r.Raw)
	}
	b := e.browser()
	b.get(e.authURL(r.str("client_id"), "https://collector.example/cb", challenge, "deals:read", "s"))
	login := b.get(b.last.Header.Get("Location"))
	warning, password := strings.Index(login.Raw, `id="unverified"`), strings.Index(login.Raw, `id="password"`)
	if login.Status != http.StatusOK || warning < 0 || password < 0 || warning > password {
		t.Fatalf("the unverified warning must come before the password field (at %d, field at %d): %s", warning, password, login.Raw)
	}
	if !strings.Contains(login.Raw, `id="client-host">collector.example<`) || strings.Contains(login.Raw, "trusted-bank.example") ||
		strings.Contains(login.Raw, `id="verified"`) || !strings.Contains(login.Raw, `id="app-name">Bank<`) {
		t.Fatalf("sign-in page for an unverified app: want From collector.example, no trusted-bank.example, no badge: %s", login.Raw)
	}

	app, err := oauth.CreateApp(t.Context(), e.store, oauth.NewApp{WorkspaceID: e.WorkspaceID, Name: "Acme CRM sync",
		RedirectURIs: []string{"https://sync.acme.example/cb"}, ClientURI: "https://acme.example"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b = e.browser()
	b.get(e.authURL(app.ClientID, "https://sync.acme.example/cb", challenge, "deals:read", "s"))
	login = b.get(b.last.Header.Get("Location"))
	consent := e.browser()
	consent.get(e.authURL(app.ClientID, "https://sync.acme.example/cb", challenge, "deals:read", "s"))
	for name, c := range map[string]struct {
		page      response
		wantBadge string
	}{"sign-in": {login, "Verified by a workspace admin"}, "consent": {consent.login(e.Member), "Verified by your workspace"}} {
		if !strings.Contains(c.page.Raw, `id="verified">`+c.wantBadge+`<`) || strings.Contains(c.page.Raw, `id="unverified"`) ||
			!strings.Contains(c.page.Raw, `id="client-host">acme.example<`) {
			t.Fatalf("%s page for an admin-registered app: want %q, From acme.example and no warning: %s", name, c.wantBadge, c.page.Raw)
		}
	}
}

// TestConsentGroupsScopes: the consent page groups the scopes by family
// with a sentence in plain words each, one checkbox per scope still, and says where the
// access can be revoked.
func TestConsentGroupsScopes(t *testing.T) {
	e := newEnv(t, func(c *oauth.Config) { c.ConnectedAppsURL = "/console/account" })
	redirect := "https://app.example.com/callback"
	client := e.register(redirect)
	b := e.browser()
	_, challenge := pkce()
	b.get(e.authURL(client, redirect, challenge, "deals:read deals:write people:read companies:write tasks:read enrich:write", "s"))
	page := b.login(e.Admin)
	family := func(id string) string {
		t.Helper()
		start := strings.Index(page.Raw, `<fieldset class="family" id="family-`+id+`">`)
		end := strings.Index(page.Raw[max(start, 0):], "</fieldset>")
		if start < 0 || end < 0 {
			t.Fatalf("no family %q on the consent page: %s", id, page.Raw)
		}
		return page.Raw[start : start+end]
	}
	crm := family("crm")
	for _, want := range []string{"<legend>CRM</legend>", `<p class="summary">Read and change deals; read people; change companies</p>`,
		`value="deals:write" id="scope-deals-write" checked`, "See deals and crm files", "Create and change companies"} {
		if !strings.Contains(crm, want) {
			t.Errorf("the CRM family lacks %q: %s", want, crm)
		}
	}
	if strings.Contains(crm, "tasks:read") || strings.Contains(crm, "enrich:write") {
		t.Errorf("the CRM family holds another family's scope: %s", crm)
	}
	if w := family("workspace"); !strings.Contains(w, `<p class="summary">Read tasks</p>`) {
		t.Errorf("the Workspace family: %s", w)
	}
	if l := family("company-lookups"); !strings.Contains(l, "spends workspace credits") || strings.Contains(l, " checked") {
		t.Errorf("company lookups must say they spend credits and start unticked: %s", l)
	}
	if !strings.Contains(page.Raw, `<a href="/console/account">your connected apps page</a>`) {
		t.Errorf("the consent page does not say where access can be revoked: %s", page.Raw)
	}
}
