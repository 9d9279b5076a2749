// Package auth holds Principal, who a request acts as, and the rules that read it (its
// role, its feature grants, the actor it runs as in the database). It sits between store,
// which reads credentials and runs statements as a store.Actor, and everything above: the
// domain (workspace), the adapters, the request context (httpx) and background jobs
// (webhooks, imports, enrich) all hold principals, so the type lives in a package each of
// them can import without importing the domain.
package auth

import "github.com/agencyos/workspaced/store"

// Principal is who a request acts as: the identity behind a credential (the member or
// agent user, its workspace, role, feature grants, the scopes the credential carries and
// the credential) and the channel the request came through.
type Principal struct {
	store.Identity
	// Via is the channel the request came through (store.ViaREST, store.ViaMCP), recorded
	// with every write in activity; the adapters set it on their copy (WithVia).
	Via string
}

// FromIdentity returns the principal of what store read about a credential's holder
// (store.Store.AgentKeyIdentity, OAuthAccessToken, the OAuth members), with no channel yet.
func FromIdentity(id *store.Identity) *Principal {
	return &Principal{Identity: *id}
}

// Resolved is the principal of the identity a store lookup resolved a credential to
// (store.Store.AgentKeyIdentity), or that lookup's error.
func Resolved(id *store.Identity, err error) (*Principal, error) {
	if err != nil {
		return nil, err
	}
	return FromIdentity(id), nil
}

// WithVia returns a copy of p that came through channel via. Principals are shared by the
// credential cache, so an adapter never writes to the one it was given.
func (p *Principal) WithVia(via string) *Principal {
	q := *p
	q.Via = via
	return &q
}

// IsAdmin reports whether the principal holds the admin role.
func (p *Principal) IsAdmin() bool { return p.Role == store.RoleAdmin }

// Grant returns the principal's grant for a feature: none, read or full. Admins hold full
// on every feature (docs/decisions.md 2).
func (p *Principal) Grant(feature string) string {
	if p.IsAdmin() {
		return store.GrantFull
	}
	if g, ok := p.Grants[feature]; ok {
		return g
	}
	return store.GrantNone
}

// Actor is what store sets, for one transaction, for row-level security to act as p
// (store/actor.go): its workspace, user, role, effective grants, credential and channel.
// The zero Actor of a nil p is refused by store.
func (p *Principal) Actor() store.Actor {
	if p == nil {
		return store.Actor{}
	}
	return store.Actor{WorkspaceID: p.WorkspaceID, UserID: p.UserID, Role: p.Role, Grants: store.GrantsSetting(p.Grant),
		Credential: p.Credential, Via: p.Via}
}

// By returns the By of p's administration changes through channel via (store.ViaConsole).
func (p *Principal) By(via string) store.By {
	return store.By{UserID: p.UserID, Credential: p.Credential.Label(), Via: via}
}
