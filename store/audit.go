package store

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"
)

// Channels of the console and the admin CLI, as activity.via stores them beside ViaREST
// and ViaMCP.
const (
	ViaConsole = "console"
	ViaCLI     = "cli"
)

// By is who makes an administration change (admin.Ops, from the console or the CLI): it is
// recorded in activity in the change's own transaction (docs/console.md, "Audit log"). The
// zero By records nothing: seeding and tests' fixtures act as no one, as they leave no
// trigger-written activity either.
type By struct {
	// UserID is the signed-in admin (or member, on their own page) for the console; ""
	// for the CLI, which runs with the database's credentials and knows no member.
	UserID string
	// Credential names the credential: "console:<session>" (the first 16 hex digits of the
	// session cookie's SHA-256), "link:<link>" (the same of an invitation or reset link, for
	// the member who used it) or "cli:<operating-system user>".
	Credential string
	// Via is ViaConsole or ViaCLI (or a request's channel, for RecordAction).
	Via string
	// Client is the OAuth client as activity.client stores it ({"id", "name"}), "" for none.
	Client string
}

// RecordAction writes, in tx (which may run as the service), the activity record of an
// action the actor a made through its channel on a record that is not a write of it (a webhook
// endpoint's secret rotation or test ping, a delivery's retry: docs/console.md, "Audit
// log"), with the provenance the activity trigger gives a write: actor, credential, client
// and channel. changes says what was done, never a secret.
func RecordAction(ctx context.Context, tx pgx.Tx, a Actor, entityType, entityID, action string,
	changes map[string]any) error {
	via := a.Via
	if via == "" {
		via = ViaREST // a principal no adapter stamped still made the action
	}
	by := By{UserID: a.UserID, Credential: a.Credential.Label(), Via: via, Client: a.clientJSON()}
	return record(ctx, tx, a.WorkspaceID, by, audit{entityType: entityType, entityID: entityID, action: action,
		changes: changes})
}

// Entity types of the administration records in activity, beside the catalogue's
// resources (users is one of those). The admin-only ones (AdminOnlyEntities) are visible
// to admins only (policy ws_admin_records); agents follow the agents feature.
const (
	EntityUsers          = "users"
	EntityWorkspaces     = "workspaces" // entity_id is the workspace's
	EntityAgents         = "agents"
	EntityAgentKeys      = "agent_keys"               // admin only
	EntityMemberLinks    = "member_links"             // admin only; entity_id is the member's
	EntityOAuthClients   = "oauth_clients"            // admin only; changes.client_id names it
	EntityOAuthSettings  = "workspace_oauth_settings" // admin only; entity_id is the workspace's
	EntityCredits        = "credits"                  // admin only
	EntityOAuthConnected = "oauth_connections"        // admin only; entity_id is the member's
)

// AdminOnlyEntities are the entity types above whose records only admins may read. The
// policy ws_admin_records (migration 00035) lists them beside the catalogue's admin-only
// resources; workspace's TestAdminRecordsFollowCatalogue compares the two.
func AdminOnlyEntities() []string {
	return []string{EntityAgentKeys, EntityMemberLinks, EntityOAuthClients, EntityOAuthSettings, EntityCredits,
		EntityOAuthConnected}
}

// audit is one administration record: what changed. entityID is "" when the record has no
// uuid (an OAuth client, a credit grant).
type audit struct {
	entityType, entityID, action, feature string
	changes                               map[string]any
}

// record writes a's activity row for workspaceID in tx, made by by; nothing for the zero
// By. It is the one place these rows are written: the tables the console and the CLI
// change have no activity trigger, or (users) one that records only a request's actor and
// would also emit webhook events, which administration changes never have
// (docs/webhooks.md).
func record(ctx context.Context, tx pgx.Tx, workspaceID string, by By, a audit) error {
	if by.Via == "" {
		return nil
	}
	changes, err := json.Marshal(a.changes)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO activity (workspace_id, created_by, actor_id, entity_type, entity_id, action, changes,
			feature, credential, via, client)
		VALUES ($1, nullif($2, '')::uuid, nullif($2, '')::uuid, $3, nullif($4, '')::uuid, $5, $6, nullif($7, ''),
			nullif($8, ''), $9, nullif($10, '')::jsonb)`,
		workspaceID, by.UserID, a.entityType, a.entityID, a.action, changes, a.feature, by.Credential, by.Via, by.Client)
	return err
}
