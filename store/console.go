package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agencyos/workspaced/apierr"
)

// MemberRow is one line of the console's member list (admin.Ops.Members).
type MemberRow struct {
	UserID     string
	Email      string
	Name       string
	Role       string
	Status     string
	Grants     map[string]string
	HasPass    bool
	LastSignIn *time.Time
	CreatedAt  time.Time
}

// WorkspaceMembers lists a workspace's human members (agents have their own page), oldest
// first.
func (s *Store) WorkspaceMembers(ctx context.Context, workspaceID string) ([]MemberRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT u.id::text, u.email, coalesce(u.display_name, ''), u.role, u.status, u.grants,
			p.user_id IS NOT NULL, l.last_at, u.created_at
		FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id LEFT JOIN member_sign_ins l ON l.user_id = u.id
		WHERE u.workspace_id = $1 AND NOT u.is_agent ORDER BY u.created_at, u.id`, workspaceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (MemberRow, error) {
		var m MemberRow
		var grants []byte
		if err := row.Scan(&m.UserID, &m.Email, &m.Name, &m.Role, &m.Status, &grants, &m.HasPass, &m.LastSignIn, &m.CreatedAt); err != nil {
			return m, err
		}
		return m, json.Unmarshal(grants, &m.Grants)
	})
}

// MemberLink is a link that lets a member set a password: an invitation or a reset.
type MemberLink struct {
	UserID  string
	Purpose string // invite or reset
	Hash    []byte // SHA-256 of the link's secret (HashSecret)
	Expires time.Time
	// By is who makes the link: an admin (its user id is the link's created_by), or the
	// zero By for the member asking for a reset.
	By By
}

// NoMember is the not_found answer for a user id that is no (human) member of the
// workspace at hand, worded once for the console, the CLI and the store.
func NoMember(userID string) error {
	return apierr.NotFound("no member %q in this workspace", userID)
}

// CreateMemberLink stores a link for a human member of workspaceID (a reset link for an
// active one only). It returns a not_found Error when the workspace has no such member (an
// agent is no member here).
func (s *Store) CreateMemberLink(ctx context.Context, workspaceID string, l MemberLink) error {
	return mapAdminError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO member_links (token_hash, user_id, purpose, created_by, expires_at)
			SELECT $3, u.id, $4, nullif($5, '')::uuid, $6 FROM users u WHERE u.id = $2 AND u.workspace_id = $1 AND NOT u.is_agent
				AND ($4 = 'invite' OR u.status = 'active')`,
			workspaceID, l.UserID, l.Hash, l.Purpose, l.By.UserID, l.Expires)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return NoMember(l.UserID)
		}
		return record(ctx, tx, workspaceID, l.By, audit{entityType: EntityMemberLinks, entityID: l.UserID, action: "created",
			changes: map[string]any{"purpose": l.Purpose, "expires_at": l.Expires.UTC()}})
	}))
}

// PeekMemberLink returns the member a live, unused link of purpose belongs to, without
// using it (the page that asks for the new password); nil when there is none.
func (s *Store) PeekMemberLink(ctx context.Context, hash []byte, purpose string, now time.Time) (*OAuthMember, error) {
	return scanMember(s.pool.QueryRow(ctx, `SELECT `+memberColumns+`
		FROM member_links k JOIN users u ON u.id = k.user_id LEFT JOIN user_passwords p ON p.user_id = u.id
		WHERE k.token_hash = $1 AND k.purpose = $2 AND k.used_at IS NULL AND k.expires_at > $3
			AND (u.status = 'active' OR (k.purpose = 'invite' AND u.status = 'invited'))`, hash, purpose, now))
}

