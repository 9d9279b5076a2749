package workspace

import (
	"fmt"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Grant is a member's level on a feature (docs/contract.md section 5.6): none, read or full. Admins hold full
// on every feature (auth.Principal.Grant).
type Grant string

// The grant levels, as store states them (store/identity.go).
const (
	GrantNone Grant = store.GrantNone
	GrantRead Grant = store.GrantRead
	GrantFull Grant = store.GrantFull
)

// GrantLevels lists the levels, lowest first.
func GrantLevels() []string { return store.GrantLevels() }

// Allows reports whether the grant lets its holder run op: read or full to read, full to
// write. The policies of store/migrations say the same (app_grant in ws_protect), which
// TestDatabaseRulesFollowCatalogue checks.
func (g Grant) Allows(op Op) bool {
	if op.Write() {
		return g == GrantFull
	}
	return g == GrantRead || g == GrantFull
}

// grantOf is p's grant on feature f; everyone holds full on resources without a feature.
func grantOf(p *auth.Principal, f Feature) Grant {
	if f == NoFeature {
		return GrantFull
	}
	return Grant(p.Grant(string(f)))
}

// Permits reports whether p may run op on r as far as the principal alone decides, before
// any record is read: the token's scope (gate 1), the member's feature grant and the admin
// role for admin-only writes and admin-only resources (gate 2). The gates of Ops, the MCP tool listing and
// find_tools, and (without the scope, which is what is being granted) the consent screen
// all ask it. Rules that depend on the record (a member's own profile, a comment's author,
// the entity a comment or activity row is about) are checked by the operation on the
// record.
func Permits(p *auth.Principal, r *Resource, op Op) bool {
	return checkScope(p, r, op) == nil && checkMember(p, r, op) == nil
}

// checkMember is gate 2 for r as a whole: the feature grant (403 insufficient_permission
// naming what the member has) and admin-only writes (docs/contract.md section 5.7).
func checkMember(p *auth.Principal, r *Resource, op Op) error {
	verb := map[Op]string{OpList: "listing", OpGet: "reading"}[op]
	if verb == "" {
		verb = "writing"
	}
	if err := checkFeature(p, r.Feature, op, verb+" "+r.Name); err != nil {
		return err
	}
	if op.Write() && r.AdminWrites && !p.IsAdmin() {
		return apierr.Errorf(apierr.CodeInsufficientPermission, "writing %s needs the admin role; ask a workspace admin", r.Name)
	}
	if r.AdminOnly && !p.IsAdmin() {
		return adminOnlyError(r)
	}
	return nil
}

// adminOnlyError is the 403 of an AdminOnly resource (webhooks) for a member.
func adminOnlyError(r *Resource) error {
	return apierr.Errorf(apierr.CodeInsufficientPermission, "%s is for workspace admins only; ask a workspace admin", r.Name)
}

// checkFeature is the feature grant of gate 2 for what (a phrase such as "listing deals"):
// f is the resource's feature, or the one an entity needs (crm for comments on deals).
func checkFeature(p *auth.Principal, f Feature, op Op, what string) error {
	g := grantOf(p, f)
	if g.Allows(op) {
		return nil
	}
	need := string(GrantRead) + " or " + string(GrantFull)
	if op.Write() {
		need = string(GrantFull)
	}
	return apierr.Errorf(apierr.CodeInsufficientPermission,
		"%s needs %s access to the %s feature and this member has %s; a workspace admin can change the member's grants",
		what, need, f, g)
}

// Needs words what running op on r asks of a caller, for the MCP tools' descriptions:
// "deals:write", "crm grant full", "admin".
func (r *Resource) Needs(op Op) []string {
	parts := []string{r.ReadScope()}
	if op.Write() {
		parts[0] = r.WriteScope()
	}
	if r.Feature != NoFeature {
		level := GrantRead
		if op.Write() {
			level = GrantFull
		}
		parts = append(parts, fmt.Sprintf("%s grant %s", r.Feature, level))
	}
	if op.Write() && r.AdminWrites || r.AdminOnly {
		parts = append(parts, "admin")
	}
	if op.Write() && r.SelfOrAdmin {
		parts = append(parts, "admin unless it is your own record")
	}
	return parts
}
