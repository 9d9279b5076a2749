package auth_test

import (
	"strings"
	"testing"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// TestActorCarriesEffectiveGrants: the actor a principal runs as carries its effective
// grants in app.grants (admins full on every feature, docs/decisions.md 2; a member only
// what it reads or writes), its credential and channel; a nil principal's actor is one
// store refuses.
func TestActorCarriesEffectiveGrants(t *testing.T) {
	everyFull := make([]string, len(store.Features))
	for i, f := range store.Features {
		everyFull[i] = `"` + f + `":"full"`
	}
	cred := store.Credential{Type: "oauth", ID: "t1", ClientID: "c1", ClientName: "App"}
	for _, c := range []struct {
		name       string
		p          *auth.Principal
		wantGrants string
	}{
		{"admin", &auth.Principal{Identity: store.Identity{UserID: "u", WorkspaceID: "w", Role: store.RoleAdmin, Grants: map[string]string{"crm": "none"}}},
			"{" + strings.Join(everyFull, ",") + "}"},
		{"member", &auth.Principal{Identity: store.Identity{UserID: "u", WorkspaceID: "w", Role: store.RoleMember,
			Grants: map[string]string{"finance": "full", "crm": "read", "hr": "none", "unknown": "full"}}},
			`{"crm":"read","finance":"full"}`},
		{"member without grants", &auth.Principal{Identity: store.Identity{UserID: "u", WorkspaceID: "w", Role: store.RoleMember}}, `{}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.p.Credential, c.p.Via = cred, store.ViaMCP
			a := c.p.Actor()
			want := store.Actor{WorkspaceID: "w", UserID: "u", Role: c.p.Role, Grants: c.wantGrants, Credential: cred, Via: store.ViaMCP}
			if a != want {
				t.Errorf("Actor() = %+v, want %+v", a, want)
			}
		})
	}
	var none *auth.Principal
	if a := none.Actor(); a != (store.Actor{}) {
		t.Errorf("a nil principal's actor = %+v, want the zero Actor", a)
	}
}
