package workspace_test

import (
	"slices"
	"testing"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// TestAdminWriteScopesFollowCatalogue: the write scope of every resource whose writes need
// the admin role (AdminWrites) is offered to admins and never to a member, whatever the
// member's grants, since one scope cannot mean "my records" for some and "the workspace"
// for others (docs/decisions.md 3); every other write scope is offered to a member with
// full grants. Admin-only resources (webhooks) are offered to admins only, to read too.
func TestAdminWriteScopesFollowCatalogue(t *testing.T) {
	t.Parallel()
	full := map[string]string{}
	for _, f := range store.Features {
		full[f] = string(workspace.GrantFull)
	}
	member := workspace.GrantableScopes(&auth.Principal{Identity: store.Identity{Role: "member", Grants: full}})
	admin := workspace.GrantableScopes(&auth.Principal{Identity: store.Identity{Role: "admin"}})
	adminOnly := map[string]bool{}
	for _, r := range workspace.Catalog() {
		if r.AdminWrites || r.AdminOnly {
			adminOnly[r.WriteScope()] = true
		}
		if r.AdminOnly {
			adminOnly[r.ReadScope()] = true
		}
	}
	if len(adminOnly) == 0 {
		t.Fatal("the catalogue has no admin-only writes")
	}
	for _, s := range workspace.Scopes() {
		if !slices.Contains(admin, s) {
			t.Errorf("an admin is not offered %s", s)
		}
		if got := slices.Contains(member, s); got == adminOnly[s] {
			t.Errorf("a member with full grants offered %s: %v", s, got)
		}
	}
}
