package oauth_test

import (
	"github.com/agencyos/workspaced/store/storetest"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestAdminApps: a workspace admin registers, rotates and disables apps on the admin page;
// members cannot; every form carries the CSRF token.
func TestAdminApps(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.get("/oauth/admin/apps")
	if b.last.Status != http.StatusSeeOther {
		t.Fatalf("signed out: %d", b.last.Status)
	}
	b.last.Status = http.StatusFound // login() follows the redirect to the login page
	page := b.login(e.Admin)
	if page.Status != 200 || !strings.Contains(page.Raw, `id="create-app"`) {
		t.Fatalf("admin page: %d %s", page.Status, page.Raw)
	}
	redirect := "https://crm.example.com/cb"
	form := b.hidden()
	form.Set("name", "CRM <sync>")
	form.Set("redirect_uris", redirect+" http://localhost/cb")
	form.Set("confidential", "1")
	r := b.postForm("/oauth/admin/apps", form)
	id := regexp.MustCompile(`id="new-client-id">([^<]+)<`).FindStringSubmatch(r.Raw)
	secret := regexp.MustCompile(`id="new-client-secret">([^<]+)<`).FindStringSubmatch(r.Raw)
	if r.Status != 200 || id == nil || secret == nil || !strings.HasPrefix(id[1], "svcapp_") || !strings.HasPrefix(secret[1], "svc_sk_") {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	if strings.Contains(r.Raw, "CRM <sync>") {
		t.Fatal("the app name is not escaped")
	}
	if again := b.get("/oauth/admin/apps"); strings.Contains(again.Raw, secret[1]) {
		t.Fatal("the secret is shown more than once")
	}
	var stored []byte
	if err := storetest.Pool(t).QueryRow(t.Context(), `SELECT secret_hash FROM oauth_clients WHERE id = $1`, id[1]).Scan(&stored); err != nil || len(stored) != 32 {
		t.Fatalf("stored secret: %x %v", stored, err)
	}
	// The registration is in the audit log as the admin's, through their console session
	// (docs/console.md, "Audit log").
	var records int
	if err := storetest.Pool(t).QueryRow(t.Context(), `SELECT count(*) FROM activity WHERE workspace_id = $1
		AND entity_type = 'oauth_clients' AND action = 'created' AND changes ->> 'client_id' = $2 AND changes ->> 'name' = 'CRM <sync>'
		AND (changes ->> 'confidential')::boolean AND actor_id = $3 AND via = 'console' AND credential LIKE 'console:%'`,
		e.WorkspaceID, id[1], e.Admin.ID).Scan(&records); err != nil || records != 1 {
		t.Fatalf("the registration's audit record: %d %v", records, err)
	}

	t.Run("bad input is shown, not stored", func(t *testing.T) {
		b.get("/oauth/admin/apps")
		f := b.hidden()
		f.Set("name", "Bad")
		f.Set("redirect_uris", "http://crm.example.com/cb")
		if r := b.postForm("/oauth/admin/apps", f); r.Status != 400 || !strings.Contains(r.Raw, `id="admin-error"`) {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	})
	t.Run("without CSRF nothing happens", func(t *testing.T) {
		r := b.postForm("/oauth/admin/apps", url.Values{"name": {"x"}, "redirect_uris": {redirect}})
		if r.Status != http.StatusForbidden {
			t.Fatalf("%d", r.Status)
		}
	})
	t.Run("members are refused", func(t *testing.T) {
		mb := e.browser()
		mb.get("/oauth/admin/apps")
		mb.last.Status = http.StatusFound
		if r := mb.login(e.Member); r.Status != http.StatusForbidden {
			t.Fatalf("%d", r.Status)
		}
	})
	t.Run("rotate replaces the secret; disable kills the tokens", func(t *testing.T) {
		mb := e.browser()
		code, verifier := e.flow(mb, e.Member, id[1], redirect, "deals:read", nil)
		tok := e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
			"redirect_uri": {redirect}}, "Authorization", basic(id[1], secret[1]))
		if tok.Status != 200 {
			t.Fatalf("exchange: %s", tok.Raw)
		}
		b.get("/oauth/admin/apps")
		f := b.hidden()
		f.Set("client_id", id[1])
		r := b.postForm("/oauth/admin/apps/rotate", f)
		newSecret := regexp.MustCompile(`id="new-client-secret">([^<]+)<`).FindStringSubmatch(r.Raw)
		if newSecret == nil || newSecret[1] == secret[1] {
			t.Fatalf("rotate: %d %s", r.Status, r.Raw)
		}
		ref := e.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.str("refresh_token")}},
			"Authorization", basic(id[1], secret[1]))
		wantOAuthError(t, ref, 401, "invalid_client")
		ref = e.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.str("refresh_token")}},
			"Authorization", basic(id[1], newSecret[1]))
		if ref.Status != 200 {
			t.Fatalf("refresh with the new secret: %s", ref.Raw)
		}
		if me := e.me(ref.str("access_token")); me.Status != 200 {
			t.Fatal(me.Raw)
		}
		if r := b.postForm("/oauth/admin/apps/disable", f); r.Status != 200 || !strings.Contains(r.Raw, "disabled") {
			t.Fatalf("disable: %d %s", r.Status, r.Raw)
		}
		waitStatus(t, e, ref.str("access_token"), 401)
		_, challenge := pkce()
		if r := mb.get(e.authURL(id[1], redirect, challenge, "deals:read", "s")); r.Status != 400 {
			t.Fatalf("a disabled app must not start an authorization: %d", r.Status)
		}
	})
}

