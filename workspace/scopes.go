package workspace

import (
	"slices"
	"strings"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// HasScope reports whether granted covers need ("deals:write"); "deals:*" covers both
// deals:read and deals:write (store.ScopeCovers).
func HasScope(granted []string, need string) bool {
	return slices.ContainsFunc(granted, func(g string) bool { return store.ScopeCovers(g, need) })
}

// GrantableScopes lists the scopes a member can actually exercise, so a consent screen
// never offers more (docs/decisions.md 3): a scope is grantable when the member passes gate 2
// (Permits without the scope being granted: feature grant, admin-only writes) for at least
// one operation of one resource under it, and the admin-only write scopes
// (adminWrites) need the admin role.
func GrantableScopes(p *auth.Principal) []string {
	var out []string
	for _, s := range Scopes() {
		if scopeUsable(p, s) {
			out = append(out, s)
		}
	}
	return out
}

// adminWrites reports whether the writes under the scope name need the admin role: some
// resource under it has AdminWrites (automations; the workspace settings under directory).
// Such write scopes are never granted to members (docs/decisions.md 3), not even for the
// resources under the same name a member could write: directory:write changes workspace
// settings and other members, so a member's token cannot edit the member's own profile
// either (the gate, checkSelf, would have limited it to that): decisions 3 lists the scope
// as admin-only, and one scope that means "my profile" for some and "the workspace" for
// others is easy to over-grant.
func adminWrites(name string) bool {
	return slices.ContainsFunc(catalog, func(r *Resource) bool { return r.Scope == name && r.AdminWrites })
}

func scopeUsable(p *auth.Principal, scope string) bool {
	name, action, _ := strings.Cut(scope, ":")
	if action == "write" && adminWrites(name) && !p.IsAdmin() {
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
