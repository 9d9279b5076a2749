package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
)

// fromHeader makes the provider take the client address from X-Test-IP, so one test can
// sign in from many addresses.
func fromHeader(c *oauth.Config) {
	c.ClientIP = func(r *http.Request) netip.Addr {
		a, _ := netip.ParseAddr(r.Header.Get("X-Test-IP"))
		return a
	}
}

// signIn posts the login form from a fresh browser at address ip.
func (e *env) signIn(ip, email, password string) response {
	e.t.Helper()
	b := e.browser()
	b.get("/oauth/login")
	form := b.hidden()
	form.Set("email", email)
	form.Set("password", password)
	req, _ := http.NewRequest("POST", e.srv.URL+"/oauth/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Test-IP", ip)
	res, err := b.c.Do(req)
	return decode(e.t, res, err)
}

// TestLoginThrottled: sign-ins are throttled per client IP, with a 429 and a message on
// the login page.
func TestLoginThrottled(t *testing.T) {
	e := newEnv(t, fromHeader)
	throttled := func(t *testing.T, r response) {
		t.Helper()
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" ||
			!strings.Contains(r.Raw, `id="login-error">Too many failed sign-ins`) || !strings.Contains(r.Raw, `id="login"`) {
			t.Fatalf("want 429 with the message on the login page, got %d %s", r.Status, r.Raw)
		}
	}
	t.Run("per client IP", func(t *testing.T) {
		for i := range ratelimit.DefaultSignInBudgets().PerAddress.Tokens {
			// Known members (cheap test hashes), each once, so no account budget is spent.
			u := e.addUser("member", "active", nil)
			if r := e.signIn("203.0.113.7", u.Email, "wrong password "+fmt.Sprint(i)); r.Status != http.StatusUnauthorized {
				t.Fatalf("attempt %d: %d", i+1, r.Status)
			}
		}
		throttled(t, e.signIn("203.0.113.7", "nobody-else@example.test", "wrong password"))
		// Even the right password waits: the budget is spent before any hash is computed.
		throttled(t, e.signIn("203.0.113.7", e.Member.Email, e.Member.Password))
		if r := e.signIn("203.0.113.8", e.Member.Email, e.Member.Password); r.Status != http.StatusSeeOther {
			t.Fatalf("another address: want 303, got %d %s", r.Status, r.Raw)
		}
	})
}

// TestStrangersCannotLockOut: wrong passwords from one address for an account never stop
// its member signing in from an address that has not failed (OWASP ASVS V2.2.1); the
// address that failed is the one slowed down.
func TestStrangersCannotLockOut(t *testing.T) {
	e := newEnv(t, fromHeader)
	victim := e.addUser("member", "active", nil)
	var refused bool
	for i := range 15 {
		switch r := e.signIn("198.51.100.66", victim.Email, fmt.Sprint("wrong password ", i)); r.Status {
		case http.StatusUnauthorized:
		case http.StatusTooManyRequests:
			refused = true
		default:
			t.Fatalf("attempt %d: %d", i+1, r.Status)
		}
	}
	if !refused {
		t.Fatal("15 wrong passwords from one address for one account were never slowed down")
	}
	if r := e.signIn("198.51.100.66", victim.Email, victim.Password); r.Status != http.StatusTooManyRequests {
		t.Fatalf("the address that failed, right password: want 429, got %d", r.Status)
	}
	if r := e.signIn("198.51.100.67", strings.ToUpper(victim.Email), victim.Password); r.Status != http.StatusSeeOther {
		t.Fatalf("an address that has not failed, right password: want 303, got %d %s", r.Status, r.Raw)
	}
}

