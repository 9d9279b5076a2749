package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
)

// The grant levels of docs/decisions.md 2, lowest first: the one statement of them. The
// workspace package's Grant constants, the console's selects and the CLI's --grant flag
// take them from here (store sits below workspace); the migrations' policies name read
// and full, which workspace/dbrules_test.go checks against these.
const (
	GrantNone = "none"
	GrantRead = "read"
	GrantFull = "full"
)

// The member roles (docs/decisions.md 2), the one statement of them: users.role's CHECK
// names the same two, the catalogue's users.role enum, /me's schema, the admin
// operations' check and the console's role selects take them from Roles.
const (
	RoleMember = "member"
	RoleAdmin  = "admin"
)

// Roles lists the member roles, in the order the catalogue publishes them; a new member's
// is RoleMember.
func Roles() []string { return []string{RoleAdmin, RoleMember} }

// GrantLevels lists the grant levels, lowest first.
func GrantLevels() []string { return []string{GrantNone, GrantRead, GrantFull} }

// GrantLevelsText words the levels for messages: "none, read or full".
func GrantLevelsText() string {
	l := GrantLevels()
	return strings.Join(l[:len(l)-1], ", ") + " or " + l[len(l)-1]
}

// Features are the grantable features of docs/decisions.md 2, in the order admin tools show
// them: the one list of their names. The catalogue's Feature values (workspace) and the
// migrations' policies name them; workspace/dbrules_test.go checks both against this list.
var Features = []string{"crm", "hr", "finance", "metrics", "competitors", "agents"}

// ParseGrant parses "crm=full" into its feature and level.
func ParseGrant(s string) (feature, level string, err error) {
	feature, level, ok := strings.Cut(s, "=")
	if !ok || !contains(GrantLevels(), level) || !contains(Features, feature) {
		return "", "", fmt.Errorf("grant %q: want feature=level with feature one of %s and level %s",
			s, strings.Join(Features, ", "), GrantLevelsText())
	}
	return feature, level, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// CreateWorkspace makes a workspace with an empty credit balance and returns its id. by
// is who makes it: its record is the first of the workspace's audit log (the zero By, for
// seeding and tests' fixtures, records nothing).
func (s *Store) CreateWorkspace(ctx context.Context, name string, by By) (string, error) {
	var id string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO workspaces (name) VALUES ($1) RETURNING id::text`, name).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO credit_balances (workspace_id, balance) VALUES ($1, 0)`, id); err != nil {
			return err
		}
		return record(ctx, tx, id, by, audit{entityType: EntityWorkspaces, entityID: id, action: "created",
			changes: map[string]any{"name": name}})
	})
	return id, err
}

// Member describes a user to add or change from the admin CLI or seeding.
type Member struct {
	WorkspaceID  string
	Email        string
	Name         string
	Role         string            // "" keeps (set) or defaults to member (add)
	Status       string            // "" keeps or defaults to active
	Grants       map[string]string // merged into the existing grants
	PasswordHash string            // "" sets none
	IsAgent      bool
	By           By // who makes the change, recorded in activity (the zero By: no one)
}

// AddMember creates a user in a workspace and returns its id.
func (s *Store) AddMember(ctx context.Context, m Member) (string, error) {
	var id string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		id, err = addMember(ctx, tx, m)
		return err
	})
	return id, mapAdminError(err)
}

// addMember inserts a user in tx and records it (a human member only: an agent's user is
// recorded with its agent).
func addMember(ctx context.Context, tx pgx.Tx, m Member) (string, error) {
	if m.Role == "" {
		m.Role = "member"
	}
	if m.Status == "" {
		m.Status = "active"
	}
	grants := nonNil(m.Grants)
	grantsJSON, _ := json.Marshal(grants)
	var id string
	err := tx.QueryRow(ctx, `INSERT INTO users (workspace_id, email, display_name, role, status, grants, is_agent)
		VALUES ($1, $2, nullif($3, ''), $4, $5, $6, $7) RETURNING id::text`,
		m.WorkspaceID, m.Email, m.Name, m.Role, m.Status, grantsJSON, m.IsAgent).Scan(&id)
	if err != nil {
		return "", err
	}
	if m.PasswordHash != "" {
		if _, err := tx.Exec(ctx, `INSERT INTO user_passwords (user_id, hash) VALUES ($1, $2)`, id, m.PasswordHash); err != nil {
			return "", err
		}
	}
	if m.IsAgent {
		return id, nil
	}
	changes := map[string]any{"email": m.Email, "role": m.Role, "status": m.Status, "grants": grants}
	if m.Name != "" {
		changes["display_name"] = m.Name
	}
	if m.PasswordHash != "" {
		changes["password"] = "set"
	}
	return id, record(ctx, tx, m.WorkspaceID, m.By, audit{entityType: EntityUsers, entityID: id, action: "created", changes: changes})
}

