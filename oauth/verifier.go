package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
)

// Verifier resolves OAuth access tokens (svc_at_) to principals for the REST API and the
// MCP server. It satisfies restapi.Authenticator; cmd registers it for the svc_at_ prefix
// behind the revocation-aware cache.
type Verifier struct {
	s *Server
}

// Verifier returns the provider's access-token verifier.
func (s *Server) Verifier() *Verifier { return &Verifier{s: s} }

// Authenticate returns the principal of an access token, with the scopes the token was
// granted and the member's grants as they are now. A grant removed later takes effect at
// once through the feature gate (decisions.md 3), which answers 403
// insufficient_permission (spec 5.6): the token still holds its scope, the member lacks
// the grant. It returns a store.Error with code unauthorized when the token is
// malformed, unknown, expired or revoked, its family or client is revoked or disabled, or
// its member is no longer active.
func (v *Verifier) Authenticate(ctx context.Context, bearer string) (*store.Principal, error) {
	if !store.WellFormed(bearer, store.PrefixAccessToken) {
		return nil, store.Unauthorized("the access token is malformed")
	}
	p := &store.Principal{Credential: store.Credential{Type: "oauth"}}
	var scopes []string
	var grants []byte
	var expires time.Time
	var live, active, clientOK bool
	var familyID string
	var lastUsed *time.Time
	err := v.s.db.pool.QueryRow(ctx, `SELECT a.id::text, a.scopes, a.expires_at, a.revoked_at IS NULL AND f.revoked_at IS NULL,
			f.id::text, f.client_id, f.resource, f.last_used_at, c.disabled_at IS NULL,
			u.id::text, u.workspace_id::text, u.email, coalesce(u.display_name, ''), u.role, u.is_agent, u.grants,
			u.status = 'active'
		FROM oauth_access_tokens a JOIN oauth_families f ON f.id = a.family_id
		JOIN oauth_clients c ON c.id = f.client_id JOIN users u ON u.id = f.user_id
		WHERE a.token_hash = $1`, store.HashSecret(bearer)).Scan(&p.Credential.ID, &scopes, &expires, &live,
		&familyID, &p.Credential.ClientID, &p.Credential.Resource, &lastUsed, &clientOK,
		&p.UserID, &p.WorkspaceID, &p.Email, &p.DisplayName, &p.Role, &p.IsAgent, &grants, &active)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.Unauthorized("the access token is unknown")
	}
	if err != nil {
		return nil, err
	}
	now := v.s.now()
	switch {
	case !live:
		return nil, store.Unauthorized("the access token was revoked")
	case !now.Before(expires):
		return nil, store.Unauthorized("the access token expired; use the refresh token")
	case !clientOK:
		return nil, store.Unauthorized("the app this token was issued to is disabled")
	case !active:
		return nil, store.Unauthorized("the member behind this token cannot sign in any more")
	}
	if err := json.Unmarshal(grants, &p.Grants); err != nil {
		return nil, err
	}
	p.Credential.ExpiresAt = &expires
	p.Scopes = scopes
	// "Last used" of the Connected apps page, written at most once a minute per family.
	if lastUsed == nil || now.Sub(*lastUsed) > time.Minute {
		if _, err := v.s.db.pool.Exec(ctx, `UPDATE oauth_families SET last_used_at = $2 WHERE id = $1`, familyID, now); err != nil {
			v.s.log.Warn("oauth: touch family", "err", err)
		}
	}
	return p, nil
}