// RedeemMemberLink uses a live link of purpose once: it sets the member's password to
// passwordHash, activates an invited member (an invitation only; a suspended member stays
// suspended), retires every other link of the member for the same purpose, and returns the
// member. Every session of the member ends, and every token and pending code the member
// gave apps is revoked (signOutEverywhere). It returns nil when the link is unknown, used, expired or of another purpose.
// The use is recorded in activity as the member's own change through the console, its
// credential the link (linkCredential), in the same transaction.
func (s *Store) RedeemMemberLink(ctx context.Context, hash []byte, purpose, passwordHash string, now time.Time) (*OAuthMember, error) {
	var userID, workspaceID string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE member_links k SET used_at = $3 FROM users u
			WHERE k.token_hash = $1 AND k.purpose = $2 AND k.used_at IS NULL AND k.expires_at > $3 AND u.id = k.user_id
				AND (u.status = 'active' OR (k.purpose = 'invite' AND u.status = 'invited'))
			RETURNING k.user_id::text, u.workspace_id::text`, hash, purpose, now).Scan(&userID, &workspaceID)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE member_links SET used_at = $3 WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL`,
			userID, purpose, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET status = 'active' WHERE id = $1 AND status = 'invited'`, userID); err != nil {
			// users_email: the address has an account in another workspace, and an address
			// has one account (docs/console.md, "Invitations").
			if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "23505" {
				return apierr.Errorf(apierr.CodeForbidden, "this address already has an account here, in another workspace, and an address has one account; "+
					"sign in with it there, or ask the admin who invited you to invite another address of yours")
			}
			return err
		}
		// A new password ends every session signed in with the old one and revokes what
		// those sessions gave apps (someone who knew it may hold either); the caller signs
		// this browser in afresh.
		if err := signOutEverywhere(ctx, tx, userID, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO user_passwords (user_id, hash) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = now()`, userID, passwordHash); err != nil {
			return err
		}
		by := By{UserID: userID, Credential: linkCredential(hash), Via: ViaConsole}
		return record(ctx, tx, workspaceID, by, audit{entityType: EntityMemberLinks, entityID: userID, action: "used",
			changes: map[string]any{"purpose": purpose}})
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return scanMember(s.pool.QueryRow(ctx, `SELECT `+memberColumns+`
		FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id WHERE u.id = $1`, userID))
}

// signOutEverywhere ends every sign-in session of userID, revokes every token family the
// member gave apps (each family's access and refresh tokens with it) and drops the codes
// they have not exchanged yet, then tells every process to drop cached credentials, so an
// access token stops at once. Agent keys belong to agents, not to the member, and stay.
// Consents stay too: an app asks again only for what was never approved.
func signOutEverywhere(ctx context.Context, tx pgx.Tx, userID string, now time.Time) error {
	_, err := tx.Exec(ctx, `WITH s AS (DELETE FROM oauth_sessions WHERE user_id = $1),
			c AS (DELETE FROM oauth_codes WHERE user_id = $1 AND used_at IS NULL),
			f AS (UPDATE oauth_families SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id),
			r AS (UPDATE oauth_refresh_tokens SET revoked_at = $2 WHERE family_id IN (SELECT id FROM f) AND revoked_at IS NULL),
			a AS (UPDATE oauth_access_tokens SET revoked_at = $2 WHERE family_id IN (SELECT id FROM f) AND revoked_at IS NULL)
		SELECT pg_notify('workspaced_revoked', 'user:' || $1::text)`, userID, now)
	return err
}

// SignOutEverywhere is "Sign out everywhere": signOutEverywhere for userID, recorded for
// by (the member on their own page) as their connected apps' revocation, with
// signed_out_everywhere. It returns not_found when there is no such user.
func (s *Store) SignOutEverywhere(ctx context.Context, userID string, now time.Time, by By) error {
	return mapAdminError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var workspaceID string
		err := tx.QueryRow(ctx, `SELECT workspace_id::text FROM users WHERE id = $1`, userID).Scan(&workspaceID)
		if errors.Is(err, pgx.ErrNoRows) {
			return apierr.NotFound("no user %s", userID)
		}
		if err != nil {
			return err
		}
		if err := signOutEverywhere(ctx, tx, userID, now); err != nil {
			return err
		}
		return record(ctx, tx, workspaceID, by, audit{entityType: EntityOAuthConnected, entityID: userID, action: "detached",
			changes: map[string]any{"signed_out_everywhere": true}})
	}))
}

// AgentRow is one agent of the console's agents page, with its keys.
type AgentRow struct {
	AgentID   string
	UserID    string
	Name      string
	Status    string
	Grants    map[string]string
	CreatedAt time.Time
	Keys      []AgentKeyRow
}