// SetMember changes a user's role, status, grants or password; empty fields are kept. A
// non-empty m.WorkspaceID confines the change to that workspace's users (the console): a
// user of another workspace is not_found, as a missing one is.
func (s *Store) SetMember(ctx context.Context, userID string, m Member) error {
	grants, _ := json.Marshal(nonNil(m.Grants))
	return mapAdminError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var workspaceID string
		err := tx.QueryRow(ctx, `UPDATE users SET role = coalesce(nullif($2, ''), role),
			status = coalesce(nullif($3, ''), status), grants = grants || $4::jsonb
			WHERE id = $1 AND ($5 = '' OR workspace_id::text = $5) RETURNING workspace_id::text`,
			userID, m.Role, m.Status, grants, m.WorkspaceID).Scan(&workspaceID)
		if errors.Is(err, pgx.ErrNoRows) {
			return apierr.NotFound("no user %s", userID)
		}
		if err != nil {
			return err
		}
		// Role, status and grant changes take effect at once in every process.
		if _, err := tx.Exec(ctx, `SELECT pg_notify('workspaced_revoked', $1)`, "user:"+userID); err != nil {
			return err
		}
		if m.PasswordHash != "" {
			if _, err = tx.Exec(ctx, `INSERT INTO user_passwords (user_id, hash) VALUES ($1, $2)
				ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = now()`, userID, m.PasswordHash); err != nil {
				return err
			}
			// A password set for the member is a reset: as a reset link's (RedeemMemberLink).
			if err := signOutEverywhere(ctx, tx, userID, time.Now()); err != nil {
				return err
			}
		}
		changes := map[string]any{}
		for k, v := range map[string]string{"role": m.Role, "status": m.Status} {
			if v != "" {
				changes[k] = v
			}
		}
		if len(m.Grants) > 0 {
			changes["grants"] = m.Grants
		}
		if m.PasswordHash != "" {
			changes["password"] = "set"
		}
		return record(ctx, tx, workspaceID, m.By, audit{entityType: EntityUsers, entityID: userID, action: "updated", changes: changes})
	}))
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// mapAdminError turns constraint failures of the admin paths into clear Errors.
func mapAdminError(err error) error {
	if err == nil {
		return nil
	}
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	mapped := MapWriteError(err, apierr.CodeInvalid)
	if errors.As(mapped, &e) {
		return e
	}
	return err
}

// AgentKey is a freshly issued agent key; Key is shown once and never stored.
type AgentKey struct {
	AgentID string `json:"agent_id"`
	UserID  string `json:"user_id"`
	KeyID   string `json:"key_id"`
	Key     string `json:"key"`
}

// CreateAgent makes an agent (a row of agents plus its own user with is_agent) and issues
// its first key.
func (s *Store) CreateAgent(ctx context.Context, workspaceID, name string, grants map[string]string, by By) (AgentKey, error) {
	var out AgentKey
	email := fmt.Sprintf("agent-%d@agents.invalid", time.Now().UnixNano())
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if out.UserID, err = addMember(ctx, tx, Member{WorkspaceID: workspaceID, Email: email, Name: name, Grants: grants,
			IsAgent: true}); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `INSERT INTO agents (workspace_id, user_id, name) VALUES ($1, $2, $3) RETURNING id::text`,
			workspaceID, out.UserID, name).Scan(&out.AgentID); err != nil {
			return err
		}
		if err := record(ctx, tx, workspaceID, by, audit{entityType: EntityAgents, entityID: out.AgentID, action: "created",
			feature: "agents", changes: map[string]any{"name": name, "user_id": out.UserID, "grants": nonNil(grants)}}); err != nil {
			return err
		}
		out.KeyID, out.Key, err = issueAgentKey(ctx, tx, workspaceID, out.AgentID, by)
		return err
	})
	return out, mapAdminError(err)
}

