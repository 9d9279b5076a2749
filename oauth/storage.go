package oauth

import (
	"context"
	"time"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Storage is what the provider needs from the database, as small interfaces next to the
// flows that use them (the fosite manner); *store.Store implements them all (asserted in
// storage_test.go). Unless a method says otherwise, an error is a database failure, which
// the provider answers with server_error or its 500 page. Lookups answer nil, nil for
// "no such row": the flows turn that into their own protocol error.
type Storage interface {
	ClientStore
	AppStore
	MemberStore
	ConsentStore
	GrantStore
	TokenStore
	AppPolicyStore
	// WorkspaceName returns a workspace's name (admin and apps pages).
	WorkspaceName(ctx context.Context, id string) (string, error)
	// Setting returns a service setting, storing make() first when it has none (CSRF key).
	Setting(ctx context.Context, key string, make func() string) (string, error)
	// NotifyRevoked tells every process to flush its credential cache.
	NotifyRevoked(ctx context.Context, payload string) error
}

// ClientStore resolves and registers clients (authorize, token, register, cimd).
type ClientStore interface {
	// OAuthClient returns the client with id, or nil when there is none or it is disabled.
	// id must be storable (valid UTF-8 without NUL; see Server.registered).
	OAuthClient(ctx context.Context, id string) (*store.OAuthClient, error)
	// InsertOAuthClient stores a new client and, unless by is the zero By, the audit record
	// of the admin who registers it, in one transaction. A duplicate id is a unique
	// violation (*pgconn.PgError 23505).
	InsertOAuthClient(ctx context.Context, c *store.OAuthClient, by store.By) error
	// UpsertMetadataClient stores or refreshes a metadata-document client's row (ID, Name,
	// LogoURI, ClientURI, RedirectURIs, Scope, CreatedAt of c) and returns the row as
	// stored, DisabledAt included.
	UpsertMetadataClient(ctx context.Context, c *store.OAuthClient) (*store.OAuthClient, error)
}

// AppStore serves the admin apps page and the member's Connected apps page (apps.go).
type AppStore interface {
	// WorkspaceOAuthClients lists a workspace's admin-registered apps, newest first.
	WorkspaceOAuthClients(ctx context.Context, workspaceID string) ([]*store.OAuthClient, error)
	// RotateOAuthClientSecret replaces the secret of the workspace's enabled confidential
	// app and returns its name; pgx.ErrNoRows when the workspace has no such app.
	RotateOAuthClientSecret(ctx context.Context, clientID, workspaceID string, hash []byte) (string, error)
	// DisableOAuthClient disables the workspace's app and revokes its token families;
	// false, nil when the workspace has no such app.
	DisableOAuthClient(ctx context.Context, clientID, workspaceID string, now time.Time) (bool, error)
	// OAuthConnections lists the enabled apps userID authorised and did not revoke.
	OAuthConnections(ctx context.Context, userID string) ([]store.OAuthConnection, error)
	// RevokeOAuthConnection revokes every family userID granted clientID and forgets the
	// consent; revoking nothing is no error.
	RevokeOAuthConnection(ctx context.Context, userID, clientID string, now time.Time) error
	// PurgeOAuth deletes dynamic clients registered before unusedSince and never used, and
	// expired codes, sessions, tokens and families, counting each.
	PurgeOAuth(ctx context.Context, now, unusedSince time.Time) (store.OAuthPurge, error)
}

// MemberStore signs members in (session.go, upstream.go).
type MemberStore interface {
	// OAuthMemberByEmail returns the user with email (case-insensitive), or nil; email
	// must be storable.
	OAuthMemberByEmail(ctx context.Context, email string) (*store.OAuthMember, error)
	// LinkUpstream records a user's upstream identity unless one is linked already.
	LinkUpstream(ctx context.Context, userID, subject string) error
	// CreateOAuthSession starts a session lasting until expires; it returns the cookie value.
	CreateOAuthSession(ctx context.Context, userID, method string, now, expires time.Time) (string, error)
	// OAuthSessionMember returns the active human member of a live session, or nil for a
	// malformed, unknown or expired cookie, a suspended member or an agent.
	OAuthSessionMember(ctx context.Context, plain string, now time.Time) (*store.OAuthMember, error)
	// DeleteOAuthSession ends a session; an unknown one is no error.
	DeleteOAuthSession(ctx context.Context, plain string) error
}

// ConsentStore remembers approvals and issues codes (authorize.go).
type ConsentStore interface {
	// OAuthConsent returns the member's consent for a client, or nil.
	OAuthConsent(ctx context.Context, userID, clientID string) (*store.OAuthConsent, error)
	// PutOAuthConsent records an approval of scopes at redirectURI, remembering the last
	// keep redirect URIs while the scopes do not widen.
	PutOAuthConsent(ctx context.Context, userID, clientID string, scopes []string, redirectURI string, now time.Time, keep int) error
	// InsertOAuthCode stores an authorization code by its hash.
	InsertOAuthCode(ctx context.Context, hash []byte, c store.OAuthCode, now time.Time) error
}

// GrantStore runs the token endpoint's grants (token.go), each one statement that
// authenticates the client first and stores the pair only when it issues it. The outcome
// is in GrantResult.Outcome, never an error.
type GrantStore interface {
	GrantCode(ctx context.Context, g store.CodeGrant) (store.GrantResult, error)
	// GrantRefresh binds the access token it issues to g.Resource when the authorization
	// is unbound (RFC 8707 section 2.2), in the same statement.
	GrantRefresh(ctx context.Context, g store.RefreshGrant) (store.GrantResult, error)
	// CheckOAuthClient makes the grants' client check alone, for revocation and for token
	// requests refused before their grant: the outcome as a grant names it,
	// store.ClientAuthenticated when the client is authenticated.
	CheckOAuthClient(ctx context.Context, c store.GrantClient) (store.GrantOutcome, error)
}

// TokenStore checks and revokes tokens (verifier.go, revoke.go).
type TokenStore interface {
	// OAuthAccessToken returns the access token with hash and its principal, or nil.
	OAuthAccessToken(ctx context.Context, hash []byte) (*store.OAuthAccess, error)
	// TouchOAuthFamily records that a family's token was used at now.
	TouchOAuthFamily(ctx context.Context, familyID string, now time.Time) error
	// RevokeRefreshToken revokes the family of clientID's refresh token and returns its
	// id; "" when clientID has no such token (RFC 7009: not an error).
	RevokeRefreshToken(ctx context.Context, clientID string, hash []byte, now time.Time) (string, error)
	// RevokeAccessToken revokes clientID's access token and returns its id; "" when
	// clientID has no such token.
	RevokeAccessToken(ctx context.Context, clientID string, hash []byte, now time.Time) (string, error)
}

// The rows the flows work with are store's; the provider's names for them follow.
type (
	// member is a user as the sign-in pages see it.
	member = store.OAuthMember
	// consent is what a member approved for a client.
	consent = store.OAuthConsent
	// code is an authorization code's row.
	code = store.OAuthCode
)

// principalOf is the principal of a signed-in member, for the rules that read one (its
// role, its grantable scopes, the By of its changes).
func principalOf(m *member) *auth.Principal { return auth.FromIdentity(&m.Identity) }

// maxConsentRedirects bounds the redirect URIs a consent remembers: loopback clients pick
// a new port per run, and only the recent ones matter.
const maxConsentRedirects = 10

// pair is an issued access and refresh token.
type pair struct {
	Access, Refresh string
	Scopes          []string
}

// registered returns the registered client with id, or nil when there is none, it is
// disabled, or id cannot name a stored row.
func (s *Server) registered(ctx context.Context, id string) (*Client, error) {
	if !clientIDValid(id) {
		return nil, nil
	}
	c, err := s.db.OAuthClient(ctx, id)
	return (*Client)(c), err
}

// clientIDValid reports whether id can name a stored client.
func clientIDValid(id string) bool { return id != "" && len(id) <= 200 && storable(id) }

// memberByEmail returns the user with email, or nil.
func (s *Server) memberByEmail(ctx context.Context, email string) (*member, error) {
	if !storable(email) {
		return nil, nil
	}
	return s.db.OAuthMemberByEmail(ctx, email)
}