// AgentKeyRow describes a key without its secret: Hint is its last four characters.
type AgentKeyRow struct {
	ID        string     `json:"key_id"`
	Hint      string     `json:"hint"`
	CreatedAt time.Time  `json:"created_at"`
	LastUsed  *time.Time `json:"last_used_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// WorkspaceAgents lists a workspace's agents, oldest first, each with its keys, newest
// first.
func (s *Store) WorkspaceAgents(ctx context.Context, workspaceID string) ([]AgentRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT a.id::text, u.id::text, a.name, u.status, u.grants, a.created_at,
			coalesce((SELECT json_agg(json_build_object('key_id', k.id, 'hint', k.hint, 'created_at', k.created_at,
				'last_used_at', k.last_used_at, 'revoked_at', k.revoked_at) ORDER BY k.created_at DESC, k.id)
				FROM agent_keys k WHERE k.agent_id = a.id AND k.workspace_id = a.workspace_id), '[]')
		FROM agents a JOIN users u ON u.id = a.user_id
		WHERE a.workspace_id = $1 ORDER BY a.created_at, a.id`, workspaceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AgentRow, error) {
		var a AgentRow
		var grants, keys []byte
		if err := row.Scan(&a.AgentID, &a.UserID, &a.Name, &a.Status, &grants, &a.CreatedAt, &keys); err != nil {
			return a, err
		}
		if err := json.Unmarshal(grants, &a.Grants); err != nil {
			return a, err
		}
		return a, json.Unmarshal(keys, &a.Keys)
	})
}

// IssueAgentKey issues one more key to a workspace's agent; not_found when the workspace
// has no such agent.
func (s *Store) IssueAgentKey(ctx context.Context, workspaceID, agentID string, by By) (AgentKey, error) {
	out := AgentKey{AgentID: agentID}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT user_id::text FROM agents WHERE id = $1 AND workspace_id = $2`,
			agentID, workspaceID).Scan(&out.UserID); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return apierr.NotFound("no agent %s in this workspace", agentID)
			}
			return err
		}
		var err error
		out.KeyID, out.Key, err = issueAgentKey(ctx, tx, workspaceID, agentID, by)
		return err
	})
	return out, mapAdminError(err)
}

// RotateAgentKey revokes a live key of a workspace's agent and issues its replacement in
// one transaction; not_found when the workspace has no such live key.
func (s *Store) RotateAgentKey(ctx context.Context, workspaceID, keyID string, by By) (AgentKey, error) {
	var out AgentKey
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `UPDATE agent_keys SET revoked_at = now()
			WHERE id = $1 AND workspace_id = $2 AND revoked_at IS NULL RETURNING agent_id::text`,
			keyID, workspaceID).Scan(&out.AgentID); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return apierr.NotFound("no live agent key %s in this workspace", keyID)
			}
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT user_id::text FROM agents WHERE id = $1`, out.AgentID).Scan(&out.UserID); err != nil {
			return err
		}
		if err := record(ctx, tx, workspaceID, by, audit{entityType: EntityAgentKeys, entityID: keyID, action: "updated",
			changes: map[string]any{"agent_id": out.AgentID, "revoked": true}}); err != nil {
			return err
		}
		var err error
		if out.KeyID, out.Key, err = issueAgentKey(ctx, tx, workspaceID, out.AgentID, by); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `SELECT pg_notify('workspaced_revoked', $1)`, "agent_key:"+keyID)
		return err
	})
	return out, mapAdminError(err)
}

// ActivityRow is one record of the console's audit log.
type ActivityRow struct {
	ID         string
	CreatedAt  time.Time
	ActorID    string
	ActorEmail string
	EntityType string
	EntityID   string
	Action     string
	Changes    string // JSON
	Credential string
	ClientID   string
	ClientName string
	Via        string
}

// ActivityFilter narrows the audit log; empty fields do not filter. ID picks one record,
// EntityID the records about one record.
// ClientID matches the writes an OAuth client made and the records of its blocking; KeyID
// the writes an agent key made and the records of its issue and revocation.
type ActivityFilter struct {
	ID, ActorID, ClientID, KeyID, EntityType, EntityID string
	Limit                                              int
}

