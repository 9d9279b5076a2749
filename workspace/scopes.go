package workspace

import (
	"slices"
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
// one operation of one resource under it, and the admin-only write scopes
// (adminWriteScopes) need the admin role.
func GrantableScopes(p *store.Principal) []string {
	var out []string
	for _, s := range Scopes() {
		if scopeUsable(p, s) {
			out = append(out, s)
		}
	}
	return out
}

// adminWriteScopes are never granted to members (docs/decisions.md 3): automations:write,
// and directory:write, which changes workspace settings and other members. A member's
// token therefore cannot edit the member's own profile either (the gate, checkSelf, would
// have limited it to that): decisions 3 lists the scope as admin-only, and one scope that
// means "my profile" for some and "the workspace" for others is easy to over-grant.
var adminWriteScopes = []string{"automations", "directory"}

func scopeUsable(p *store.Principal, scope string) bool {
	name, action, _ := strings.Cut(scope, ":")
	if action == "write" && slices.Contains(adminWriteScopes, name) && !p.IsAdmin() {
		return false
	}
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

// featureFamilies names, in the words the consent page uses, the family of the scopes whose
// resources all need one feature grant; every other scope is the workspace's own.
var featureFamilies = map[Feature]string{CRM: "CRM", HR: "HR", Finance: "Finance", Metrics: "Metrics",
	Competitors: "Competitor research", Agents: "Agents"}

// DescribeScope says in plain words what a scope (deals:read) reaches, for the consent
// page: its family ("CRM" when every resource under the name needs the crm grant,
// "Workspace" otherwise) and the resources its action covers (deals and crm files to
// read, deals to change), both read from the catalogue, so a new resource is described
// without an edit here. A scope the catalogue does not hold is its own family and covers
// its name.
func DescribeScope(scope string) (family string, covers []string) {
	name, action, _ := strings.Cut(scope, ":")
	var nouns []string
	feature, shared, found := NoFeature, true, false
	for _, r := range catalog {
		if r.Scope != name {
			continue
		}
		if !found {
			feature, found = r.Feature, true
		} else if r.Feature != feature {
			shared = false
		}
		reaches := r.CanList() || r.CanGet()
		if action == "write" {
			reaches = r.CanCreate() || r.CanUpdate()
		}
		switch {
		case !reaches || r.Access == Detach: // a join record is a link between two of the others
		case r.Access == Singleton:
			nouns = append(nouns, r.Name+" settings")
		default:
			nouns = append(nouns, strings.ReplaceAll(r.Name, "_", " "))
		}
	}
	if len(nouns) == 0 {
		return name, []string{strings.ReplaceAll(name, "_", " ")}
	}
	family = "Workspace"
	if f, ok := featureFamilies[feature]; ok && shared {
		family = f
	}
	return family, nouns
}
