package console_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestConfirmBeforeActing: revoking an agent key, blocking an app, revoking one's apps,
// suspending a member, re-sending an invitation and rotating a webhook secret each answer their first submit with a
// confirmation page (a form that works without script, carrying the same fields and
// confirm=yes) and change nothing; the confirmed submit acts.
func TestConfirmBeforeActing(t *testing.T) {
	e := newEnv(t)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(rc.Close)
	key, err := e.ops.CreateAgent(t.Context(), e.WorkspaceID, "Scout", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	clientID := e.registerClient("Helper App")
	member := e.agent().signIn(e.Member)
	member.authorize(clientID, "companies:read")
	ownID := e.registerClient("Own Notes App")
	member.authorize(ownID, "companies:read")
	admin := e.agent().signIn(e.Admin)
	if p := admin.form("/console/webhooks", "/console/webhooks/create", url.Values{"url": {rc.URL + "/hook"}}); p.Status != 200 {
		t.Fatalf("create endpoint: %d", p.Status)
	}
	var hookID, secret string
	if err := storetest.Pool(t).QueryRow(t.Context(), `SELECT w.id::text, s.secret FROM webhook_endpoints w
		JOIN webhook_secrets s ON s.endpoint_id = w.id WHERE w.workspace_id = $1`, e.WorkspaceID).Scan(&hookID, &secret); err != nil {
		t.Fatal(err)
	}
	invited, err := e.ops.Invite(t.Context(), inviteOf(e))
	if err != nil {
		t.Fatal(err)
	}
	records := func() int { return e.count(`SELECT count(*) FROM activity WHERE workspace_id = $1`, e.WorkspaceID) }
	for _, c := range []struct {
		who          *agent
		from, path   string
		form         url.Values
		acted        func() bool
		says, button string
	}{
		{member, "/console/account", "/console/account/revoke", url.Values{"client_id": {ownID}},
			func() bool { return !strings.Contains(member.get("/console/account").Body, "Own Notes App") },
			"Access revoked", "Revoke access"},
		{admin, "/console/agents", "/console/agents/revoke", url.Values{"key_id": {key.KeyID}},
			func() bool {
				return e.count(`SELECT count(*) FROM agent_keys WHERE id = $1 AND revoked_at IS NOT NULL`, key.KeyID) == 1
			}, "no longer works", "Revoke the key"},
		{admin, "/console/apps", "/console/apps/block", url.Values{"client_id": {clientID}},
			func() bool { return strings.Contains(admin.get("/console/apps").Body, "blocked <form") }, "Block", "Block the app"},
		{admin, "/console/members", "/console/members/suspend", url.Values{"user_id": {e.Member.ID}},
			func() bool {
				return e.count(`SELECT count(*) FROM users WHERE id = $1 AND status = 'suspended'`, e.Member.ID) == 1
			},
			"sessions and tokens", "Suspend the member"},
		{admin, "/console/members", "/console/members/resend", url.Values{"user_id": {invited.UserID}},
			func() bool {
				return e.count(`SELECT count(*) FROM member_links WHERE user_id = $1 AND purpose = 'invite'`, invited.UserID) == 2
			},
			"New invitation link made", "Re-send the invitation"},
		{admin, "/console/webhooks", "/console/webhooks/rotate", url.Values{"id": {hookID}},
			func() bool { _, _, _, now := e.endpointState(hookID); return now != secret }, "24 hours", "Rotate the secret"},
	} {
		before := records()
		p := c.who.form(c.from, c.path, c.form)
		if p.Status != 200 || !strings.Contains(p.Body, `id="confirm"`) || !strings.Contains(p.Body, `action="`+c.path+`"`) ||
			!strings.Contains(p.Body, `name="confirm" value="yes"`) || !strings.Contains(p.Body, c.button) ||
			!strings.Contains(p.Body, `href="`+c.from+`"`) {
			t.Fatalf("%s: no confirmation page: %d %.2000s", c.path, p.Status, p.Body)
		}
		for k, v := range c.form {
			if !regexp.MustCompile(`<input type="hidden" name="` + k + `" value="` + regexp.QuoteMeta(v[0]) + `">`).MatchString(p.Body) {
				t.Fatalf("%s: the confirmation does not carry %s", c.path, k)
			}
		}
		if c.acted() || records() != before {
			t.Fatalf("%s acted on the first submit", c.path)
		}
		// The confirmation page's own form, as the browser sends it.
		form := url.Values{"confirm": {"yes"}, "csrf": {csrf(t, p)}}
		for k, v := range c.form {
			form[k] = v
		}
		p = c.who.post(c.path, form)
		if p.Status != 200 || !strings.Contains(p.Body, c.says) || !c.acted() || records() == before {
			t.Fatalf("%s: the confirmed submit did not act: %d %.800s", c.path, p.Status, p.Body)
		}
	}
}