// WorkspaceActivity returns a workspace's activity records, newest first, as the console's
// admins see them (every record of the workspace: the audit log is theirs).
func (s *Store) WorkspaceActivity(ctx context.Context, workspaceID string, f ActivityFilter) ([]ActivityRow, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	credential := ""
	if f.KeyID != "" {
		credential = "agent_key:" + f.KeyID
	}
	rows, err := s.pool.Query(ctx, `SELECT a.id::text, a.created_at, coalesce(a.actor_id::text, ''), coalesce(u.email, ''),
			a.entity_type, coalesce(a.entity_id::text, ''), a.action, coalesce(a.changes::text, '{}'),
			coalesce(a.credential, ''), coalesce(a.client ->> 'id', ''), coalesce(a.client ->> 'name', ''), coalesce(a.via, '')
		FROM activity a LEFT JOIN users u ON u.id = a.actor_id
		WHERE a.workspace_id = $1 AND ($2 = '' OR a.id::text = $2) AND ($3 = '' OR a.actor_id::text = $3)
			AND ($4 = '' OR a.client ->> 'id' = $4 OR (a.entity_type = 'oauth_clients' AND a.changes ->> 'client_id' = $4))
			AND ($5 = '' OR a.credential = $5 OR (a.entity_type = 'agent_keys' AND a.entity_id::text = $8))
			AND ($6 = '' OR a.entity_type = $6) AND ($9 = '' OR a.entity_id::text = $9)
		ORDER BY a.created_at DESC, a.id DESC LIMIT $7`,
		workspaceID, f.ID, f.ActorID, f.ClientID, credential, f.EntityType, f.Limit, f.KeyID, f.EntityID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ActivityRow, error) {
		var a ActivityRow
		err := row.Scan(&a.ID, &a.CreatedAt, &a.ActorID, &a.ActorEmail, &a.EntityType, &a.EntityID, &a.Action, &a.Changes,
			&a.Credential, &a.ClientID, &a.ClientName, &a.Via)
		return a, err
	})
}

// AppRow is an OAuth client used in a workspace, as the console's apps page shows it.
type AppRow struct {
	ClientID        string
	Name            string
	RedirectURIs    []string
	Verified        bool
	Dynamic         bool
	AdminRegistered bool // registered by this workspace's admins
	ConnectedBy     []string
	Scopes          []string
	LastUsed        *time.Time
	BlockedAt       *time.Time
}

// WorkspaceApps lists every OAuth client used in a workspace: the ones its members
// authorized (dynamically registered and metadata-document clients included), its admins'
// own apps, and the ones it blocked; most recently used first.
func (s *Store) WorkspaceApps(ctx context.Context, workspaceID string) ([]AppRow, error) {
	rows, err := s.pool.Query(ctx, `WITH ids AS (
			SELECT client_id FROM oauth_families WHERE workspace_id = $1
			UNION SELECT id FROM oauth_clients WHERE workspace_id = $1
			UNION SELECT client_id FROM oauth_client_blocks WHERE workspace_id = $1)
		SELECT c.id, c.name, c.redirect_uris, c.verified, c.dynamic, coalesce(c.workspace_id = $1, false),
			coalesce((SELECT array_agg(DISTINCT u.email ORDER BY u.email) FROM oauth_families f JOIN users u ON u.id = f.user_id
				WHERE f.workspace_id = $1 AND f.client_id = c.id AND f.revoked_at IS NULL), '{}'),
			coalesce((SELECT array_agg(DISTINCT sc ORDER BY sc) FROM oauth_families f, unnest(f.scopes) sc
				WHERE f.workspace_id = $1 AND f.client_id = c.id AND f.revoked_at IS NULL), '{}'),
			(SELECT max(f.last_used_at) FROM oauth_families f WHERE f.workspace_id = $1 AND f.client_id = c.id),
			b.blocked_at
		FROM ids JOIN oauth_clients c ON c.id = ids.client_id
		LEFT JOIN oauth_client_blocks b ON b.workspace_id = $1 AND b.client_id = c.id
		WHERE c.disabled_at IS NULL
		ORDER BY 9 DESC NULLS LAST, c.name, c.id`, workspaceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AppRow, error) {
		var a AppRow
		err := row.Scan(&a.ClientID, &a.Name, &a.RedirectURIs, &a.Verified, &a.Dynamic, &a.AdminRegistered,
			&a.ConnectedBy, &a.Scopes, &a.LastUsed, &a.BlockedAt)
		return a, err
	})
}

