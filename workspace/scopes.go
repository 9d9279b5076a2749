package workspace

import (
	"strings"

	"github.com/agencyos/workspaced/store"
)

// HasScope reports whether granted covers need ("deals:write"); "deals:*" covers both
// deals:read and deals:write (docs/contract.md section 5.5).
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
// never offers more (docs/decisions.md 3): a scope is grantable when the member passes gate 2
// (Permits without the scope being granted: feature grant, admin-only writes) for at least
// one operation of one resource under it. directory:write is grantable to members: they
// may edit their own profile (docs/contract.md section 4.2), and the gate keeps their writes to it (checkSelf:
// other members stay admin-only, and workspace settings are AdminWrites).
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
	for _, r := range catalog {
		if r.Scope != name {
			continue
		}
		for _, op := range opsAll {
			if op.Write() == (action == "write") && r.Offers(op) && checkMember(p, r, op) == nil {
				return true
			}
		}
	}
	return false
}
