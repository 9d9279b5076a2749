package workspace

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
)

// Op is one operation of the generic resource interface (docs/contract.md section 4.1).
type Op int

// The operations of docs/contract.md section 4.1, plus enrichment.
const (
	OpList Op = iota
	OpGet
	OpCreate
	OpUpdate
	OpDetach
	// OpAction is a record action (Action): a write of its resource.
	OpAction
)

var opNames = [...]string{"list", "get", "create", "update", "detach", "action"}

// opsAll lists every generic Op (record actions are listed by Actions).
var opsAll = [...]Op{OpList, OpGet, OpCreate, OpUpdate, OpDetach}

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
	case OpAction:
		return actionsOf(r)
	}
	return false
}

// Allow lists the HTTP methods the resource answers on its collection path (/deals) or its
// item path (/deals/{id}), for the Allow header of a 405 (docs/decisions.md 4).
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
func MethodNotAllowedError(r *Resource, method string, item bool) *apierr.Error {
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
	return &apierr.Error{Code: apierr.CodeMethodNotAllowed, Message: msg,
		Allow: allow}
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
func UnknownResource(name string) *apierr.Error {
	names := make([]string, 0, len(catalog))
	for _, r := range catalog {
		names = append(names, r.Name)
	}
	return apierr.Errorf(apierr.CodeUnknownResource, "no resource %q; resources are: %s",
		name, strings.Join(names, ", "))
}

// admit runs the checks of a call on a resource the adapter has looked up (docs/decisions.md 3
// steps 1-3): a principal, the operation offered, the scope. Adapters look the resource up
// once (Lookup, or the tool's resource) and answer UnknownResource themselves; a nil r
// here is a wiring fault, answered as an unknown resource.
func admit(p *auth.Principal, r *Resource, op Op) error {
	if p == nil {
		return apierr.Unauthorized("no credential")
	}
	if r == nil {
		return UnknownResource("")
	}
	if op == OpDetach && !r.CanDetach() {
		return apierr.BadRequest("%s records cannot be detached; detach applies to the join resources deal_people, deal_labels and space_members", r.Name)
	}
	if !r.Offers(op) {
		method, item := opMethod(op)
		if op == OpUpdate && r.Access == Singleton {
			item = false
		}
		return MethodNotAllowedError(r, method, item)
	}
	return checkScope(p, r, op)
}

// admitWrite runs the gates of a write that read no body, for each of ops: the resource,
// the operation and the scope (admit), and with member the member's grant (checkMember: a
// batch judges it for all its records at once; a single write with its body, permitWrite).
// Then it takes the write's place among those in flight (admitClass); done gives it back.
func (o *Ops) admitWrite(ctx context.Context, p *auth.Principal, r *Resource, member bool, ops ...Op) (done func(), err error) {
	for _, op := range ops {
		if err := admit(p, r, op); err != nil {
			return nil, err
		}
		if !member {
			continue
		}
		if err := checkMember(p, r, op); err != nil {
			return nil, err
		}
	}
	return o.admitClass(ctx, p, ClassWrite)
}

// checkScope is the first gate: <scope>:read for reads, <scope>:write for writes.
func checkScope(p *auth.Principal, r *Resource, op Op) error {
	need := r.ReadScope()
	if op.Write() {
		need = r.WriteScope()
	}
	if HasScope(p.Scopes, need) {
		return nil
	}
	return apierr.Errorf(apierr.CodeInsufficientScope,
		"this credential lacks the %s scope needed to %s %s; authorize again asking for %s (or %s:*)",
		need, op, r.Name, need, r.Scope)
}

// checkSelf enforces that members update only their own profile (docs/contract.md section 5.7): the
// catalogue's SelfOrAdmin.
func checkSelf(p *auth.Principal, r *Resource, id string) error {
	if r.SelfOrAdmin && id != p.UserID && !p.IsAdmin() {
		return apierr.Errorf(apierr.CodeInsufficientPermission,
			"members may update only their own profile (/users/%s); updating another member needs the admin role", p.UserID)
	}
	return nil
}

// entityFeature is the feature an entity type of r's polymorphic reference needs beyond
// r's own (the catalogue's Entities): crm for comments and activity on deals
// (docs/decisions.md 3 step 4).
func entityFeature(r *Resource, entityType string) Feature { return r.Entities[entityType] }
