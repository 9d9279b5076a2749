package oauth

import (
	"context"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Verifier resolves OAuth access tokens (svc_at_) to principals for the REST API and the
// MCP server. It satisfies workspace.Authenticator; cmd registers it for the svc_at_ prefix
// behind the revocation-aware cache.
type Verifier struct {
	s *Server
}

// Verifier returns the provider's access-token verifier.
func (s *Server) Verifier() *Verifier { return &Verifier{s: s} }

// Authenticate returns the principal of an access token, with the scopes the token was
// granted and the member's grants as they are now. A grant removed later takes effect at
// once through the feature gate (docs/decisions.md 3), which answers 403
// insufficient_permission (docs/contract.md section 5.6): the token still holds its scope, the member lacks
// the grant. It returns a apierr.Error with code unauthorized when the token is
// malformed, unknown, expired or revoked, its family or client is revoked or disabled, or
// its member is no longer active.
func (v *Verifier) Authenticate(ctx context.Context, bearer string) (*auth.Principal, error) {
	if !store.WellFormed(bearer, store.PrefixAccessToken) {
		return nil, apierr.Unauthorized("the access token is malformed")
	}
	a, err := v.s.db.OAuthAccessToken(ctx, store.HashSecret(bearer))
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, apierr.Unauthorized("the access token is unknown")
	}
	now := v.s.now()
	switch {
	case !a.Live:
		return nil, apierr.Unauthorized("the access token was revoked")
	case !now.Before(*a.Identity.Credential.ExpiresAt):
		return nil, apierr.Unauthorized("the access token expired; use the refresh token")
	case !a.ClientEnabled:
		return nil, apierr.Unauthorized("the app this token was issued to is disabled")
	case !a.MemberActive:
		return nil, apierr.Unauthorized("the member behind this token cannot sign in any more")
	}
	// "Last used" of the Connected apps page, written at most once a minute per family.
	if a.FamilyLastUsed == nil || now.Sub(*a.FamilyLastUsed) > time.Minute {
		if err := v.s.db.TouchOAuthFamily(ctx, a.FamilyID, now); err != nil {
			v.s.log.Warn("oauth: touch family", "err", err)
		}
	}
	return auth.FromIdentity(a.Identity), nil
}