// TestUnknownAccountFloodBounded: a burst of sign-ins for made-up emails from many
// addresses does not keep the password-hash slots busy (without the bound, a member's
// sign-in waited 3.6 s, then got 429, during a 40-address burst). With one slot and no
// wait for it, every sign-in that wants a hash while another runs is told the service is
// busy; only the few made-up emails the global budget lets through (6 a minute) still
// hash, so at most that many can be, where every one of the burst could before.
func TestUnknownAccountFloodBounded(t *testing.T) {
	e := newEnv(t, fromHeader, func(c *oauth.Config) { c.PasswordChecks = 1; c.PasswordWait = 1 })
	const n, hashed = 40, 6
	flood := e.signInAtOnce(n, func(i int) string { return fmt.Sprintf("made-up-%d-%d@example.test", i, time.Now().UnixNano()) }, "guess")
	var busy int
	for i, r := range flood {
		switch {
		case r.Status == http.StatusUnauthorized:
		case r.Status == http.StatusTooManyRequests && strings.Contains(r.Raw, "Too many people are signing in"):
			busy++
		default:
			t.Fatalf("made-up email %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if busy > hashed {
		t.Fatalf("%d of %d sign-ins for made-up emails found the hash slot taken; at most %d may hash", busy, n, hashed)
	}
}

// TestPasswordChecksBounded: password hashes are computed a bounded number at a time, and
// a sign-in that finds no free slot in time gets 429, so a login flood cannot grow memory
// by 64 MiB per request.
func TestPasswordChecksBounded(t *testing.T) {
	e := newEnv(t, fromHeader, func(c *oauth.Config) { c.PasswordChecks = 1; c.PasswordWait = 1 })
	// A hash at the production cost, so the checks overlap.
	hash, err := oauth.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	email := fmt.Sprintf("costly-%s-%d@example.test", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	if _, err := e.store.AddMember(context.Background(), store.Member{WorkspaceID: e.WorkspaceID, Email: email, Name: "Costly",
		Role: "member", Status: "active", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	const n = 6
	results := e.signInAtOnce(n, func(int) string { return email }, "correct horse battery")
	var ok, busy int
	for _, r := range results {
		switch {
		case r.Status == http.StatusSeeOther:
			ok++
		case r.Status == http.StatusTooManyRequests && strings.Contains(r.Raw, "Too many people are signing in"):
			busy++
		default:
			t.Fatalf("unexpected answer %d %s", r.Status, r.Raw)
		}
	}
	if ok == 0 || busy == 0 {
		t.Fatalf("%d signed in, %d told to retry; want both with one check at a time", ok, busy)
	}
}

// signInAtOnce posts n sign-ins at the same time, the i-th for email(i) from address
// 192.0.2.(i+1), each from its own browser that opened the login page first.
func (e *env) signInAtOnce(n int, email func(int) string, password string) []response {
	e.t.Helper()
	browsers, forms := make([]*browser, n), make([]url.Values, n)
	for i := range n {
		browsers[i] = e.browser()
		browsers[i].get("/oauth/login")
		forms[i] = browsers[i].hidden()
		forms[i].Set("email", email(i))
		forms[i].Set("password", password)
	}
	var wg sync.WaitGroup
	results := make([]response, n)
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", e.srv.URL+"/oauth/login", strings.NewReader(forms[i].Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Test-IP", fmt.Sprintf("192.0.2.%d", i+1))
			res, err := browsers[i].c.Do(req)
			results[i] = decode(e.t, res, err)
		})
	}
	wg.Wait()
	return results
}

// TestCrossSiteFormPostsRefused: the pages' forms refuse a POST the browser marks as
// cross-site (Sec-Fetch-Site, or an Origin that is not the provider's), even with a valid
// CSRF token and session cookie, so a form token that leaked is not enough; same-origin
// posts and clients that send neither header (not browsers) pass. The token, revoke and
// register endpoints are for other origins' clients (CORS *) and are not refused.
func TestCrossSiteFormPostsRefused(t *testing.T) {
	e := newEnv(t)
	u := e.addUser("member", "active", nil)
	post := func(b *browser, path string, form url.Values, headers ...string) response {
		t.Helper()
		req, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := b.c.Do(req)
		return decode(t, res, err)
	}
	for _, c := range []struct {
		name    string
		headers []string
		want    int
	}{
		{"cross-site fetch metadata", []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"another origin", []string{"Origin", "https://attacker.example"}, http.StatusForbidden},
		{"same origin", []string{"Sec-Fetch-Site", "same-origin", "Origin", e.srv.URL}, http.StatusSeeOther},
		{"no browser headers", nil, http.StatusSeeOther},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := e.browser()
			b.get("/oauth/login")
			form := b.hidden()
			form.Set("email", u.Email)
			form.Set("password", u.Password)
			if r := post(b, "/oauth/login", form, c.headers...); r.Status != c.want {
				t.Fatalf("login: %d, want %d: %s", r.Status, c.want, r.Raw)
			}
		})
	}
	b := e.browser()
	r := post(b, "/oauth/register", url.Values{}, "Origin", "https://assistant.example", "Sec-Fetch-Site", "cross-site")
	if r.Status == http.StatusForbidden {
		t.Fatalf("register refused a cross-origin client: %s", r.Raw)
	}
}

