package restapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

func TestMeWithAgentKey(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	r := e.do("GET", "/me", f.Agent.Key, testAPIKey, "")
	if r.Status != http.StatusOK {
		t.Fatalf("GET /me: %d %s", r.Status, r.Raw)
	}
	data := r.Body["data"].(map[string]any)
	user := data["user"].(map[string]any)
	if user["id"] != f.Agent.UserID || user["is_agent"] != true {
		t.Fatalf("user %v, want agent user %s", user, f.Agent.UserID)
	}
	if ws := data["workspace"].(map[string]any); ws["id"] != f.WorkspaceID || ws["name"] == "" {
		t.Fatalf("workspace %v, want %s", ws, f.WorkspaceID)
	}
	if scopes := data["scopes"].([]any); len(scopes) != 35 {
		t.Fatalf("agent key carries %d scopes, want all 35", len(scopes))
	}
	if cred := data["credential"].(map[string]any); cred["type"] != "agent_key" {
		t.Fatalf("credential %v", cred)
	}
	if grants := user["grants"].(map[string]any); grants["crm"] != "full" || grants["hr"] != "none" {
		t.Fatalf("grants %v, want the agent's own (crm full, hr none)", grants)
	}
	var used bool
	if err := storetest.Pool(t).QueryRow(context.Background(),
		`SELECT last_used_at > now() - interval '1 minute' FROM agent_keys WHERE id = $1`, f.Agent.KeyID).Scan(&used); err != nil || !used {
		t.Fatalf("agent key last_used_at not recorded (err %v)", err)
	}
}

func TestMeRefusesBadCredentials(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	f := storetest.Workspace(t, e.store, nil)
	revoked, err := e.store.CreateAgent(ctx, f.WorkspaceID, "Revoked", nil, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.RevokeAgentKey(ctx, revoked.KeyID); err != nil {
		t.Fatal(err)
	}
	suspended, err := e.store.CreateAgent(ctx, f.WorkspaceID, "Suspended", nil, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetMember(ctx, suspended.UserID, store.Member{Status: "suspended"}); err != nil {
		t.Fatal(err)
	}
	unknown, _ := store.NewSecret(store.PrefixAgentKey)
	// The last character is part of the checksum; replace it with one it is not, so the
	// case never hands the valid key back (a fixed "x" did, once in about 62 runs).
	last := f.Agent.Key[len(f.Agent.Key)-1]
	swap := byte('x')
	if last == swap {
		swap = 'y'
	}
	badChecksum := f.Agent.Key[:len(f.Agent.Key)-1] + string(swap)
	cases := []struct{ name, bearer, apikey string }{
		{"revoked key", revoked.Key, testAPIKey},
		{"suspended user", suspended.Key, testAPIKey},
		{"unknown key", unknown, testAPIKey},
		{"bad checksum", badChecksum, testAPIKey},
		{"malformed", "kagt_short", testAPIKey},
		{"not a credential", "hello", testAPIKey},
		{"missing bearer", "", testAPIKey},
		{"missing apikey", f.Agent.Key, ""},
		{"wrong apikey", f.Agent.Key, "pk_wrong"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, e.do("GET", "/me", c.bearer, c.apikey, ""), http.StatusUnauthorized, "unauthorized")
		})
	}
	t.Run("apikey as query parameter", func(t *testing.T) {
		if r := e.do("GET", "/me?apikey="+testAPIKey, f.Agent.Key, "", ""); r.Status != http.StatusOK {
			t.Fatalf("got %d %s", r.Status, r.Raw)
		}
	})
}

func TestRevocationVisibleWithinASecond(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	if r := e.do("GET", "/me", f.Agent.Key, testAPIKey, ""); r.Status != http.StatusOK {
		t.Fatalf("before revocation: %d", r.Status)
	}
	if err := e.store.RevokeAgentKey(context.Background(), f.Agent.KeyID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for {
		r := e.do("GET", "/me", f.Agent.Key, testAPIKey, "")
		if r.Status == http.StatusUnauthorized {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("revoked key still accepted after 1s: %d", r.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRequestIDOnEveryResponse(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	for _, r := range []response{
		e.do("GET", "/me", f.Agent.Key, testAPIKey, ""),
		e.do("GET", "/me", "", "", ""),
		e.do("GET", "/nope", f.Agent.Key, testAPIKey, ""),
	} {
		if r.Header.Get("X-Request-Id") == "" {
			t.Fatalf("%d response without X-Request-Id", r.Status)
		}
	}
	kept := e.do("GET", "/me", f.Agent.Key, testAPIKey, "", "X-Request-Id", "client-chosen-id-123")
	if got := kept.Header.Get("X-Request-Id"); got != "client-chosen-id-123" {
		t.Fatalf("well-formed id not kept: %q", got)
	}
	replaced := e.do("GET", "/me", f.Agent.Key, testAPIKey, "", "X-Request-Id", "bad id\twith spaces")
	if got := replaced.Header.Get("X-Request-Id"); got == "bad id\twith spaces" || len(got) != 36 {
		t.Fatalf("malformed id should be replaced by a uuid, got %q", got)
	}
}