// issueAgentKey issues a key to an agent in tx and records it.
func issueAgentKey(ctx context.Context, tx pgx.Tx, workspaceID, agentID string, by By) (id, plain string, err error) {
	plain, hash := NewSecret(PrefixAgentKey)
	if err = tx.QueryRow(ctx, `INSERT INTO agent_keys (workspace_id, agent_id, key_hash, hint) VALUES ($1, $2, $3, $4)
		RETURNING id::text`, workspaceID, agentID, hash, plain[len(plain)-4:]).Scan(&id); err != nil {
		return "", "", err
	}
	return id, plain, record(ctx, tx, workspaceID, by, audit{entityType: EntityAgentKeys, entityID: id, action: "created",
		changes: map[string]any{"agent_id": agentID, "hint": plain[len(plain)-4:]}})
}

// RevokeAgentKey revokes a key; revoking twice is harmless. It returns a not_found Error
// when no such key exists.
func (s *Store) RevokeAgentKey(ctx context.Context, keyID string) error {
	return s.RevokeWorkspaceAgentKey(ctx, "", keyID, By{})
}

// RevokeWorkspaceAgentKey revokes a key of workspaceID ("" for any workspace); a key of
// another workspace is not_found, as a missing one. Revoking twice records twice: each is
// an admin's act.
func (s *Store) RevokeWorkspaceAgentKey(ctx context.Context, workspaceID, keyID string, by By) error {
	return mapAdminError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var ws, agentID string
		err := tx.QueryRow(ctx, `UPDATE agent_keys SET revoked_at = coalesce(revoked_at, now())
			WHERE id = $1 AND ($2 = '' OR workspace_id::text = $2) RETURNING workspace_id::text, agent_id::text`,
			keyID, workspaceID).Scan(&ws, &agentID)
		if errors.Is(err, pgx.ErrNoRows) {
			return apierr.NotFound("no agent key %s", keyID)
		}
		if err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `SELECT pg_notify('workspaced_revoked', $1)`, "agent_key:"+keyID); err != nil {
			return err
		}
		return record(ctx, tx, ws, by, audit{entityType: EntityAgentKeys, entityID: keyID, action: "updated",
			changes: map[string]any{"agent_id": agentID, "revoked": true}})
	}))
}

