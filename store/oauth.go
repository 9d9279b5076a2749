package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// The OAuth provider's SQL over the credential tables of migrations/00002_oauth.sql. These
// tables are outside row-level security (the request role cannot reach them), so the
// statements run on the pool directly, before any actor exists. package oauth declares
// the interfaces these methods satisfy (oauth/storage.go) and documents their contracts.

// OAuthClient is a registered OAuth client's row.
type OAuthClient struct {
	ID           string
	WorkspaceID  string // the owning workspace of an admin app; "" for dynamic clients
	Name         string
	LogoURI      string
	ClientURI    string
	RedirectURIs []string
	Scope        []string // nil: the whole catalogue may be requested
	SecretHash   []byte   // nil: public client
	Verified     bool
	Dynamic      bool
	CreatedAt    time.Time
	LastUsedAt   *time.Time
	DisabledAt   *time.Time
}

const clientColumns = `id, coalesce(workspace_id::text, ''), name, coalesce(logo_uri, ''), coalesce(client_uri, ''),
	redirect_uris, scope, secret_hash, verified, dynamic, created_at, last_used_at, disabled_at`

func scanClient(row pgx.Row) (*OAuthClient, error) {
	c := &OAuthClient{}
	err := row.Scan(&c.ID, &c.WorkspaceID, &c.Name, &c.LogoURI, &c.ClientURI, &c.RedirectURIs, &c.Scope, &c.SecretHash,
		&c.Verified, &c.Dynamic, &c.CreatedAt, &c.LastUsedAt, &c.DisabledAt)
	return c, err
}

// OAuthClient returns the client with id, or nil when there is none or it is disabled.
func (s *Store) OAuthClient(ctx context.Context, id string) (*OAuthClient, error) {
	c, err := scanClient(s.pool.QueryRow(ctx, `SELECT `+clientColumns+` FROM oauth_clients WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if c.DisabledAt != nil {
		return nil, nil
	}
	return c, nil
}

// InsertOAuthClient stores a new client. by is who registers it: an admin-registered app is
// an administration change, recorded in activity in the same transaction with by.UserID as
// its created_by (docs/console.md, "Audit log"); the zero By (a client registering itself)
// records nothing.
func (s *Store) InsertOAuthClient(ctx context.Context, c *OAuthClient, by By) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_clients (id, workspace_id, name, logo_uri, client_uri, redirect_uris, scope,
				secret_hash, verified, dynamic, created_by, created_at)
			VALUES ($1, nullif($2, '')::uuid, $3, nullif($4, ''), nullif($5, ''), $6, $7, $8, $9, $10, nullif($11, '')::uuid, $12)`,
			c.ID, c.WorkspaceID, c.Name, c.LogoURI, c.ClientURI, c.RedirectURIs, c.Scope, c.SecretHash, c.Verified, c.Dynamic,
			by.UserID, c.CreatedAt); err != nil {
			return err
		}
		return record(ctx, tx, c.WorkspaceID, by, audit{entityType: EntityOAuthClients, action: "created",
			changes: map[string]any{"client_id": c.ID, "name": c.Name, "redirect_uris": c.RedirectURIs, "confidential": c.SecretHash != nil}})
	})
}

// UpsertMetadataClient stores or refreshes the row of a Client ID Metadata Document client
// (public, unverified, dynamic) and returns it as stored, disabled or not.
func (s *Store) UpsertMetadataClient(ctx context.Context, c *OAuthClient) (*OAuthClient, error) {
	return scanClient(s.pool.QueryRow(ctx, `INSERT INTO oauth_clients
			(id, name, logo_uri, client_uri, redirect_uris, scope, verified, dynamic, created_at)
		VALUES ($1, $2, nullif($3, ''), nullif($4, ''), $5, $6, false, true, $7)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, logo_uri = excluded.logo_uri,
			client_uri = excluded.client_uri, redirect_uris = excluded.redirect_uris, scope = excluded.scope
		RETURNING `+clientColumns, c.ID, c.Name, c.LogoURI, c.ClientURI, c.RedirectURIs, c.Scope, c.CreatedAt))
}

