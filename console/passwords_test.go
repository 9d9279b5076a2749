package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/internal/smtptest"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
)

// withSMTP configures the admin operations to send through srv, as SMTP_URL does.
func withSMTP(t testing.TB, srv *smtptest.Server) func(*admin.Config) {
	return func(c *admin.Config) {
		m, err := admin.NewSMTPMailer(srv.URL("accounts@acme.test"), "")
		if err != nil {
			t.Fatal(err)
		}
		c.Mailer = m
	}
}

var resetLinkRE = regexp.MustCompile(`http://\S+/console/reset\?token=wsl_[A-Za-z0-9_=-]+`)

// TestForgotPassword drives Chromium from the sign-in page's "Forgot password?" to the
// email the test's SMTP server receives, the reset page, and a sign-in with the new
// password; the old password and the used link stop working.
func TestForgotPassword(t *testing.T) {
	mailbox := smtptest.Start(t)
	e := newEnv(t, withSMTP(t, mailbox))
	ctx := newBrowser(t)
	run(t, ctx, "forgot",
		chromedp.Navigate(e.srv.URL+"/console"),
		chromedp.WaitVisible(chromedp.CSS("#login")),
		chromedp.Click(chromedp.CSS("#forgot")),
		chromedp.WaitVisible(chromedp.CSS("#forgot")),
		chromedp.SendKeys(chromedp.CSS("#email"), e.Member.Email),
		chromedp.Click(chromedp.CSS("#send-reset")),
		chromedp.WaitVisible(chromedp.CSS("#notice")),
	)
	msg := mailbox.Wait(t, e.Member.Email, 10*time.Second)
	if msg.From != "accounts@acme.test" || !strings.Contains(msg.Msg.Header.Get("Subject"), "Acme Console") {
		t.Fatalf("email from %q subject %q", msg.From, msg.Msg.Header.Get("Subject"))
	}
	link := resetLinkRE.FindString(msg.Body)
	if link == "" {
		t.Fatalf("no reset link in the email:\n%s", msg.Body)
	}
	if n := e.count(`SELECT count(*) FROM member_links WHERE user_id = $1 AND purpose = 'reset'
		AND expires_at BETWEEN now() + interval '59 minutes' AND now() + interval '1 hour'`, e.Member.ID); n != 1 {
		t.Fatal("the reset link is not stored for an hour")
	}
	fresh := user{ID: e.Member.ID, Email: e.Member.Email, Password: "a brand new password"}
	run(t, ctx, "reset",
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS("#set-password")),
		chromedp.SendKeys(chromedp.CSS("#password"), fresh.Password),
		chromedp.SendKeys(chromedp.CSS("#confirm"), fresh.Password),
		chromedp.Click(chromedp.CSS("#save-password")),
		chromedp.WaitVisible(chromedp.CSS("#whoami")),
		chromedp.Click(chromedp.CSS(".signout button")),
		chromedp.WaitVisible(chromedp.CSS("#login")),
	)
	browserSignIn(t, ctx, e.srv.URL, fresh)
	a := e.agent()
	login := a.get("/oauth/login?return=/console")
	if res := a.post("/oauth/login", url.Values{"csrf": {csrf(t, login)}, "return": {"/console"}, "email": {e.Member.Email},
		"password": {e.Member.Password}}); res.Status != http.StatusUnauthorized {
		t.Fatalf("old password after reset: %d", res.Status)
	}
	if res := a.get(strings.TrimPrefix(link, e.issuer)); res.Status != http.StatusNotFound {
		t.Fatalf("used reset link: %d", res.Status)
	}
}

// TestForgotSameAnswerAndThrottled: a known and an unknown address get the same page; only
// the known one is emailed; the sign-in budget of an address throttles both alike.
func TestForgotSameAnswerAndThrottled(t *testing.T) {
	mailbox := smtptest.Start(t)
	e := newEnv(t, withSMTP(t, mailbox))
	ask := func(email string) page {
		a := e.agent()
		return a.form("/console/forgot", "/console/forgot", url.Values{"email": {email}})
	}
	known, unknown := ask(e.Admin.Email), ask("nobody@example.test")
	strip := func(p page) string { return csrfRE.ReplaceAllString(p.Body, "") }
	if known.Status != 200 || unknown.Status != 200 || strip(known) != strip(unknown) {
		t.Fatalf("answers differ: %d vs %d\n%s\n---\n%s", known.Status, unknown.Status, strip(known), strip(unknown))
	}
	mailbox.Wait(t, e.Admin.Email, 10*time.Second)
	e.ops.Wait(t.Context())
	if n := mailbox.Count(); n != 1 {
		t.Fatalf("%d emails sent, want only the known address's", n)
	}
	for _, who := range []string{"nobody@example.test", e.Admin.Email} {
		var last page
		for i := 0; i < 50; i++ {
			if last = ask(who); last.Status == http.StatusTooManyRequests {
				break
			}
		}
		if last.Status != http.StatusTooManyRequests {
			t.Fatalf("%s: never throttled", who)
		}
	}
}