// GrantCredits adds amount (may be negative, never below zero) to a workspace's balance,
// records it in the ledger, and returns the new balance.
func (s *Store) GrantCredits(ctx context.Context, workspaceID string, amount int64, by By) (int64, error) {
	var balance int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO credit_balances (workspace_id, balance) VALUES ($1, $2)
			ON CONFLICT (workspace_id) DO UPDATE SET balance = credit_balances.balance + excluded.balance, updated_at = now()
			RETURNING balance`, workspaceID, amount).Scan(&balance)
		if err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `INSERT INTO credit_ledger (workspace_id, delta, reason) VALUES ($1, $2, 'grant')`,
			workspaceID, amount); err != nil {
			return err
		}
		return record(ctx, tx, workspaceID, by, audit{entityType: EntityCredits, action: "created",
			changes: map[string]any{"amount": amount, "balance": balance}})
	})
	return balance, mapAdminError(err)
}

// Identity is what store reads about the holder of a credential: the user row behind it,
// the scopes the credential carries (wildcards as granted) and the credential itself. The
// principal a request acts as is built from it (auth.FromIdentity).
type Identity struct {
	UserID      string
	WorkspaceID string
	Email       string
	DisplayName string
	Role        string            // admin or member
	IsAgent     bool              // the user is an agent's user
	Grants      map[string]string // feature -> none, read, full
	Scopes      []string
	Credential  Credential
}

// AgentKeyIdentity resolves an agent key to its holder's identity (auth.Resolved makes
// the principal of it). Agent keys carry every scope. It returns an unauthorized Error
// when the key is malformed, unknown, revoked, or its user is not active.
func (s *Store) AgentKeyIdentity(ctx context.Context, plain string, allScopes []string) (*Identity, error) {
	if !WellFormed(plain, PrefixAgentKey) {
		return nil, apierr.Unauthorized("the agent key is malformed")
	}
	p := &Identity{Scopes: allScopes, Credential: Credential{Type: "agent_key"}}
	var grants []byte
	// One statement resolves the key and records its use (last_used_at); it runs on a
	// cache miss only, so the stamp is as fresh as the credential cache's lifetime.
	err := s.pool.QueryRow(ctx, `WITH k AS (UPDATE agent_keys SET last_used_at = now()
			WHERE key_hash = $1 AND revoked_at IS NULL RETURNING id, agent_id)
		SELECT k.id::text, u.id::text, u.workspace_id::text, u.email, coalesce(u.display_name, ''),
			u.role, u.is_agent, u.grants
		FROM k JOIN agents a ON a.id = k.agent_id JOIN users u ON u.id = a.user_id
		WHERE u.status = 'active'`, HashSecret(plain)).
		Scan(&p.Credential.ID, &p.UserID, &p.WorkspaceID, &p.Email, &p.DisplayName, &p.Role, &p.IsAgent, &grants)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apierr.Unauthorized("the agent key is unknown or revoked")
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(grants, &p.Grants); err != nil {
		return nil, err
	}
	return p, nil
}

// WorkspaceName returns a workspace's name.
func (s *Store) WorkspaceName(ctx context.Context, id string) (string, error) {
	var name string
	err := s.pool.QueryRow(ctx, `SELECT name FROM workspaces WHERE id = $1`, id).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", &apierr.Error{Code: apierr.CodeNotFound, Message: "no such workspace"}
	}
	return name, err
}

// Setting returns a service setting, creating it with make() on first use. Concurrent
// first uses agree on one value.
func (s *Store) Setting(ctx context.Context, key string, make func() string) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, `WITH ins AS (INSERT INTO service_settings (key, value) VALUES ($1, $2)
			ON CONFLICT (key) DO NOTHING RETURNING value)
		SELECT value FROM ins UNION ALL SELECT value FROM service_settings WHERE key = $1 LIMIT 1`, key, make()).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		// The INSERT waited for a concurrent first use to commit, then did nothing; the
		// SELECT beside it reads the statement's snapshot, taken before that commit, so
		// it saw no row either. A new statement sees the committed one.
		err = s.pool.QueryRow(ctx, `SELECT value FROM service_settings WHERE key = $1`, key).Scan(&v)
	}
	return v, err
}

// ListenRevocations calls onRevoke with each payload sent on the workspaced_revoked channel
// (agent keys revoked, tokens revoked, members changed) until ctx ends, reconnecting on
// failure. Other processes' caches flush on it, so revocation is visible at once.
func (s *Store) ListenRevocations(ctx context.Context, onRevoke func(payload string), onState func(listening bool)) {
	for ctx.Err() == nil {
		s.listenOnce(ctx, onRevoke, onState)
		onState(false)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (s *Store) listenOnce(ctx context.Context, onRevoke func(string), onState func(bool)) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN workspaced_revoked"); err != nil {
		return
	}
	defer conn.Exec(context.WithoutCancel(ctx), "UNLISTEN workspaced_revoked")
	onState(true)
	// Anything revoked while we were not listening: flush everything once.
	onRevoke("*")
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return
		}
		onRevoke(n.Payload)
	}
}

// NotifyRevoked tells every process to drop cached credentials (payload names what).
func (s *Store) NotifyRevoked(ctx context.Context, payload string) error {
	_, err := s.pool.Exec(ctx, `SELECT pg_notify('workspaced_revoked', $1)`, payload)
	return err
}

// TakeSetting removes a service setting and returns its value, or "" when there is none.
// It is one statement, so processes taking the same setting at once see it exactly once.
func (s *Store) TakeSetting(ctx context.Context, key string) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, `DELETE FROM service_settings WHERE key = $1 RETURNING value`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return v, err
}
