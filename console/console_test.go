package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestConsoleSignIn: the console sends a stranger to the provider's sign-in page, which
// names the service, and back; the page carries the provider's strict CSP.
func TestConsoleSignIn(t *testing.T) {
	e := newEnv(t)
	a := e.agent()
	res := a.get("/console")
	if res.Status != http.StatusSeeOther || res.Location != "/oauth/login?return=%2Fconsole" {
		t.Fatalf("signed out: %d %q, want 303 to the sign-in page returning to /console", res.Status, res.Location)
	}
	login := a.get("/oauth/login?return=/console")
	if !strings.Contains(login.Body, "Sign in to Acme Console") {
		t.Fatalf("the sign-in page does not name the service: %.400s", login.Body)
	}
	a.signIn(e.Admin)
	req, _ := http.NewRequest("GET", e.srv.URL+"/console", nil)
	raw, err := a.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw.Body.Close()
	if csp := raw.Header.Get("Content-Security-Policy"); raw.StatusCode != 200 || !strings.Contains(csp, "default-src 'none'") ||
		strings.Contains(csp, "script-src") || !strings.Contains(csp, "form-action 'self'") {
		t.Fatalf("home: %d, CSP %q", raw.StatusCode, csp)
	}
	home := a.get("/console")
	if !strings.Contains(home.Body, e.Admin.Email) || !strings.Contains(home.Body, `href="/console/members"`) {
		t.Fatalf("home does not show the admin and the members link: %.600s", home.Body)
	}
	// A member sees the console, without the admin sections.
	m := e.agent().signIn(e.Member).get("/console")
	if m.Status != 200 || strings.Contains(m.Body, `href="/console/members"`) {
		t.Fatalf("member home: %d, members link shown: %v", m.Status, strings.Contains(m.Body, "/console/members"))
	}
}

// TestConsoleReturnStaysOnSite: the sign-in page's return parameter accepts the console's
// paths and nothing off the site.
func TestConsoleReturnStaysOnSite(t *testing.T) {
	e := newEnv(t)
	for ret, want := range map[string]string{"/console/members": "/console/members", "/consoles": "/oauth/apps",
		"//evil.example/console": "/oauth/apps", "https://evil.example/console": "/oauth/apps"} {
		a := e.agent()
		login := a.get("/oauth/login?" + url.Values{"return": {ret}}.Encode())
		res := a.post("/oauth/login", url.Values{"csrf": {csrf(t, login)}, "return": {ret}, "email": {e.Admin.Email},
			"password": {e.Admin.Password}})
		if res.Location != want {
			t.Errorf("return %q: redirected to %q, want %q", ret, res.Location, want)
		}
	}
}

// TestConsoleFormsRefused: console forms need this browser's CSRF token and a same-origin
// request; a suspended member's session stops at once.
func TestConsoleFormsRefused(t *testing.T) {
	e := newEnv(t)
	a := e.agent().signIn(e.Admin)
	token := csrf(t, a.get("/console/members"))
	form := url.Values{"confirm": {"yes"}, "user_id": {e.Member.ID}}
	if res := a.post("/console/members/suspend", form); res.Status != http.StatusForbidden {
		t.Fatalf("no CSRF token: %d", res.Status)
	}
	form.Set("csrf", "x"+token)
	if res := a.post("/console/members/suspend", form); res.Status != http.StatusForbidden {
		t.Fatalf("wrong CSRF token: %d", res.Status)
	}
	form.Set("csrf", token)
	if res := a.post("/console/members/suspend", form, "Sec-Fetch-Site", "cross-site"); res.Status != http.StatusForbidden {
		t.Fatalf("cross-site post: %d", res.Status)
	}
	if n := e.count(`SELECT count(*) FROM users WHERE id = $1 AND status = 'active'`, e.Member.ID); n != 1 {
		t.Fatal("a refused form changed the member")
	}
	// The member's open session ends when an admin suspends them.
	m := e.agent().signIn(e.Member)
	if res := a.post("/console/members/suspend", form); res.Status != http.StatusOK {
		t.Fatalf("suspend: %d %.300s", res.Status, res.Body)
	}
	if res := m.get("/console"); res.Status != http.StatusSeeOther {
		t.Fatalf("suspended member's session still opens the console: %d", res.Status)
	}
}