// WorkspaceOAuthClients lists the apps a workspace's admins registered, newest first.
func (s *Store) WorkspaceOAuthClients(ctx context.Context, workspaceID string) ([]*OAuthClient, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+clientColumns+` FROM oauth_clients WHERE workspace_id = $1 ORDER BY created_at DESC`, workspaceID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*OAuthClient
	for rows.Next() {
		c, err := scanClient(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RotateOAuthClientSecret replaces the secret of a workspace's enabled confidential app
// and returns its name; pgx.ErrNoRows when there is no such app.
func (s *Store) RotateOAuthClientSecret(ctx context.Context, clientID, workspaceID string, hash []byte) (string, error) {
	var name string
	err := s.pool.QueryRow(ctx, `UPDATE oauth_clients SET secret_hash = $3 WHERE id = $1 AND workspace_id = $2
		AND secret_hash IS NOT NULL AND disabled_at IS NULL RETURNING name`, clientID, workspaceID, hash).Scan(&name)
	return name, err
}

// DisableOAuthClient disables a workspace's app and revokes every token family issued to
// it; false when the workspace has no such app.
func (s *Store) DisableOAuthClient(ctx context.Context, clientID, workspaceID string, now time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE oauth_clients SET disabled_at = coalesce(disabled_at, $3)
		WHERE id = $1 AND workspace_id = $2`, clientID, workspaceID, now)
	if err != nil || tag.RowsAffected() == 0 {
		return false, err
	}
	_, err = s.pool.Exec(ctx, `UPDATE oauth_families SET revoked_at = $2 WHERE client_id = $1 AND revoked_at IS NULL`, clientID, now)
	return err == nil, err
}

// OAuthConnection is an app a member authorised and has not revoked.
type OAuthConnection struct {
	ClientID, Name string
	Verified       bool
	Scopes         []string // of the most recent authorization
	Authorised     time.Time
	LastUsed       *time.Time
}

// OAuthConnections lists the enabled apps userID authorised, most recently used first.
func (s *Store) OAuthConnections(ctx context.Context, userID string) ([]OAuthConnection, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.id, c.name, c.verified, latest.scopes, agg.created, agg.last
		FROM (SELECT client_id, min(created_at) AS created, max(last_used_at) AS last FROM oauth_families
			WHERE user_id = $1 AND revoked_at IS NULL GROUP BY client_id) agg
		JOIN oauth_clients c ON c.id = agg.client_id
		CROSS JOIN LATERAL (SELECT f.scopes FROM oauth_families f WHERE f.user_id = $1 AND f.client_id = agg.client_id
			AND f.revoked_at IS NULL ORDER BY f.created_at DESC LIMIT 1) latest
		WHERE c.disabled_at IS NULL ORDER BY agg.last DESC NULLS LAST, c.name`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OAuthConnection
	for rows.Next() {
		var a OAuthConnection
		if err := rows.Scan(&a.ClientID, &a.Name, &a.Verified, &a.Scopes, &a.Authorised, &a.LastUsed); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// RevokeOAuthConnection revokes every token family userID granted clientID and forgets the
// consent, in one statement.
func (s *Store) RevokeOAuthConnection(ctx context.Context, userID, clientID string, now time.Time) error {
	return s.RevokeOAuthConnections(ctx, userID, []string{clientID}, now, By{})
}

// RevokeOAuthConnections revokes what userID gave each of clientIDs (RevokeOAuthConnection)
// in one transaction, recording each client revoked for by.
func (s *Store) RevokeOAuthConnections(ctx context.Context, userID string, clientIDs []string, now time.Time, by By) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var workspaceID string
		if by.Via != "" {
			if err := tx.QueryRow(ctx, `SELECT workspace_id::text FROM users WHERE id = $1`, userID).Scan(&workspaceID); err != nil {
				return err
			}
		}
		for _, clientID := range clientIDs {
			if _, err := tx.Exec(ctx, `WITH f AS (UPDATE oauth_families SET revoked_at = $3
					WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING id),
				r AS (UPDATE oauth_refresh_tokens SET revoked_at = $3 WHERE family_id IN (SELECT id FROM f) AND revoked_at IS NULL),
				a AS (UPDATE oauth_access_tokens SET revoked_at = $3 WHERE family_id IN (SELECT id FROM f) AND revoked_at IS NULL)
				DELETE FROM oauth_consents WHERE user_id = $1 AND client_id = $2`, userID, clientID, now); err != nil {
				return err
			}
			if err := record(ctx, tx, workspaceID, by, audit{entityType: EntityOAuthConnected, entityID: userID, action: "detached",
				changes: map[string]any{"client_id": clientID}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// OAuthPurge counts what PurgeOAuth removed.
type OAuthPurge struct {
	Clients, Codes, Sessions, Families, AccessTokens int64
}

// PurgeOAuth deletes dynamic clients registered before unusedSince and never used, and
// expired codes, sessions, access tokens and token families.
func (s *Store) PurgeOAuth(ctx context.Context, now, unusedSince time.Time) (OAuthPurge, error) {
	var out OAuthPurge
	for _, q := range []struct {
		n   *int64
		sql string
		arg time.Time
	}{
		{&out.Clients, `DELETE FROM oauth_clients WHERE dynamic AND last_used_at IS NULL AND created_at < $1`, unusedSince},
		{&out.Codes, `DELETE FROM oauth_codes WHERE expires_at < $1`, now.Add(-time.Hour)},
		{&out.Sessions, `DELETE FROM oauth_sessions WHERE expires_at < $1`, now},
		{&out.AccessTokens, `DELETE FROM oauth_access_tokens WHERE expires_at < $1`, now.Add(-24 * time.Hour)},
		{&out.Families, `DELETE FROM oauth_families f WHERE coalesce(f.revoked_at, $1::timestamptz) < $1::timestamptz - interval '30 days'
			OR (f.created_at < $1::timestamptz - interval '31 days'
				AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens r WHERE r.family_id = f.id AND r.expires_at > $1))`, now},
	} {
		tag, err := s.pool.Exec(ctx, q.sql, q.arg)
		if err != nil {
			return out, err
		}
		*q.n = tag.RowsAffected()
	}
	return out, nil
}

// Members and sessions -----------------------------------------------------------------

// OAuthMember is a user as the sign-in pages see it.
type OAuthMember struct {
	Identity
	Status       string
	PasswordHash string
	Upstream     string // the linked upstream identity, issuer|subject, or ""
}

const memberColumns = `u.id::text, u.workspace_id::text, u.email, coalesce(u.display_name, ''), u.role, u.is_agent,
	u.grants, u.status, coalesce(p.hash, ''), coalesce(u.upstream_subject, '')`

func scanMember(row pgx.Row) (*OAuthMember, error) {
	m := &OAuthMember{}
	var grants []byte
	err := row.Scan(&m.UserID, &m.WorkspaceID, &m.Email, &m.DisplayName, &m.Role, &m.IsAgent, &grants, &m.Status,
		&m.PasswordHash, &m.Upstream)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(grants, &m.Grants); err != nil {
		return nil, err
	}
	return m, nil
}

// OAuthMemberByEmail returns the user with email (case-insensitive), or nil: the
// address's account when it has one (active or suspended, at most one: users_email), else
// its oldest invitation (an address may be invited by several workspaces).
func (s *Store) OAuthMemberByEmail(ctx context.Context, email string) (*OAuthMember, error) {
	return scanMember(s.pool.QueryRow(ctx, `SELECT `+memberColumns+`
		FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id WHERE lower(u.email) = lower($1)
		ORDER BY u.status = 'invited', u.created_at, u.id LIMIT 1`, email))
}

// LinkUpstream records the upstream identity of a user not linked yet.
func (s *Store) LinkUpstream(ctx context.Context, userID, subject string) error {
	_, err := s.pool.Exec(ctx, `UPDATE users SET upstream_subject = $2 WHERE id = $1 AND upstream_subject IS NULL`, userID, subject)
	return err
}

// CreateOAuthSession starts a sign-in session until expires and returns its cookie value.
func (s *Store) CreateOAuthSession(ctx context.Context, userID, method string, now, expires time.Time) (string, error) {
	plain, hash := NewSecret("wss_")
	_, err := s.pool.Exec(ctx, `INSERT INTO oauth_sessions (token_hash, user_id, method, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, hash, userID, method, now, expires)
	return plain, err
}

// OAuthSessionMember returns the active human member a session cookie belongs to, or nil.
func (s *Store) OAuthSessionMember(ctx context.Context, plain string, now time.Time) (*OAuthMember, error) {
	if !WellFormed(plain, "wss_") {
		return nil, nil
	}
	m, err := scanMember(s.pool.QueryRow(ctx, `SELECT `+memberColumns+`
		FROM oauth_sessions s JOIN users u ON u.id = s.user_id LEFT JOIN user_passwords p ON p.user_id = u.id
		WHERE s.token_hash = $1 AND s.expires_at > $2`, HashSecret(plain), now))
	if err != nil || m == nil {
		return nil, err
	}
	if m.Status != "active" || m.IsAgent {
		return nil, nil
	}
	m.Credential = sessionCredential(plain)
	return m, nil
}

// sessionCredential names a sign-in session for the audit log (console:<id>): the first 16
// hex digits of its cookie's SHA-256, which tell sessions apart without being usable.
func sessionCredential(plain string) Credential {
	return Credential{Type: "console", ID: hex.EncodeToString(HashSecret(plain)[:8])}
}

// DeleteOAuthSession ends a session; an unknown one is no error.
func (s *Store) DeleteOAuthSession(ctx context.Context, plain string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM oauth_sessions WHERE token_hash = $1`, HashSecret(plain))
	return err
}

// Consents and codes -------------------------------------------------------------------

// OAuthConsent is what a member approved for a client: the scopes, and the exact redirect
// URIs (port included) the approval was given at, most recent last.
type OAuthConsent struct {
	Scopes       []string
	RedirectURIs []string
}

// OAuthConsent returns the member's consent for a client, or nil.
func (s *Store) OAuthConsent(ctx context.Context, userID, clientID string) (*OAuthConsent, error) {
	c := &OAuthConsent{}
	err := s.pool.QueryRow(ctx, `SELECT scopes, redirect_uris FROM oauth_consents WHERE user_id = $1 AND client_id = $2`,
		userID, clientID).Scan(&c.Scopes, &c.RedirectURIs)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// PutOAuthConsent records an approval of scopes at redirectURI, remembering at most keep
// redirect URIs. The redirect URIs approved before are kept only when the new scopes are
// no wider than the old ones: they were approved for those scopes, not for more.
func (s *Store) PutOAuthConsent(ctx context.Context, userID, clientID string, scopes []string, redirectURI string, now time.Time, keep int) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO oauth_consents (user_id, client_id, scopes, redirect_uris, updated_at)
		VALUES ($1, $2, $3, ARRAY[$4::text], $5)
		ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at,
			redirect_uris = CASE WHEN excluded.scopes <@ oauth_consents.scopes
				THEN (array_remove(oauth_consents.redirect_uris, $4::text) || $4::text)[greatest(1, cardinality(array_remove(oauth_consents.redirect_uris, $4::text)) + 2 - $6):]
				ELSE excluded.redirect_uris END`,
		userID, clientID, scopes, redirectURI, now, keep)
	return err
}

// OAuthCode is an authorization code's row.
type OAuthCode struct {
	ClientID, UserID, WorkspaceID string
	RedirectURI                   string
	RedirectGiven                 bool
	Challenge                     string
	Scopes                        []string
	Resource                      string
	ExpiresAt                     time.Time
}

// InsertOAuthCode stores a code by its hash.
func (s *Store) InsertOAuthCode(ctx context.Context, hash []byte, c OAuthCode, now time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO oauth_codes (code_hash, client_id, user_id, workspace_id, redirect_uri,
			redirect_uri_given, code_challenge, scopes, resource, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, hash, c.ClientID, c.UserID, c.WorkspaceID, c.RedirectURI,
		c.RedirectGiven, c.Challenge, c.Scopes, c.Resource, now, c.ExpiresAt)
	return err
}

// Grants and tokens --------------------------------------------------------------------

// OAuthPair is the hashes and lifetimes of the token pair a grant issues if it may.
type OAuthPair struct {
	RefreshHash, AccessHash       []byte
	RefreshExpires, AccessExpires time.Time
}

// GrantClient is what a token request says about its client; the grant functions
// authenticate it before anything else (oauth_client_check, 00017).
type GrantClient struct {
	ID string
	// SecretHash is nil when the request sent no secret, HashSecret of a well-formed one,
	// and empty (not nil) for a malformed one, which matches no client.
	SecretHash []byte
}

// CodeGrant is the input of the authorization code grant (oauth_code_grant, 00017).
type CodeGrant struct {
	Client      GrantClient
	CodeHash    []byte
	Now         time.Time
	RequestOK   bool    // the request passed every check that does not need the code's row
	RedirectURI *string // as the token request gave it, nil when absent
	Challenge   string  // S256 of the code verifier
	Resource    string
	Pair        OAuthPair
}

// RefreshGrant is the input of the refresh grant (oauth_refresh_grant, 00017).
type RefreshGrant struct {
	Client     GrantClient
	TokenHash  []byte
	Now        time.Time
	GraceStart time.Time // a pair superseded after it is still honoured
	Scopes     []string  // requested narrowing; nil keeps the token's
	Resource   string
	Pair       OAuthPair
}

// GrantResult is what a grant function answered: the rule that decided (Outcome), the
// family concerned, the scopes granted (or the token's, when a narrowing failed) and the
// resource the authorization is bound to.
type GrantResult struct {
	Outcome GrantOutcome
	Family  *string
	Granted []string
	Bound   string
}

const grantColumns = `SELECT outcome, family::text, granted, coalesce(bound, '') FROM `

func scanGrant(row pgx.Row) (GrantResult, error) {
	var g GrantResult
	err := row.Scan(&g.Outcome, &g.Family, &g.Granted, &g.Bound)
	return g, err
}

// GrantCode authenticates the client and runs the authorization code grant in one
// statement: it stores the pair only if it issues it.
func (s *Store) GrantCode(ctx context.Context, g CodeGrant) (GrantResult, error) {
	return scanGrant(s.pool.QueryRow(ctx, grantColumns+`oauth_code_grant($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		g.Client.ID, g.Client.SecretHash, g.CodeHash, g.Now, g.RequestOK, g.RedirectURI, g.Challenge, g.Resource,
		g.Pair.RefreshHash, g.Pair.AccessHash, g.Pair.RefreshExpires, g.Pair.AccessExpires))
}

// GrantRefresh authenticates the client and runs the refresh grant in one statement: it
// stores the pair only if it issues it, its access token bound to g.Resource when the
// family is unbound (RFC 8707 section 2.2; the family stays unbound), per migration 00038.
func (s *Store) GrantRefresh(ctx context.Context, g RefreshGrant) (GrantResult, error) {
	return scanGrant(s.pool.QueryRow(ctx, grantColumns+`oauth_refresh_grant($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		g.Client.ID, g.Client.SecretHash, g.TokenHash, g.Now, g.GraceStart, g.Scopes, g.Resource,
		g.Pair.RefreshHash, g.Pair.AccessHash, g.Pair.RefreshExpires, g.Pair.AccessExpires))
}

// CheckOAuthClient authenticates a client as the grant functions do (oauth_client_check,
// 00017): ClientAuthenticated, else the outcome naming why not.
func (s *Store) CheckOAuthClient(ctx context.Context, c GrantClient) (GrantOutcome, error) {
	var outcome GrantOutcome
	err := s.pool.QueryRow(ctx, `SELECT coalesce(oauth_client_check($1, $2), '')`, c.ID, c.SecretHash).Scan(&outcome)
	return outcome, err
}

// RevokeRefreshToken revokes the family of clientID's refresh token with hash and every
// token in it, and returns the family's id; "" when clientID has no such token.
func (s *Store) RevokeRefreshToken(ctx context.Context, clientID string, hash []byte, now time.Time) (string, error) {
	var familyID string
	err := s.pool.QueryRow(ctx, `SELECT f.id::text FROM oauth_refresh_tokens r JOIN oauth_families f ON f.id = r.family_id
		WHERE r.token_hash = $1 AND f.client_id = $2`, hash, clientID).Scan(&familyID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	_, err = s.pool.Exec(ctx, `SELECT oauth_revoke_family($1, $2)`, familyID, now)
	return familyID, err
}

// RevokeAccessToken revokes clientID's access token with hash and returns its id; "" when
// clientID has no such token.
func (s *Store) RevokeAccessToken(ctx context.Context, clientID string, hash []byte, now time.Time) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `UPDATE oauth_access_tokens a SET revoked_at = coalesce(a.revoked_at, $3)
		FROM oauth_families f WHERE f.id = a.family_id AND a.token_hash = $1 AND f.client_id = $2 RETURNING a.id::text`,
		hash, clientID, now).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// OAuthAccess is an access token's row with what decides whether it still works.
type OAuthAccess struct {
	Identity       *Identity // Credential.ExpiresAt and Scopes filled in
	FamilyID       string
	FamilyLastUsed *time.Time
	Live           bool // neither the token nor its family is revoked
	ClientEnabled  bool
	MemberActive   bool
}

// OAuthAccessToken returns the access token with hash, or nil when there is none.
func (s *Store) OAuthAccessToken(ctx context.Context, hash []byte) (*OAuthAccess, error) {
	p := &Identity{Credential: Credential{Type: "oauth"}}
	a := &OAuthAccess{Identity: p}
	var grants []byte
	var expires time.Time
	err := s.pool.QueryRow(ctx, `SELECT a.id::text, a.scopes, a.expires_at, a.revoked_at IS NULL AND f.revoked_at IS NULL,
			f.id::text, f.client_id, c.name, coalesce(a.resource, f.resource, ''), f.last_used_at, c.disabled_at IS NULL,
			u.id::text, u.workspace_id::text, u.email, coalesce(u.display_name, ''), u.role, u.is_agent, u.grants,
			u.status = 'active'
		FROM oauth_access_tokens a JOIN oauth_families f ON f.id = a.family_id
		JOIN oauth_clients c ON c.id = f.client_id JOIN users u ON u.id = f.user_id
		WHERE a.token_hash = $1`, hash).Scan(&p.Credential.ID, &p.Scopes, &expires, &a.Live,
		&a.FamilyID, &p.Credential.ClientID, &p.Credential.ClientName, &p.Credential.Resource, &a.FamilyLastUsed, &a.ClientEnabled,
		&p.UserID, &p.WorkspaceID, &p.Email, &p.DisplayName, &p.Role, &p.IsAgent, &grants, &a.MemberActive)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p.Credential.ExpiresAt = &expires
	return a, json.Unmarshal(grants, &p.Grants)
}

// TouchOAuthFamily records that a family's token was used at now.
func (s *Store) TouchOAuthFamily(ctx context.Context, familyID string, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE oauth_families SET last_used_at = $2 WHERE id = $1`, familyID, now)
	return err
}
