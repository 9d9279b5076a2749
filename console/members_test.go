package console_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestInviteAcceptSignIn drives Chromium: an admin invites a colleague from the members
// page and copies the link; the colleague opens it in their own browser, chooses a
// password, lands in the console signed in, signs out, and signs in again with it.
func TestInviteAcceptSignIn(t *testing.T) {
	e := newEnv(t)
	adminCtx := newBrowser(t)
	browserSignIn(t, adminCtx, e.srv.URL, e.Admin)
	email := uniqueEmail("new.colleague")
	run(t, adminCtx, "invite",
		chromedp.Navigate(e.srv.URL+"/console/members"),
		chromedp.WaitVisible(chromedp.CSS("#invite")),
		chromedp.SendKeys(chromedp.CSS("#invite-email"), email),
		chromedp.SendKeys(chromedp.CSS("#invite-name"), "New Colleague"),
		chromedp.SetValue(chromedp.CSS("#invite-grant-crm"), "full"),
		chromedp.Click(chromedp.CSS("#send-invite")),
		chromedp.WaitVisible(chromedp.CSS("#invite-link")),
	)
	link, err := chromedp.Run(adminCtx, chromedp.Value(chromedp.CSS("#invite-link")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, e.issuer+"/console/invite?token=wsl_") {
		t.Fatalf("invitation link %q", link)
	}
	var userID string
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT id::text FROM users WHERE email = $1 AND status = 'invited'
		AND workspace_id = $2 AND grants->>'crm' = 'full'`, email, e.WorkspaceID).Scan(&userID); err != nil {
		t.Fatalf("invited member not stored as invited with crm=full: %v", err)
	}
	// Only the link's hash is stored.
	token := strings.TrimPrefix(link, e.issuer+"/console/invite?token=")
	if n := e.count(`SELECT count(*) FROM member_links WHERE user_id = $1 AND purpose = 'invite' AND token_hash = $2
		AND expires_at BETWEEN now() + interval '7 days' - interval '1 minute' AND now() + interval '7 days'`,
		userID, store.HashSecret(token)); n != 1 {
		t.Fatal("the invitation is not stored by its hash for 7 days")
	}

	colleague := user{ID: userID, Email: email, Password: "a long new password"}
	ctx := newBrowser(t)
	run(t, ctx, "accept",
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS("#set-password")),
		chromedp.SendKeys(chromedp.CSS("#password"), colleague.Password),
		chromedp.SendKeys(chromedp.CSS("#confirm"), colleague.Password),
		chromedp.Click(chromedp.CSS("#save-password")),
		chromedp.WaitVisible(chromedp.CSS("#whoami")),
	)
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#whoami")))
	if err != nil || !strings.Contains(who, email) {
		t.Fatalf("after accepting: whoami %q %v", who, err)
	}
	run(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".signout button")), chromedp.WaitVisible(chromedp.CSS("#login")))
	browserSignIn(t, ctx, e.srv.URL, colleague)

	// The admin's list shows the colleague active, with a sign-in time.
	run(t, adminCtx, "members", chromedp.Navigate(e.srv.URL+"/console/members"), chromedp.WaitVisible(chromedp.CSS("#members")))
	row, err := chromedp.Run(adminCtx, chromedp.Text(chromedp.CSS("#member-"+userID)))
	if err != nil || !strings.Contains(row, "active") || strings.Contains(row, "never") || !strings.Contains(row, "crm=full") {
		t.Fatalf("member row %q %v", row, err)
	}
	// The link worked once.
	if res := e.agent().get("/console/invite?token=" + url.QueryEscape(token)); res.Status != http.StatusNotFound {
		t.Fatalf("used invitation opened again: %d", res.Status)
	}
}

// TestInvitationLinks: a link is refused when used, expired, malformed or for a suspended
// member; a short password keeps the link alive.
func TestInvitationLinks(t *testing.T) {
	e := newEnv(t)
	a := e.agent().signIn(e.Admin)
	invite := func(email string) string {
		t.Helper()
		res := a.form("/console/members", "/console/members/invite", url.Values{"email": {email}, "role": {"member"}})
		m := regexp.MustCompile(`token=(wsl_[A-Za-z0-9_-]+)`).FindStringSubmatch(res.Body)
		if res.Status != 200 || m == nil {
			t.Fatalf("invite %s: %d %.400s", email, res.Status, res.Body)
		}
		return m[1]
	}
	accept := func(token, password string) page {
		t.Helper()
		b := e.agent()
		open := b.get("/console/invite?token=" + token)
		if open.Status != 200 {
			return open
		}
		return b.post("/console/invite", url.Values{"csrf": {csrf(t, open)}, "token": {token}, "password": {password},
			"confirm": {password}})
	}
	tok := invite(uniqueEmail("short"))
	if res := accept(tok, "short"); res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "at least 8") {
		t.Fatalf("short password: %d %.300s", res.Status, res.Body)
	}
	if res := accept(tok, "long enough now"); res.Status != http.StatusSeeOther {
		t.Fatalf("accept after a refused try: %d %.300s", res.Status, res.Body)
	}
	if res := accept(tok, "long enough again"); res.Status != http.StatusNotFound {
		t.Fatalf("second use: %d", res.Status)
	}
	// The use is in the audit log once, as the new member's own change through the console
	// with the link as credential; the refused tries (short password, second use) left none.
	var used []auditRow
	for _, r := range e.auditRows(store.ViaConsole) {
		if r.EntityType == store.EntityMemberLinks && r.Action == "used" {
			used = append(used, r)
		}
	}
	if len(used) != 1 || used[0].ActorID != used[0].EntityID || !regexp.MustCompile(`^link:[0-9a-f]{16}$`).MatchString(used[0].Credential) ||
		!strings.Contains(used[0].Changes, `"purpose": "invite"`) {
		t.Fatalf("audit records of the accepted invitation: %+v", used)
	}
	lateEmail := uniqueEmail("late")
	late := invite(lateEmail)
	e.clock.Advance(7*24*time.Hour + time.Minute)
	if res := accept(late, "long enough now"); res.Status != http.StatusNotFound {
		t.Fatalf("expired link: %d", res.Status)
	}
	e.clock.Advance(-(7*24*time.Hour + time.Minute))
	// One character of the token changed, well inside it: the last of a base64 token also
	// carries padding bits, and was "A" already in one run of four.
	i := len(late) - 8
	altered := late[:i] + map[bool]string{true: "B", false: "A"}[late[i] == 'A'] + late[i+1:]
	if res := accept(altered, "long enough now"); res.Status != http.StatusNotFound {
		t.Fatalf("altered link: %d", res.Status)
	}
	// A member suspended before accepting cannot use the link.
	var id string
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT id::text FROM users WHERE email = $1`, lateEmail).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if res := a.form("/console/members", "/console/members/suspend", url.Values{"confirm": {"yes"}, "user_id": {id}}); res.Status != 200 {
		t.Fatalf("suspend: %d", res.Status)
	}
	if res := accept(late, "long enough now"); res.Status != http.StatusNotFound {
		t.Fatalf("suspended member's link: %d", res.Status)
	}
	// Inviting an address already in use is refused on the page.
	if res := a.form("/console/members", "/console/members/invite", url.Values{"email": {e.Member.Email}}); res.Status < 400 || res.Status >= 500 {
		t.Fatalf("duplicate email: %d", res.Status)
	}
	if res := a.form("/console/members", "/console/members/invite", url.Values{"email": {"not an email"}}); res.Status != http.StatusBadRequest {
		t.Fatalf("bad email: %d", res.Status)
	}
}

