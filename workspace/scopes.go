package workspace

import (
	"strings"

	"github.com/agencyos/workspaced/store"
)

// HasScope reports whether granted covers need ("deals:write"); "deals:*" covers both
// deals:read and deals:write (spec 5.5).
func HasScope(granted []string, need string) bool {
	res, _, _ := strings.Cut(need, ":")
	for _, g := range granted {
		if g == need || g == res+":*" {
			return true
		}
	}
	return false
}

// GrantableScopes lists the scopes a member can actually exercise, so a consent screen
// never offers more (decisions.md 3): a scope is grantable when at least one resource under
// it is usable with the member's feature grants (read or full to read, full to write), and
// admin-only writes (automations) need the admin role. directory:write is grantable to
// members: they may edit their own profile (spec 4.2), and the gate keeps their writes to
// it (checkAdmin: workspace settings and other members stay admin-only).
func GrantableScopes(p *store.Principal) []string {
	var out []string
	for _, s := range Scopes() {
		if scopeUsable(p, s) {
			out = append(out, s)
		}
	}
	return out
}

func scopeUsable(p *store.Principal, scope string) bool {
	name, action, _ := strings.Cut(scope, ":")
	if action == "write" && name == "automations" && !p.IsAdmin() {
		return false
	}
	for _, r := range catalog {
		if r.Scope != name {
			continue
		}
		grant := "full"
		if r.Feature != NoFeature {
			grant = p.Grant(string(r.Feature))
		}
		if action == "read" && (r.CanList() || r.CanGet()) && grant != "none" {
			return true
		}
		if action == "write" && (r.CanCreate() || r.CanUpdate() || r.CanDetach()) && grant == "full" {
			return true
		}
	}
	return false
}
