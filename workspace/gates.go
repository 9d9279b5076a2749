package workspace

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/agencyos/workspaced/store"
)

// Op is one operation of the generic resource interface (spec 4.1).
type Op int

// The operations of spec 4.1, plus enrichment.
const (
	OpList Op = iota
	OpGet
	OpCreate
	OpUpdate
	OpDetach
)

var opNames = [...]string{"list", "get", "create", "update", "detach"}

// String names the operation as the MCP tools do (list, get, create, update, detach).
func (o Op) String() string { return opNames[o] }

// Write reports whether the operation writes (and so needs the write scope).
func (o Op) Write() bool { return o >= OpCreate }

// Offers reports whether the resource has the operation.
func (r *Resource) Offers(op Op) bool {
	switch op {
	case OpList:
		return r.CanList()
	case OpGet:
		return r.CanGet()
	case OpCreate:
		return r.CanCreate()
	case OpUpdate:
		return r.CanUpdate()
	case OpDetach:
		return r.CanDetach()
	}
	return false
}

// Allow lists the HTTP methods the resource answers on its collection path (/deals) or its
// item path (/deals/{id}), for the Allow header of a 405 (decisions.md 4).
func (r *Resource) Allow(item bool) []string {
	var out []string
	if item {
		if r.CanGet() {
			out = append(out, http.MethodGet)
		}
		if r.CanUpdate() {
			out = append(out, http.MethodPatch)
		}
		return out
	}
	if r.CanList() {
		out = append(out, http.MethodGet)
	}
	if r.CanCreate() || r.CanDetach() {
		out = append(out, http.MethodPost)
	}
	if r.Access == Singleton {
		out = append(out, http.MethodPatch)
	}
	return out
}

// MethodNotAllowedError is the 405 for method on the resource's collection or item path; its
// Allow header lists what the path does answer.
func MethodNotAllowedError(r *Resource, method string, item bool) *store.Error {
	allow := r.Allow(item)
	path := "/" + r.Name
	if item {
		path += "/{id}"
	}
	var msg string
	switch {
	case len(allow) == 0 && item:
		msg = fmt.Sprintf("%s has no /{id} form; use GET /%s with filters", r.Name, r.Name)
	case len(allow) == 0:
		msg = fmt.Sprintf("%s %s is not supported", method, path)
	default:
		msg = fmt.Sprintf("%s %s is not supported; allowed: %s", method, path, strings.Join(allow, ", "))
	}
	if method == http.MethodDelete {
		msg += ". The API never deletes records"
		if r.CanDetach() {
			msg += fmt.Sprintf("; unlink a %s record with POST /%s?detach=true and its %s and %s", r.Name, r.Name,
				r.DetachKeys[0], r.DetachKeys[1])
		}
	}
	return &store.Error{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Message: msg,
		Header: map[string]string{"Allow": strings.Join(allow, ", ")}}
}

// opMethod is the HTTP method and path form an operation travels as, for messages and 405s.
func opMethod(op Op) (method string, item bool) {
	switch op {
	case OpList:
		return http.MethodGet, false
	case OpGet:
		return http.MethodGet, true
	case OpUpdate:
		return http.MethodPatch, true
	default:
		return http.MethodPost, false
	}
}

// UnknownResource is the 404 for a resource name that is not in the catalogue.
func UnknownResource(name string) *store.Error {
	names := make([]string, 0, len(catalog))
	for _, r := range catalog {
		names = append(names, r.Name)
	}
	return store.Errorf(http.StatusNotFound, "unknown_resource", "no resource %q; resources are: %s",
		name, strings.Join(names, ", "))
}

// resolve runs the checks that need nothing but the call itself (decisions.md 3 steps 1-3):
// a principal, the resource, the operation, the scope.
func resolve(p *store.Principal, name string, op Op) (*Resource, error) {
	if p == nil {
		return nil, store.Unauthorized("no credential")
	}
	r := Lookup(name)
	if r == nil {
		return nil, UnknownResource(name)
	}
	if op == OpDetach && !r.CanDetach() {
		return nil, store.BadRequest("%s records cannot be detached; detach applies to the join resources deal_people, deal_labels and space_members", r.Name)
	}
	if !r.Offers(op) {
		method, item := opMethod(op)
		if op == OpUpdate && r.Access == Singleton {
			item = false
		}
		return nil, MethodNotAllowedError(r, method, item)
	}
	return r, checkScope(p, r, op)
}

// checkScope is the first gate: <scope>:read for reads, <scope>:write for writes.
func checkScope(p *store.Principal, r *Resource, op Op) error {
	need := r.ReadScope()
	if op.Write() {
		need = r.WriteScope()
	}
	if HasScope(p.Scopes, need) {
		return nil
	}
	return store.Errorf(http.StatusForbidden, "insufficient_scope",
		"this credential lacks the %s scope needed to %s %s; authorize again asking for %s (or %s:*)",
		need, op, r.Name, need, r.Scope)
}

// checkFeature is the second gate: the member's feature grant, read or full to read, full to
// write (spec 5.6). feature is the resource's, or crm for comments and activity on deals.
func checkFeature(p *store.Principal, f Feature, write bool, what string) error {
	if f == NoFeature {
		return nil
	}
	g := p.Grant(string(f))
	if write && g == "full" || !write && (g == "read" || g == "full") {
		return nil
	}
	need := "read or full"
	if write {
		need = "full"
	}
	return store.Errorf(http.StatusForbidden, "insufficient_permission",
		"%s needs %s access to the %s feature and this member has %s; a workspace admin can change the member's grants",
		what, need, f, g)
}

// checkAdmin enforces the admin-only writes (spec 5.7): automations, workspace settings,
// and other members' profiles.
func checkAdmin(p *store.Principal, r *Resource, id string) error {
	if p.IsAdmin() {
		return nil
	}
	if r.AdminWrites {
		return store.Errorf(http.StatusForbidden, "insufficient_permission",
			"writing %s needs the admin role; ask a workspace admin", r.Name)
	}
	if r.SelfOrAdmin && id != p.UserID {
		return store.Errorf(http.StatusForbidden, "insufficient_permission",
			"members may update only their own profile (/users/%s); updating another member needs the admin role", p.UserID)
	}
	return nil
}

// entityFeature is the feature a comment or activity entity type needs: comments on deals
// and activity of CRM resources need crm (decisions.md 3 step 4).
func entityFeature(r *Resource, entityType string) Feature {
	switch r.Name {
	case "comments":
		if entityType == "deal" {
			return CRM
		}
	case "activity":
		if e := Lookup(entityType); e != nil {
			return e.Feature
		}
	}
	return NoFeature
}
