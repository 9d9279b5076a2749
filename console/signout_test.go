package console_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store"
)

// grant is what one authorization gave an app: its tokens, and a second code not yet
// exchanged with its verifier.
type grant struct {
	Access, Refresh, Code, Verifier string
}

// authorizeGrant runs the authorization code flow for a signed-in agent and exchanges the
// code, then asks again (the consent is remembered) and keeps that code unexchanged.
func (a *agent) authorizeGrant(clientID, scope string) grant {
	a.t.Helper()
	codeFor := func() (code, verifier string) {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		verifier = base64.RawURLEncoding.EncodeToString(b)
		sum := sha256.Sum256([]byte(verifier))
		q := url.Values{"client_id": {clientID}, "redirect_uri": {loopbackRedirect}, "response_type": {"code"},
			"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
			"state": {"s"}, "scope": {scope}}
		res := a.get("/oauth/authorize?" + q.Encode())
		if res.Status == 200 {
			form := url.Values{"action": {"approve"}, "scope": strings.Fields(scope)}
			for _, m := range hiddenRE.FindAllStringSubmatch(res.Body, -1) {
				form.Set(m[1], html.UnescapeString(m[2]))
			}
			res = a.post("/oauth/authorize", form)
		}
		loc, err := url.Parse(res.Location)
		if err != nil || loc.Query().Get("code") == "" {
			a.t.Fatalf("authorize: %d %q %.300s", res.Status, res.Location, res.Body)
		}
		return loc.Query().Get("code"), verifier
	}
	code, verifier := codeFor()
	tok := a.exchange(clientID, code, verifier)
	var out map[string]any
	_ = json.Unmarshal([]byte(tok.Body), &out)
	g := grant{}
	g.Access, _ = out["access_token"].(string)
	g.Refresh, _ = out["refresh_token"].(string)
	if tok.Status != 200 || g.Access == "" || g.Refresh == "" {
		a.t.Fatalf("token: %d %s", tok.Status, tok.Body)
	}
	g.Code, g.Verifier = codeFor()
	return g
}

func (a *agent) exchange(clientID, code, verifier string) page {
	a.t.Helper()
	return a.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "client_id": {clientID}, "redirect_uri": {loopbackRedirect}}, "apikey", testAPIKey)
}

// wantSignedOut asserts that everything g gave the app stopped: the access token answers
// 401 (within the revocation notice's second), the refresh token and the pending code
// invalid_grant.
func (e *env) wantSignedOut(a *agent, clientID string, g grant) {
	e.t.Helper()
	e.waitStatus(g.Access, http.StatusUnauthorized)
	res := a.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {g.Refresh},
		"client_id": {clientID}}, "apikey", testAPIKey)
	if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, `"invalid_grant"`) {
		e.t.Fatalf("refresh token issued before: %d %s", res.Status, res.Body)
	}
	if res := a.exchange(clientID, g.Code, g.Verifier); res.Status != http.StatusBadRequest || !strings.Contains(res.Body, `"invalid_grant"`) {
		e.t.Fatalf("code issued before: %d %s", res.Status, res.Body)
	}
}

// TestPasswordResetSignsOutEverywhere: choosing a new password through a reset link ends
// every session of the member and revokes every token and pending code they gave apps;
// the workspace's agent key, which is not the member's, keeps working.
func TestPasswordResetSignsOutEverywhere(t *testing.T) {
	e := newEnv(t)
	clientID := e.registerClient("Assistant")
	other := e.agent().signIn(e.Member) // a second browser, say a stolen one
	g := other.authorizeGrant(clientID, "companies:read")
	e.waitStatus(g.Access, 200)
	key, err := e.ops.CreateAgent(t.Context(), e.WorkspaceID, "Scout", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	e.waitStatus(key.Key, 200)

	inv, err := e.ops.ResetLink(t.Context(), e.WorkspaceID, e.Member.ID, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	b := e.agent()
	path := strings.TrimPrefix(inv.Link, e.issuer)
	open := b.get(path)
	token, _ := url.Parse(inv.Link)
	res := b.post("/console/reset", url.Values{"csrf": {csrf(t, open)}, "token": {token.Query().Get("token")},
		"password": {"a brand new password"}, "confirm": {"a brand new password"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("reset: %d %.300s", res.Status, res.Body)
	}
	e.wantSignedOut(b, clientID, g)
	if res := other.get("/console/account"); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/oauth/login") {
		t.Fatalf("the other browser's session after the reset: %d %q", res.Status, res.Location)
	}
	if res := b.get("/console/account"); res.Status != 200 {
		t.Fatalf("the browser that reset is signed in: %d", res.Status)
	}
	e.waitStatus(key.Key, 200)
}

// TestSignOutEverywhere: "Sign out everywhere" on the account page ends every session of
// the member, this browser's included, and revokes every token and pending code they gave
// apps; another member's session and tokens, and the agent key, keep working.
func TestSignOutEverywhere(t *testing.T) {
	e := newEnv(t)
	clientID := e.registerClient("Assistant")
	first := e.agent().signIn(e.Member)
	g := first.authorizeGrant(clientID, "companies:read")
	admin := e.agent().signIn(e.Admin)
	ga := admin.authorizeGrant(clientID, "companies:read")
	key, err := e.ops.CreateAgent(t.Context(), e.WorkspaceID, "Scout", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	second := e.agent().signIn(e.Member)
	account := second.get("/console/account")
	if !strings.Contains(account.Body, `id="sign-out-everywhere"`) {
		t.Fatalf("no sign-out-everywhere on the account page: %.600s", account.Body)
	}
	// Refused without the page's token.
	if res := second.post("/console/account/sign-out-everywhere", url.Values{}); res.Status != http.StatusForbidden {
		t.Fatalf("without a CSRF token: %d", res.Status)
	}
	res := second.post("/console/account/sign-out-everywhere", url.Values{"csrf": {csrf(t, account)}})
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/oauth/login") {
		t.Fatalf("sign out everywhere: %d %q", res.Status, res.Location)
	}
	e.wantSignedOut(second, clientID, g)
	for name, a := range map[string]*agent{"this browser": second, "another browser": first} {
		if res := a.get("/console/account"); res.Status != http.StatusSeeOther {
			t.Fatalf("%s after signing out everywhere: %d", name, res.Status)
		}
	}
	if res := admin.get("/console/account"); res.Status != 200 {
		t.Fatalf("another member's session: %d", res.Status)
	}
	e.waitStatus(ga.Access, 200)
	e.waitStatus(key.Key, 200)
	if n := e.count(`SELECT count(*) FROM activity WHERE actor_id = $1 AND entity_type = 'oauth_connections' AND entity_id = $1
		AND changes->>'signed_out_everywhere' = 'true'`, e.Member.ID); n != 1 {
		t.Fatalf("%d audit records of the sign-out", n)
	}
}