// TestConnectedApps: a member sees what they authorised and revokes it at once.
func TestConnectedApps(t *testing.T) {
	e := newEnv(t)
	redirect := "https://app.example.com/cb"
	client := e.register(redirect)
	b := e.browser()
	code, verifier := e.flow(b, e.Member, client, redirect, "deals:read people:read", nil)
	tk := e.exchange(client, code, verifier, redirect)
	if me := e.me(tk.Access); me.Status != 200 {
		t.Fatal(me.Raw)
	}
	page := b.get("/oauth/apps")
	if page.Status != 200 || !strings.Contains(page.Raw, "Test App") || !strings.Contains(page.Raw, "<code>people:read</code>") ||
		!strings.Contains(page.Raw, "(unverified)") {
		t.Fatalf("connected apps: %d %s", page.Status, page.Raw)
	}
	// The permissions are in the consent page's words, grouped by family: each scope's code
	// follows the line that says what it reaches, never alone.
	text := visibleText(page.Raw)
	for _, want := range []string{"CRM Read deals and people", "See deals and crm files deals:read", "See people people:read"} {
		if !strings.Contains(text, want) {
			t.Errorf("connected apps page lacks %q: %s", want, text)
		}
	}
	if strings.Contains(page.Raw, "<td><code>") || strings.Contains(page.Raw, "</code> <code>") {
		t.Errorf("a scope code stands alone on the connected apps page: %s", page.Raw)
	}
	// Another member sees nothing of it.
	ob := e.browser()
	ob.get("/oauth/apps")
	ob.last.Status = http.StatusFound
	if r := ob.login(e.Admin); !strings.Contains(r.Raw, `id="none"`) {
		t.Fatalf("another member's page: %s", r.Raw)
	}
	if r := b.postForm("/oauth/apps/revoke", url.Values{"client_id": {client}}); r.Status != http.StatusForbidden {
		t.Fatalf("revoke without CSRF: %d", r.Status)
	}
	b.get("/oauth/apps")
	form := b.hidden()
	form.Set("client_id", client)
	r := b.postForm("/oauth/apps/revoke", form)
	if r.Status != 200 || !strings.Contains(r.Raw, `id="notice"`) || strings.Contains(r.Raw, "Test App") {
		t.Fatalf("revoke: %d %s", r.Status, r.Raw)
	}
	waitStatus(t, e, tk.Access, 401)
	wantOAuthError(t, e.refresh(client, tk.Refresh), 400, "invalid_grant")
	// The consent is forgotten: the app must ask again.
	_, challenge := pkce()
	if r := b.get(e.authURL(client, redirect, challenge, "deals:read", "s")); r.Status != 200 || !strings.Contains(r.Raw, `id="consent"`) {
		t.Fatalf("after revoking, consent is asked again: %d", r.Status)
	}
}

// visibleText is a page's text as read: tags dropped, runs of white space made one space.
func visibleText(html string) string {
	return strings.Join(strings.Fields(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(html, " ")), " ")
}

// TestAdminAppsPageInConsole: the registered-apps page carries the console's navigation and
// stylesheet, its table rows label their cells (so they stack on a narrow screen), the
// Confidential checkbox sits inside its label, and a refused registration keeps every
// typed field.
func TestAdminAppsPageInConsole(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.get("/oauth/admin/apps")
	b.last.Status = http.StatusFound
	page := b.login(e.Admin)
	for _, want := range []string{`<nav aria-label="Console">`, `<a href="/console/members">Members</a>`,
		`<a href="/console/apps" aria-current="page">Apps</a>`, `href="/console/static/console.css"`,
		`<label for="confidential" class="check"><input type="checkbox" id="confidential" name="confidential" value="1">`} {
		if !strings.Contains(page.Raw, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	f := b.hidden()
	f.Set("name", "Typed <name>")
	f.Set("redirect_uris", "http://crm.example.com/cb https://ok.example/cb")
	f.Set("logo_uri", "https://ok.example/logo.png")
	f.Set("client_uri", "https://ok.example")
	f.Set("confidential", "1")
	r := b.postForm("/oauth/admin/apps", f)
	for _, want := range []string{`id="admin-error"`, `id="name" name="name" required maxlength="100" value="Typed &lt;name&gt;"`,
		`value="http://crm.example.com/cb https://ok.example/cb"`, `value="https://ok.example/logo.png"`,
		`id="client_uri" name="client_uri" value="https://ok.example"`, `name="confidential" value="1" checked`} {
		if !strings.Contains(r.Raw, want) {
			t.Errorf("the refused form lacks %s", want)
		}
	}
	if r.Status != 400 || t.Failed() {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	f = b.hidden()
	f.Set("name", "Listed")
	f.Set("redirect_uris", "https://ok.example/cb")
	if r := b.postForm("/oauth/admin/apps", f); r.Status != 200 || !strings.Contains(r.Raw, `<td data-label="Client id">`) ||
		strings.Contains(r.Raw, `value="https://ok.example/cb"`) {
		t.Fatalf("listed app: %d %s", r.Status, r.Raw)
	}
}