// BlockOAuthClient blocks a client for a workspace: every family its members gave it is
// revoked, their consents and its codes not yet exchanged forgotten, and every process
// told to drop cached tokens. It
// returns not_found when the client is not used in the workspace.
func (s *Store) BlockOAuthClient(ctx context.Context, workspaceID, clientID string, by By) error {
	return mapAdminError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO oauth_client_blocks (workspace_id, client_id, blocked_by)
			SELECT $1, c.id, nullif($3, '')::uuid FROM oauth_clients c WHERE c.id = $2 AND (c.workspace_id = $1
				OR EXISTS (SELECT 1 FROM oauth_families f WHERE f.workspace_id = $1 AND f.client_id = c.id))
			ON CONFLICT DO NOTHING`, workspaceID, clientID, by.UserID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var blocked bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM oauth_client_blocks WHERE workspace_id = $1 AND client_id = $2)`,
				workspaceID, clientID).Scan(&blocked); err != nil || blocked {
				return err
			}
			return apierr.NotFound("no app %q is used in this workspace", clientID)
		}
		if _, err := tx.Exec(ctx, `UPDATE oauth_families SET revoked_at = now()
			WHERE workspace_id = $1 AND client_id = $2 AND revoked_at IS NULL`, workspaceID, clientID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_consents WHERE client_id = $2
			AND user_id IN (SELECT id FROM users WHERE workspace_id = $1)`, workspaceID, clientID); err != nil {
			return err
		}
		// A code issued just before the block and not exchanged yet would otherwise still
		// yield a token family the block never saw.
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_codes WHERE workspace_id = $1 AND client_id = $2 AND used_at IS NULL`,
			workspaceID, clientID); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `SELECT pg_notify('workspaced_revoked', $1)`, "oauth_client:"+clientID); err != nil {
			return err
		}
		return recordClient(ctx, tx, workspaceID, by, clientID, true)
	}))
}

// recordClient records that a client was blocked or unblocked for a workspace.
func recordClient(ctx context.Context, tx pgx.Tx, workspaceID string, by By, clientID string, blocked bool) error {
	return record(ctx, tx, workspaceID, by, audit{entityType: EntityOAuthClients, action: "updated",
		changes: map[string]any{"client_id": clientID, "blocked": blocked}})
}

// UnblockOAuthClient lifts a block; not_found when the workspace has none on the client.
func (s *Store) UnblockOAuthClient(ctx context.Context, workspaceID, clientID string, by By) error {
	return mapAdminError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM oauth_client_blocks WHERE workspace_id = $1 AND client_id = $2`, workspaceID, clientID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return apierr.NotFound("app %q is not blocked in this workspace", clientID)
		}
		return recordClient(ctx, tx, workspaceID, by, clientID, false)
	}))
}

// SetAdminAppsOnly sets whether the workspace's members may authorize only apps its admins
// registered.
func (s *Store) SetAdminAppsOnly(ctx context.Context, workspaceID string, on bool, by By) error {
	return mapAdminError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO workspace_oauth_settings (workspace_id, admin_apps_only) VALUES ($1, $2)
			ON CONFLICT (workspace_id) DO UPDATE SET admin_apps_only = excluded.admin_apps_only`, workspaceID, on); err != nil {
			return err
		}
		return record(ctx, tx, workspaceID, by, audit{entityType: EntityOAuthSettings, entityID: workspaceID, action: "updated",
			changes: map[string]any{"admin_apps_only": on}})
	}))
}

