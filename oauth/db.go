package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agencyos/workspaced/store"
)

// db is the provider's SQL over the credential tables of store/migrations/00002_oauth.sql.
// These tables are outside row-level security (the request role cannot reach them), so the
// statements run on the pool directly, before any actor exists.
type db struct {
	pool *pgxpool.Pool
}

const clientColumns = `id, coalesce(workspace_id::text, ''), name, coalesce(logo_uri, ''), coalesce(client_uri, ''),
	redirect_uris, scope, secret_hash, verified, dynamic, created_at, last_used_at, disabled_at`

func scanClient(row pgx.Row) (*Client, error) {
	c := &Client{}
	err := row.Scan(&c.ID, &c.WorkspaceID, &c.Name, &c.LogoURI, &c.ClientURI, &c.RedirectURIs, &c.Scope, &c.SecretHash,
		&c.Verified, &c.Dynamic, &c.CreatedAt, &c.LastUsedAt, &c.DisabledAt)
	return c, err
}

// client returns the client with id, or nil when there is none or it is disabled.
func (d *db) client(ctx context.Context, id string) (*Client, error) {
	if id == "" || len(id) > 200 || !storable(id) {
		return nil, nil
	}
	c, err := scanClient(d.pool.QueryRow(ctx, `SELECT `+clientColumns+` FROM oauth_clients WHERE id = $1`, id))
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

func (d *db) insertClient(ctx context.Context, c *Client, createdBy string) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO oauth_clients (id, workspace_id, name, logo_uri, client_uri, redirect_uris, scope,
			secret_hash, verified, dynamic, created_by, created_at)
		VALUES ($1, nullif($2, '')::uuid, $3, nullif($4, ''), nullif($5, ''), $6, $7, $8, $9, $10, nullif($11, '')::uuid, $12)`,
		c.ID, c.WorkspaceID, c.Name, c.LogoURI, c.ClientURI, c.RedirectURIs, c.Scope, c.SecretHash, c.Verified, c.Dynamic,
		createdBy, c.CreatedAt)
	return err
}

// member is a user as the sign-in pages see it.
type member struct {
	store.Principal
	Status       string
	PasswordHash string
	Upstream     string
}

const memberColumns = `u.id::text, u.workspace_id::text, u.email, coalesce(u.display_name, ''), u.role, u.is_agent,
	u.grants, u.status, coalesce(p.hash, ''), coalesce(u.upstream_subject, '')`

func scanMember(row pgx.Row) (*member, error) {
	m := &member{}
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

// memberByEmail returns the user with email (case-insensitive), or nil.
func (d *db) memberByEmail(ctx context.Context, email string) (*member, error) {
	if !storable(email) {
		return nil, nil
	}
	return scanMember(d.pool.QueryRow(ctx, `SELECT `+memberColumns+`
		FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id WHERE lower(u.email) = lower($1)`, email))
}

// Sessions ---------------------------------------------------------------------------

func (d *db) createSession(ctx context.Context, userID, method string, now time.Time) (string, error) {
	plain, hash := store.NewSecret("wss_")
	_, err := d.pool.Exec(ctx, `INSERT INTO oauth_sessions (token_hash, user_id, method, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, hash, userID, method, now, now.Add(SessionTTL))
	return plain, err
}

// sessionMember returns the active member a session cookie belongs to, or nil.
func (d *db) sessionMember(ctx context.Context, plain string, now time.Time) (*member, error) {
	if !store.WellFormed(plain, "wss_") {
		return nil, nil
	}
	m, err := scanMember(d.pool.QueryRow(ctx, `SELECT `+memberColumns+`
		FROM oauth_sessions s JOIN users u ON u.id = s.user_id LEFT JOIN user_passwords p ON p.user_id = u.id
		WHERE s.token_hash = $1 AND s.expires_at > $2`, store.HashSecret(plain), now))
	if err != nil || m == nil {
		return nil, err
	}
	if m.Status != "active" || m.IsAgent {
		return nil, nil
	}
	return m, nil
}

func (d *db) deleteSession(ctx context.Context, plain string) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM oauth_sessions WHERE token_hash = $1`, store.HashSecret(plain))
	return err
}

// Consents ---------------------------------------------------------------------------

// consent is what a member approved for a client: the scopes, and the exact redirect URIs
// (port included) the approval was given at, most recent last.
type consent struct {
	Scopes       []string
	RedirectURIs []string
}

// maxConsentRedirects bounds the redirect URIs a consent remembers: loopback clients pick
// a new port per run, and only the recent ones matter.
const maxConsentRedirects = 10

// consent returns the member's consent for a client, or nil.
func (d *db) consent(ctx context.Context, userID, clientID string) (*consent, error) {
	c := &consent{}
	err := d.pool.QueryRow(ctx, `SELECT scopes, redirect_uris FROM oauth_consents WHERE user_id = $1 AND client_id = $2`,
		userID, clientID).Scan(&c.Scopes, &c.RedirectURIs)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// putConsent records an approval of scopes at redirectURI. The redirect URIs approved
// before are kept only when the new scopes are no wider than the old ones: they were
// approved for those scopes, not for more.
func (d *db) putConsent(ctx context.Context, userID, clientID string, scopes []string, redirectURI string, now time.Time) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO oauth_consents (user_id, client_id, scopes, redirect_uris, updated_at)
		VALUES ($1, $2, $3, ARRAY[$4::text], $5)
		ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at,
			redirect_uris = CASE WHEN excluded.scopes <@ oauth_consents.scopes
				THEN (array_remove(oauth_consents.redirect_uris, $4::text) || $4::text)[greatest(1, cardinality(array_remove(oauth_consents.redirect_uris, $4::text)) + 2 - $6):]
				ELSE excluded.redirect_uris END`,
		userID, clientID, scopes, redirectURI, now, maxConsentRedirects)
	return err
}

// Codes --------------------------------------------------------------------------------

// code is an authorization code's row.
type code struct {
	ClientID, UserID, WorkspaceID string
	RedirectURI                   string
	RedirectGiven                 bool
	Challenge                     string
	Scopes                        []string
	Resource                      string
	ExpiresAt                     time.Time
}

func (d *db) insertCode(ctx context.Context, hash []byte, c code, now time.Time) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO oauth_codes (code_hash, client_id, user_id, workspace_id, redirect_uri,
			redirect_uri_given, code_challenge, scopes, resource, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, hash, c.ClientID, c.UserID, c.WorkspaceID, c.RedirectURI,
		c.RedirectGiven, c.Challenge, c.Scopes, c.Resource, now, c.ExpiresAt)
	return err
}

// Tokens -------------------------------------------------------------------------------

// pair is an issued access and refresh token.
type pair struct {
	Access, Refresh string
	Scopes          []string
}

// revokeFamily kills a family and every token in it.
func (d *db) revokeFamily(ctx context.Context, familyID string, now time.Time) error {
	_, err := d.pool.Exec(ctx, `SELECT oauth_revoke_family($1, $2)`, familyID, now)
	return err
}
