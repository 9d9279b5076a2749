package console_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/internal/smtptest"
	"github.com/agencyos/workspaced/store"
)

// TestResendInvitation drives Chromium: an admin re-sends a lost invitation from the
// Members page, confirms it, and gets a new link that a real SMTP server receives in a
// mail naming the workspace and the admin; the new link opens the page that sets the
// password. Inviting the address again re-sends as well. A member who has joined is offered
// no re-send, and the form refuses one.
func TestResendInvitation(t *testing.T) {
	mailbox := smtptest.Start(t)
	e := newEnv(t, withSMTP(t, mailbox))
	email := uniqueEmail("lost.invitation")
	first, err := e.ops.Invite(t.Context(), admin.Invite{WorkspaceID: e.WorkspaceID, Email: email, Name: "Lost Invitation",
		By: store.By{UserID: e.Admin.ID, Via: store.ViaConsole}})
	if err != nil || !first.Emailed {
		t.Fatalf("invite: %+v %v", first, err)
	}
	if msg := mailbox.Wait(t, email, 10*time.Second); msg.Msg.Header.Get("Subject") != "Test admin invites you to Acme "+t.Name()+" on Acme Console" ||
		!strings.Contains(msg.Body, "Test admin ("+e.Admin.Email+`) invited you to join the workspace "Acme `+t.Name()+`" on Acme Console`) ||
		!strings.Contains(msg.Body, first.Link) {
		t.Fatalf("the invitation does not name the workspace and the admin:\nSubject: %s\n%s", msg.Msg.Header.Get("Subject"), msg.Body)
	}

	ctx := newBrowser(t)
	browserSignIn(t, ctx, e.srv.URL, e.Admin)
	button := "#resend-" + first.UserID
	run(t, ctx, "re-send", chromedp.Navigate(e.srv.URL+"/console/members"), chromedp.WaitVisible(chromedp.CSS(button)),
		chromedp.Click(chromedp.CSS(button)), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if n := len(mailbox.To(email)); n != 1 {
		t.Fatalf("%d mails before the re-send was confirmed, want 1", n)
	}
	run(t, ctx, "confirm", chromedp.Click(chromedp.CSS("#confirm-button")), chromedp.WaitVisible(chromedp.CSS("#invite-link")))
	link, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#invite-link")))
	if err != nil {
		t.Fatal(err)
	}
	notice, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(notice, "Invitation emailed again") {
		t.Fatalf("no notice: %v %.300s", err, notice)
	}
	got := mailbox.To(email)
	if len(got) != 2 || link == first.Link || !strings.HasPrefix(link, e.issuer+"/console/invite?token=wsl_") || !strings.Contains(got[1].Body, link) {
		t.Fatalf("re-sent: %d mails, link %q", len(got), link)
	}
	run(t, ctx, "open the new link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#set-password")))

	// Inviting the address again re-sends too, and says so.
	a := e.agent().signIn(e.Admin)
	if res := a.form("/console/members", "/console/members/invite", url.Values{"email": {email}, "role": {"member"}}); res.Status != 200 ||
		!strings.Contains(res.Body, "They were already invited: the invitation was emailed again") || len(mailbox.To(email)) != 3 {
		t.Fatalf("invite again: %d, %d mails: %.300s", res.Status, len(mailbox.To(email)), res.Body)
	}

	// A member who has joined has no re-send button, and a forged form is refused.
	if strings.Contains(a.get("/console/members").Body, `id="resend-`+e.Member.ID+`"`) {
		t.Fatal("a joined member is offered a re-send")
	}
	if res := a.form("/console/members", "/console/members/resend", url.Values{"confirm": {"yes"}, "user_id": {e.Member.ID}}); res.Status != 400 ||
		!strings.Contains(res.Body, "has already joined") {
		t.Fatalf("re-send to a joined member: %d %.300s", res.Status, res.Body)
	}
	// A reset link for the invited member points to re-sending.
	if res := a.form("/console/members", "/console/members/reset-link", url.Values{"user_id": {first.UserID}}); res.Status != 400 ||
		!strings.Contains(res.Body, "re-send the invitation") {
		t.Fatalf("reset link for an invited member: %d %.300s", res.Status, res.Body)
	}
	if len(mailbox.To(email)) != 3 || len(mailbox.To(e.Member.Email)) != 0 {
		t.Fatal("a refused form sent mail")
	}
}