// TestKnownDeviceNotQueued: 120 wrong passwords from 30 addresses, each inside its
// budgets, keep the shared password-hash slot busy; a member signing in from a browser
// that signed in as them before (its device cookie) is not queued behind them and signs
// in at once, while the strangers are told the service is busy.
func TestKnownDeviceNotQueued(t *testing.T) {
	const wait = 500 * time.Millisecond
	e := newEnv(t, fromHeader, func(c *oauth.Config) { c.PasswordChecks = 1; c.PasswordWait = wait })
	// Production-cost hashes, so the strangers' checks overlap.
	hash, err := oauth.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	add := func(local string) string {
		email := fmt.Sprintf("%s-%d@example.test", local, time.Now().UnixNano())
		if _, err := e.store.AddMember(context.Background(), store.Member{WorkspaceID: e.WorkspaceID, Email: email, Name: local,
			Role: "member", Status: "active", PasswordHash: hash}); err != nil {
			t.Fatal(err)
		}
		return email
	}
	member := add("member")
	targets := make([]string, 30)
	for i := range targets {
		targets[i] = add(fmt.Sprint("target-", i))
	}
	// The member's browser signs in once, then out.
	b := e.browser()
	b.get("/oauth/login")
	form := b.hidden()
	form.Set("email", member)
	form.Set("password", "correct horse battery")
	post := func(ip string) (response, time.Duration) {
		req, _ := http.NewRequest("POST", e.srv.URL+"/oauth/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Test-IP", ip)
		start := time.Now()
		res, err := b.c.Do(req)
		return decode(t, res, err), time.Since(start)
	}
	if r, _ := post("198.51.100.1"); r.Status != http.StatusSeeOther {
		t.Fatalf("first sign-in: %d %s", r.Status, r.Raw)
	}
	b.get("/oauth/apps")
	out := b.hidden()
	if r := b.postForm("/oauth/logout", out); r.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", r.Status)
	}
	b.get("/oauth/login")
	form.Set("csrf", b.hidden().Get("csrf"))

	// 30 addresses, 4 wrong passwords each (inside the 20 per address and the 5 per
	// account and address), all at once.
	strangers := make([]*browser, 120)
	forms := make([]url.Values, 120)
	for i := range strangers {
		strangers[i] = e.browser()
		strangers[i].get("/oauth/login")
		forms[i] = strangers[i].hidden()
		forms[i].Set("email", targets[i%30])
		forms[i].Set("password", fmt.Sprint("wrong password ", i))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for i := range strangers {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", e.srv.URL+"/oauth/login", strings.NewReader(forms[i].Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Test-IP", fmt.Sprintf("203.0.113.%d", i%30+1))
			res, err := strangers[i].c.Do(req)
			r := decode(t, res, err)
			mu.Lock()
			statuses[r.Status]++
			mu.Unlock()
		})
	}
	time.Sleep(wait / 5) // the strangers hold the slot and queue for it
	r, took := post("198.51.100.1")
	wg.Wait()
	if r.Status != http.StatusSeeOther {
		t.Fatalf("the member from their known browser during the flood: %d after %v %s", r.Status, took, r.Raw)
	}
	if statuses[http.StatusTooManyRequests] == 0 {
		t.Fatalf("no stranger found the slot busy (%v): the flood did not contend, so the test proves nothing", statuses)
	}
	t.Logf("member signed in in %v; strangers: %v", took, statuses)
}
