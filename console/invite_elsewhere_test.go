package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/internal/smtptest"
	"github.com/agencyos/workspaced/store"
)

var noticeRE = regexp.MustCompile(`id="notice"[^>]*>([^<]*)<`)

// TestInviteAccountElsewhere: inviting an address that has an account in another
// workspace answers exactly as inviting an unknown one (no admin learns who has an
// account elsewhere): 200, the same notice, a link, an invited row. The person is told by
// mail, without a link, and their own account is untouched; the invitation's link cannot
// make a second account.
func TestInviteAccountElsewhere(t *testing.T) {
	mailbox := smtptest.Start(t)
	e := newEnv(t, withSMTP(t, mailbox))
	otherWS, err := e.store.CreateWorkspace(t.Context(), "Elsewhere "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := e.addUser(otherWS, "member", "active", nil)
	unknown := uniqueEmail("unknown")
	a := e.agent().signIn(e.Admin)

	invite := func(email string) page {
		t.Helper()
		return a.form("/console/members", "/console/members/invite", url.Values{"email": {email}, "role": {"member"}})
	}
	shape := func(p page, email string) string {
		t.Helper()
		n := noticeRE.FindStringSubmatch(p.Body)
		if n == nil {
			t.Fatalf("no notice: %d %.600s", p.Status, p.Body)
		}
		row := regexp.MustCompile(`(?s)<tr id="member-[^"]+">\s*<td data-label="Member"><span class="email">` + regexp.QuoteMeta(email) +
			`</span>.*?<td data-label="Status" class="status">([a-z]+)</td>`).FindStringSubmatch(p.Body)
		status := "no row"
		if row != nil {
			status = row[1]
		}
		return strings.Join([]string{http.StatusText(p.Status), n[1], status,
			strings.Join(regexp.MustCompile(`id="invite-link" value="[^"]*/console/invite\?token=wsl_`).FindAllString(p.Body, -1), "")}, " | ")
	}
	wantShape := shape(invite(unknown), unknown)
	if !strings.HasPrefix(wantShape, "OK | ") || !strings.Contains(wantShape, "| invited |") {
		t.Fatalf("invitation of an unknown address: %s", wantShape)
	}
	elsewherePage := invite(elsewhere.Email)
	if got := shape(elsewherePage, elsewhere.Email); got != wantShape {
		t.Fatalf("invitation of an address with an account elsewhere answers\n%s\nwhere an unknown one answers\n%s", got, wantShape)
	}
	// An address of this workspace's own members is refused as before: the admin sees them.
	if res := invite(e.Member.Email); res.Status != http.StatusBadRequest {
		t.Fatalf("inviting a member of this workspace: %d", res.Status)
	}

	msg := mailbox.Wait(t, elsewhere.Email, 10*time.Second)
	if strings.Contains(msg.Body, "wsl_") || !strings.Contains(msg.Body, "already has an account") ||
		!strings.Contains(msg.Msg.Header.Get("Subject"), "Acme Console") {
		t.Fatalf("mail to the address with an account:\nSubject: %s\n%s", msg.Msg.Header.Get("Subject"), msg.Body)
	}
	if msg := mailbox.Wait(t, unknown, 10*time.Second); !strings.Contains(msg.Body, "/console/invite?token=wsl_") {
		t.Fatalf("mail to the unknown address has no link:\n%s", msg.Body)
	}
	// The invitation's link (the admin's copy) cannot make a second account for the address.
	m := regexp.MustCompile(`id="invite-link" value="[^"]*(/console/invite\?token=wsl_[^"]+)"`).FindStringSubmatch(elsewherePage.Body)
	if m == nil {
		t.Fatal("no link on the page")
	}
	path := strings.ReplaceAll(m[1], "&amp;", "&")
	c := e.agent()
	open := c.get(path)
	token, _ := url.Parse(path)
	res := c.post("/console/invite", url.Values{"csrf": {csrf(t, open)}, "token": {token.Query().Get("token")},
		"password": {"a password of mine"}, "confirm": {"a password of mine"}})
	if res.Status == http.StatusSeeOther || !strings.Contains(res.Body, "already has an account") {
		t.Fatalf("the link of an address with an account elsewhere: %d %q %.600s", res.Status, res.Location, res.Body)
	}
	// Their own account still signs in, in its own workspace, with its own password.
	e.agent().signIn(elsewhere)
	if n := e.count(`SELECT count(*) FROM users WHERE lower(email) = lower($1) AND status <> 'invited'`, elsewhere.Email); n != 1 {
		t.Fatalf("%d accounts for the address", n)
	}
	if n := e.count(`SELECT count(*) FROM users WHERE id = $1 AND workspace_id = $2 AND status = 'active'`, elsewhere.ID, otherWS); n != 1 {
		t.Fatal("the account elsewhere changed")
	}
}