// TestForgotThrottledPerAccount: many addresses asking for one account's reset link get the
// same answer as for an address no member has, and the account's inbox receives at most
// the per-account budget (ratelimit.DefaultSignInBudgets().ResetMails), whatever the number
// of addresses.
func TestForgotThrottledPerAccount(t *testing.T) {
	mailbox := smtptest.Start(t)
	e := newEnv(t, withSMTP(t, mailbox))
	ask := func(email, ip string) page {
		a := e.agent()
		open := a.get("/console/forgot")
		return a.post("/console/forgot", url.Values{"csrf": {csrf(t, open)}, "email": {email}}, clientIPHeader, ip)
	}
	strip := func(p page) string { return csrfRE.ReplaceAllString(p.Body, "") }
	budget := int(ratelimit.DefaultSignInBudgets().ResetMails.Tokens)
	want := strip(ask("nobody@example.test", "198.51.100.200"))
	for i := range budget + 4 {
		for _, who := range []string{e.Member.Email, strings.ToUpper(e.Member.Email), "nobody@example.test"} {
			got := ask(who, fmt.Sprintf("192.0.2.%d", 10*i+len(who)%7+1))
			if got.Status != http.StatusOK || strip(got) != want {
				t.Fatalf("request %d for %s: %d, not the one answer\n%s\n---\n%s", i+1, who, got.Status, strip(got), want)
			}
		}
	}
	e.ops.Wait(t.Context())
	if n := mailbox.Count(); n != budget {
		t.Fatalf("%d reset emails reached the inbox from %d addresses, want the account's budget %d", n, 2*(budget+4), budget)
	}
}

// TestAdminResetLink: an admin makes a reset link for an active member; members cannot;
// another workspace's member is 404; an invited member gets none.
func TestAdminResetLink(t *testing.T) {
	e := newEnv(t)
	a := e.agent().signIn(e.Admin)
	res := a.form("/console/members", "/console/members/reset-link", url.Values{"user_id": {e.Member.ID}})
	m := regexp.MustCompile(`id="invite-link" value="([^"]+)"`).FindStringSubmatch(res.Body)
	if res.Status != 200 || m == nil || !strings.Contains(m[1], "/console/reset?token=wsl_") || !strings.Contains(res.Body, "Password reset link") {
		t.Fatalf("reset link: %d %.400s", res.Status, res.Body)
	}
	link := strings.TrimPrefix(strings.ReplaceAll(m[1], "&amp;", "&"), e.issuer)
	// The member's open session ends with the new password.
	old := e.agent().signIn(e.Member)
	b := e.agent()
	open := b.get(link)
	if res := b.post("/console/reset", url.Values{"csrf": {csrf(t, open)}, "token": {strings.TrimPrefix(link, "/console/reset?token=")},
		"password": {"reset by admin"}, "confirm": {"reset by admin"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("reset: %d %.300s", res.Status, res.Body)
	}
	if res := old.get("/console"); res.Status != http.StatusSeeOther {
		t.Fatalf("a session from before the reset still works: %d", res.Status)
	}
	e.agent().signIn(user{Email: e.Member.Email, Password: "reset by admin"})

	other, err := e.store.CreateWorkspace(t.Context(), "Other "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	stranger := e.addUser(other, "member", "active", nil)
	if res := a.form("/console/members", "/console/members/reset-link", url.Values{"user_id": {stranger.ID}}); res.Status != http.StatusNotFound {
		t.Fatalf("another workspace's member: %d", res.Status)
	}
	invited := e.addUser(e.WorkspaceID, "member", "invited", nil)
	// An invited member has no password to reset: the answer says to re-send the invitation.
	if res := a.form("/console/members", "/console/members/reset-link", url.Values{"user_id": {invited.ID}}); res.Status != http.StatusBadRequest ||
		!strings.Contains(res.Body, "has not joined yet") || !strings.Contains(res.Body, "re-send the invitation") {
		t.Fatalf("invited member: %d %.300s", res.Status, res.Body)
	}
	if n := e.count(`SELECT count(*) FROM member_links WHERE user_id = $1`, invited.ID); n != 0 {
		t.Fatalf("a reset link was made for an invited member: %d links", n)
	}
	mem := e.agent().signIn(user{Email: e.Member.Email, Password: "reset by admin"})
	if res := mem.form("/console", "/console/members/reset-link", url.Values{"user_id": {e.Admin.ID}}); res.Status != http.StatusForbidden {
		t.Fatalf("member makes a reset link: %d", res.Status)
	}
	if _, err := e.ops.ResetLink(t.Context(), e.WorkspaceID, "nope", store.By{}); err == nil {
		t.Fatal("malformed id accepted")
	}
}
