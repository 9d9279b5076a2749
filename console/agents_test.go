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

// me calls GET /v1/me with a bearer and returns the status.
func (e *env) me(bearer string) int {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/me", nil)
	req.Header.Set("apikey", testAPIKey)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestAgentKeyLifecycle drives Chromium: an admin creates an agent, copies its key, the
// key calls /v1/me; the admin revokes it and the next call answers 401. The audit log
// shows the key's creation and revocation as the admin's, through the console, and a
// credit grant made from the CLI as the CLI's, with no member.
func TestAgentKeyLifecycle(t *testing.T) {
	e := newEnv(t)
	ctx := newBrowser(t)
	browserSignIn(t, ctx, e.srv.URL, e.Admin)
	run(t, ctx, "create agent",
		chromedp.Navigate(e.srv.URL+"/console/agents"),
		chromedp.WaitVisible(chromedp.CSS("#create-agent")),
		chromedp.SendKeys(chromedp.CSS("#agent-name"), "Scout"),
		chromedp.SetValue(chromedp.CSS("#agent-grant-crm"), "read"),
		chromedp.Click(chromedp.CSS("#create-agent-button")),
		chromedp.WaitVisible(chromedp.CSS("#new-key")),
	)
	key, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#new-key")))
	if err != nil || !strings.HasPrefix(key, "kagt_") {
		t.Fatalf("key %q %v", key, err)
	}
	if got := e.me(key); got != 200 {
		t.Fatalf("/v1/me with the new key: %d", got)
	}
	var keyID string
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT k.id::text FROM agent_keys k JOIN agents a ON a.id = k.agent_id
		JOIN users u ON u.id = a.user_id WHERE a.workspace_id = $1 AND a.name = 'Scout' AND u.grants->>'crm' = 'read'`,
		e.WorkspaceID).Scan(&keyID); err != nil {
		t.Fatalf("agent not stored with crm=read: %v", err)
	}
	run(t, ctx, "revoke",
		chromedp.Navigate(e.srv.URL+"/console/agents"),
		chromedp.WaitVisible(chromedp.CSS("#key-"+keyID)),
		chromedp.Click(chromedp.CSS("#revoke-"+keyID)),
		chromedp.WaitVisible(chromedp.CSS("#confirm-button")),
		chromedp.Click(chromedp.CSS("#confirm-button")),
		chromedp.WaitVisible(chromedp.CSS("#notice")),
	)
	state, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#key-"+keyID+" .state")))
	if err != nil || state != "revoked" {
		t.Fatalf("key state %q %v", state, err)
	}
	// Revocation reaches the credential cache through LISTEN/NOTIFY within a second.
	deadline := time.Now().Add(time.Second)
	for e.me(key) != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("revoked key still answers after a second")
		}
		time.Sleep(20 * time.Millisecond)
	}

	if _, err := e.ops.GrantCredits(t.Context(), e.WorkspaceID, 5, store.By{Credential: "cli:operator", Via: store.ViaCLI}); err != nil {
		t.Fatal(err)
	}
	auditText := func(query string) string {
		t.Helper()
		run(t, ctx, "audit log "+query, chromedp.Navigate(e.srv.URL+"/console/activity"+query),
			chromedp.WaitVisible(chromedp.CSS("#activity")))
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#activity tbody")))
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	byKey := auditText("?key=" + keyID)
	for _, want := range []string{"created agent_keys", "updated agent_keys", "Console", e.Admin.Email, keyID} {
		if !strings.Contains(byKey, want) {
			t.Fatalf("the audit log of the key lacks %q: %s", want, byKey)
		}
	}
	byCLI := auditText("?resource=credits")
	for _, want := range []string{"created credits", "CLI", "no member", "cli:operator"} {
		if !strings.Contains(byCLI, want) {
			t.Fatalf("the audit log of credits lacks %q: %s", want, byCLI)
		}
	}
}

var newKeyRE = regexp.MustCompile(`id="new-key" value="(kagt_[^"]+)"`)

// TestAgentKeysRotateAndIsolate: rotating stops the old key and issues a working one;
// members get 403; another workspace's agent and key ids are 404 and change nothing.
func TestAgentKeysRotateAndIsolate(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	other, err := e.store.CreateWorkspace(ctx, "Other "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := e.store.CreateAgent(ctx, other, "Foreign", nil, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	mine, err := e.ops.CreateAgent(ctx, e.WorkspaceID, "Mine", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	a := e.agent().signIn(e.Admin)
	res := a.form("/console/agents", "/console/agents/rotate", url.Values{"key_id": {mine.KeyID}})
	m := newKeyRE.FindStringSubmatch(res.Body)
	if res.Status != 200 || m == nil {
		t.Fatalf("rotate: %d %.300s", res.Status, res.Body)
	}
	if e.me(m[1]) != 200 {
		t.Fatal("the rotated-in key does not work")
	}
	if e.me(mine.Key) != http.StatusUnauthorized {
		t.Fatal("the rotated-out key still works")
	}
	if res := a.form("/console/agents", "/console/agents/rotate", url.Values{"key_id": {mine.KeyID}}); res.Status != http.StatusNotFound {
		t.Fatalf("rotating a revoked key: %d", res.Status)
	}
	for path, form := range map[string]url.Values{
		"/console/agents/key":    {"agent_id": {foreign.AgentID}},
		"/console/agents/rotate": {"key_id": {foreign.KeyID}},
		"/console/agents/revoke": {"confirm": {"yes"}, "key_id": {foreign.KeyID}},
	} {
		if res := a.form("/console/agents", path, form); res.Status != http.StatusNotFound {
			t.Errorf("%s with another workspace's id: %d", path, res.Status)
		}
	}
	if n := e.count(`SELECT count(*) FROM agent_keys WHERE agent_id = $1 AND revoked_at IS NULL`, foreign.AgentID); n != 1 {
		t.Fatalf("another workspace's agent has %d live keys, want its 1", n)
	}
	if res := a.form("/console/agents", "/console/agents/create", url.Values{"name": {"  "}}); res.Status != http.StatusBadRequest {
		t.Fatalf("agent without a name: %d", res.Status)
	}
	if res := a.get("/console/agents"); strings.Contains(res.Body, "Foreign") {
		t.Fatal("another workspace's agent is listed")
	}
	mem := e.agent().signIn(e.Member)
	if res := mem.get("/console/agents"); res.Status != http.StatusForbidden {
		t.Fatalf("member opens agents: %d", res.Status)
	}
	token := csrf(t, mem.get("/console"))
	for _, path := range []string{"/console/agents/create", "/console/agents/key", "/console/agents/rotate", "/console/agents/revoke"} {
		if res := mem.post(path, url.Values{"csrf": {token}, "name": {"x"}, "agent_id": {mine.AgentID}, "key_id": {mine.KeyID}}); res.Status != http.StatusForbidden {
			t.Errorf("member posts %s: %d", path, res.Status)
		}
	}
	if res := a.post("/console/agents/create", url.Values{"name": {"NoToken"}}); res.Status != http.StatusForbidden {
		t.Fatalf("no CSRF token: %d", res.Status)
	}
}