// OAuthClientRefusal says why a workspace refuses new authorizations of a client: blocked
// by its admins, or not one of its own apps while it allows those only. Both false: it
// does not refuse.
func (s *Store) OAuthClientRefusal(ctx context.Context, workspaceID, clientID string) (blocked, adminAppsOnly bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT
			EXISTS (SELECT 1 FROM oauth_client_blocks WHERE workspace_id = $1 AND client_id = $2),
			coalesce((SELECT admin_apps_only FROM workspace_oauth_settings WHERE workspace_id = $1), false)`,
		workspaceID, clientID).Scan(&blocked, &adminAppsOnly)
	return blocked, adminAppsOnly, err
}

// CreditEntry is one line of a workspace's credit ledger.
type CreditEntry struct {
	At     time.Time
	Delta  int64
	Reason string // grant, enrich, refund ...
	Domain string
}

// CredentialDay counts what one credential did on one day (UTC): its authenticated
// requests (reads and writes, credential_usage) and its writes (the audit log).
type CredentialDay struct {
	Day        time.Time
	Credential string
	ClientName string
	Requests   int64
	Writes     int64
}

// WorkspaceCredits returns a workspace's balance, its newest ledger entries (at most
// limit), and its requests and writes per credential per day over the last days days.
func (s *Store) WorkspaceCredits(ctx context.Context, workspaceID string, limit, days int) (int64, []CreditEntry, []CredentialDay, error) {
	var balance int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce((SELECT balance FROM credit_balances WHERE workspace_id = $1), 0)`,
		workspaceID).Scan(&balance); err != nil {
		return 0, nil, nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT created_at, delta, reason, coalesce(domain, '') FROM credit_ledger
		WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, workspaceID, limit)
	if err != nil {
		return 0, nil, nil, err
	}
	ledger, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (CreditEntry, error) {
		var c CreditEntry
		return c, row.Scan(&c.At, &c.Delta, &c.Reason, &c.Domain)
	})
	if err != nil {
		return 0, nil, nil, err
	}
	// Administration records (console, CLI) name a session or an operator, not a
	// credential the API counts, so only REST and MCP writes are counted.
	rows, err = s.pool.Query(ctx, `WITH since AS (SELECT (now() AT TIME ZONE 'UTC')::date - $2::int AS day),
		writes AS (SELECT (created_at AT TIME ZONE 'UTC')::date AS day, credential, max(client ->> 'name') AS client_name,
				count(*) AS n
			FROM activity WHERE workspace_id = $1 AND credential IS NOT NULL AND via IN ('rest', 'mcp')
				AND created_at >= (SELECT day FROM since)::timestamp AT TIME ZONE 'UTC'
			GROUP BY 1, 2),
		requests AS (SELECT day, credential, client_name, requests AS n FROM credential_usage
			WHERE workspace_id = $1 AND day >= (SELECT day FROM since))
		SELECT day::timestamp, credential, coalesce(nullif(r.client_name, ''), w.client_name, ''),
			coalesce(r.n, 0), coalesce(w.n, 0)
		FROM requests r FULL JOIN writes w USING (day, credential)
		ORDER BY 1 DESC, 4 DESC, 5 DESC, 2`, workspaceID, days)
	if err != nil {
		return 0, nil, nil, err
	}
	usage, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (CredentialDay, error) {
		var d CredentialDay
		return d, row.Scan(&d.Day, &d.Credential, &d.ClientName, &d.Requests, &d.Writes)
	})
	return balance, ledger, usage, err
}

// UsageCount is a number of authenticated requests one credential made on one day.
type UsageCount struct {
	WorkspaceID string
	Day         time.Time  // UTC midnight
	Credential  Credential // Type, ID and ClientName
	Requests    int64
}

// AddUsage adds counts to credential_usage in one statement.
func (s *Store) AddUsage(ctx context.Context, counts []UsageCount) error {
	if len(counts) == 0 {
		return nil
	}
	ws, creds, names := make([]string, len(counts)), make([]string, len(counts)), make([]string, len(counts))
	days, n := make([]time.Time, len(counts)), make([]int64, len(counts))
	for i, c := range counts {
		ws[i], days[i], creds[i], names[i], n[i] = c.WorkspaceID, c.Day, c.Credential.Label(), c.Credential.ClientName, c.Requests
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO credential_usage AS u (workspace_id, day, credential, client_name, requests)
		SELECT w::uuid, d, c, cn, r FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::bigint[]) AS t(w, d, c, cn, r)
		ON CONFLICT (workspace_id, day, credential) DO UPDATE SET requests = u.requests + excluded.requests,
			client_name = CASE WHEN excluded.client_name <> '' THEN excluded.client_name ELSE u.client_name END`,
		ws, days, creds, names, n)
	return err
}

// linkCredential names a member link as activity.credential: "link:" and the first 16 hex
// digits of its stored hash, which tells links apart without opening one (as a console
// session is named, docs/console.md).
func linkCredential(hash []byte) string {
	return "link:" + hex.EncodeToString(hash[:min(8, len(hash))])
}
