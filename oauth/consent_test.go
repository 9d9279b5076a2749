package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestConsentRemembered: an earlier approval is reused silently only for an admin app, or
// at the exact redirect URI (port included) it was given at, within the scopes approved
// (RFC 8252 8.6, RFC 9700 4.2, docs/decisions.md 7). Otherwise the consent page is shown again
// with the earlier choices ticked.
func TestConsentRemembered(t *testing.T) {
	e := newEnv(t)
	client := e.register("http://127.0.0.1/callback")
	first := "http://127.0.0.1:50001/callback"
	b := e.browser()
	_, challenge := pkce()
	b.get(e.authURL(client, first, challenge, "deals:read deals:write people:read", "s"))
	b.login(e.Member)
	b.approve([]string{"deals:read", "people:read"})

	silent := func(t *testing.T, r response, target string) {
		t.Helper()
		loc, _ := url.Parse(r.Header.Get("Location"))
		if r.Status != http.StatusFound || loc == nil || !strings.HasPrefix(loc.String(), target+"?") || loc.Query().Get("code") == "" {
			t.Fatalf("want a code sent to %s at once, got %d %s", target, r.Status, r.Header.Get("Location"))
		}
	}
	asked := func(t *testing.T, r response) {
		t.Helper()
		if r.Status != http.StatusOK || !strings.Contains(r.Raw, `id="consent"`) {
			t.Fatalf("want the consent page, got %d %s", r.Status, r.Header.Get("Location"))
		}
	}

	t.Run("same redirect URI and scopes: no page", func(t *testing.T) {
		silent(t, b.get(e.authURL(client, first, challenge, "deals:read people:read", "s")), first)
		silent(t, b.get(e.authURL(client, first, challenge, "deals:read", "s")), first)
	})
	t.Run("another loopback port: asked again, earlier choices ticked", func(t *testing.T) {
		other := "http://127.0.0.1:50002/callback"
		asked(t, b.get(e.authURL(client, other, challenge, "deals:read people:read", "s")))
		r := b.get(e.authURL(client, other, challenge, "deals:read deals:write people:read", "s"))
		asked(t, r)
		for scope, ticked := range map[string]bool{"deals:read": true, "people:read": true, "deals:write": false} {
			has := strings.Contains(r.Raw, `value="`+scope+`" id="scope-`+strings.ReplaceAll(scope, ":", "-")+`" checked`)
			if has != ticked {
				t.Fatalf("%s ticked=%v, want %v", scope, has, ticked)
			}
		}
		// Approving there adds that port; the first one still works.
		b.approve([]string{"deals:read", "people:read"})
		silent(t, b.get(e.authURL(client, other, challenge, "deals:read", "s")), other)
		silent(t, b.get(e.authURL(client, first, challenge, "deals:read", "s")), first)
	})
	t.Run("wider scopes: asked again", func(t *testing.T) {
		asked(t, b.get(e.authURL(client, first, challenge, "deals:read deals:write", "s")))
	})
	t.Run("widening the approval forgets the other redirect URIs", func(t *testing.T) {
		third := "http://127.0.0.1:50003/callback"
		b.get(e.authURL(client, third, challenge, "deals:read deals:write", "s"))
		b.approve([]string{"deals:read", "deals:write"})
		silent(t, b.get(e.authURL(client, third, challenge, "deals:write", "s")), third)
		asked(t, b.get(e.authURL(client, first, challenge, "deals:read", "s")))
	})
	t.Run("admin-registered app: no page within the approved scopes", func(t *testing.T) {
		app, err := oauthCreateApp(e, false, "http://127.0.0.1/callback")
		if err != nil {
			t.Fatal(err)
		}
		b.get(e.authURL(app.ClientID, first, challenge, "deals:read", "s"))
		b.approve(nil)
		silent(t, b.get(e.authURL(app.ClientID, "http://127.0.0.1:50009/callback", challenge, "deals:read", "s")),
			"http://127.0.0.1:50009/callback")
	})
}

// TestMemberDirectoryWrite: a member may edit their own profile (docs/contract.md section 4.2), so
// directory:write is offered to them and their token keeps it; the gate still limits their
// writes to their own record and leaves workspace settings to admins.
func TestMemberDirectoryWrite(t *testing.T) {
	e := newEnv(t)
	_, tk := e.tokensFor(e.Member, "directory:read directory:write")
	if !strings.Contains(" "+tk.Scope+" ", " directory:write ") {
		t.Fatalf("granted %q, want directory:write among them", tk.Scope)
	}
	patch := func(path, body string) response {
		t.Helper()
		req, _ := http.NewRequest("PATCH", e.srv.URL+"/v1"+path, strings.NewReader(body))
		req.Header.Set("apikey", testAPIKey)
		req.Header.Set("Authorization", "Bearer "+tk.Access)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		return decode(t, res, err)
	}
	if r := patch("/users/"+e.Member.ID, `{"display_name":"New Name"}`); r.Status != http.StatusOK {
		t.Fatalf("own profile: %d %s", r.Status, r.Raw)
	}
	if r := patch("/users/"+e.Admin.ID, `{"display_name":"Hijacked"}`); r.Status != http.StatusForbidden {
		t.Fatalf("another member's profile: want 403, got %d %s", r.Status, r.Raw)
	}
	if r := patch("/workspace", `{"name":"Renamed"}`); r.Status != http.StatusForbidden {
		t.Fatalf("workspace settings: want 403, got %d %s", r.Status, r.Raw)
	}
}