// TestMembersAdminOnlyAndIsolated: a member gets 403 on every admin page and form; an
// admin editing another workspace's member id into a form gets 404 and changes nothing;
// an admin cannot change their own role or status.
func TestMembersAdminOnlyAndIsolated(t *testing.T) {
	e := newEnv(t)
	other, err := e.store.CreateWorkspace(context.Background(), "Other "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	stranger := e.addUser(other, "member", "active", nil)
	strangerInvited := e.addUser(other, "member", "invited", nil)

	m := e.agent().signIn(e.Member)
	if res := m.get("/console/members"); res.Status != http.StatusForbidden {
		t.Fatalf("member opens members: %d", res.Status)
	}
	token := csrf(t, m.get("/console"))
	for _, path := range []string{"/console/members/invite", "/console/members/update", "/console/members/suspend", "/console/members/reactivate",
		"/console/members/resend", "/console/members/reset-link"} {
		res := m.post(path, url.Values{"csrf": {token}, "user_id": {e.Admin.ID}, "email": {"x@example.test"}, "role": {"admin"}})
		if res.Status != http.StatusForbidden {
			t.Errorf("member posts %s: %d", path, res.Status)
		}
	}

	a := e.agent().signIn(e.Admin)
	for path, form := range map[string]url.Values{
		"/console/members/update":     {"user_id": {stranger.ID}, "role": {"admin"}, "grant_crm": {"full"}},
		"/console/members/suspend":    {"confirm": {"yes"}, "user_id": {stranger.ID}},
		"/console/members/reactivate": {"user_id": {stranger.ID}},
		"/console/members/resend":     {"confirm": {"yes"}, "user_id": {strangerInvited.ID}},
	} {
		if res := a.form("/console/members", path, form); res.Status != http.StatusNotFound {
			t.Errorf("%s with another workspace's member: %d", path, res.Status)
		}
	}
	if res := a.form("/console/members", "/console/members/update", url.Values{"user_id": {"not-a-uuid\x00"}, "role": {"admin"}}); res.Status != http.StatusNotFound {
		t.Errorf("malformed id: %d", res.Status)
	}
	if n := e.count(`SELECT count(*) FROM users WHERE id = $1 AND role = 'member' AND status = 'active' AND grants = '{}'`, stranger.ID); n != 1 {
		t.Fatal("another workspace's member was changed")
	}
	if n := e.count(`SELECT count(*) FROM member_links WHERE user_id = $1`, strangerInvited.ID); n != 0 {
		t.Fatal("an invitation was re-sent to another workspace's member")
	}
	if res := a.form("/console/members", "/console/members/suspend", url.Values{"confirm": {"yes"}, "user_id": {e.Admin.ID}}); res.Status != http.StatusBadRequest {
		t.Fatalf("admin suspends themselves: %d", res.Status)
	}
	// Role and grants change; the list shows the other workspace's people nowhere.
	res := a.form("/console/members", "/console/members/update", url.Values{"user_id": {e.Member.ID}, "role": {"member"},
		"grant_hr": {"read"}, "grant_crm": {"none"}})
	if res.Status != 200 || strings.Contains(res.Body, stranger.Email) {
		t.Fatalf("update: %d, stranger listed %v", res.Status, strings.Contains(res.Body, stranger.Email))
	}
	if n := e.count(`SELECT count(*) FROM users WHERE id = $1 AND grants = '{"crm": "none", "hr": "read"}'`, e.Member.ID); n != 1 {
		t.Fatal("grants not changed")
	}
	if res := a.form("/console/members", "/console/members/update", url.Values{"user_id": {e.Member.ID}, "grant_hr": {"owner"}}); res.Status != http.StatusBadRequest {
		t.Fatalf("bad grant level: %d", res.Status)
	}
}

// TestSuspendAndReactivate: a suspended member cannot sign in; reactivated, they can.
func TestSuspendAndReactivate(t *testing.T) {
	e := newEnv(t)
	a := e.agent().signIn(e.Admin)
	if res := a.form("/console/members", "/console/members/suspend", url.Values{"confirm": {"yes"}, "user_id": {e.Member.ID}}); res.Status != 200 {
		t.Fatalf("suspend: %d", res.Status)
	}
	b := e.agent()
	login := b.get("/oauth/login?return=/console")
	res := b.post("/oauth/login", url.Values{"csrf": {csrf(t, login)}, "return": {"/console"}, "email": {e.Member.Email},
		"password": {e.Member.Password}})
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("suspended member signs in: %d", res.Status)
	}
	if res := a.form("/console/members", "/console/members/reactivate", url.Values{"user_id": {e.Member.ID}}); res.Status != 200 {
		t.Fatalf("reactivate: %d", res.Status)
	}
	e.agent().signIn(e.Member)
}
