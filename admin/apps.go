package admin

import (
	"context"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/store"
)

// AppStore is what the apps and connected-apps operations need; *store.Store implements it.
type AppStore interface {
	// WorkspaceApps lists every OAuth client used in the workspace.
	WorkspaceApps(ctx context.Context, workspaceID string) ([]store.AppRow, error)
	// BlockOAuthClient blocks a client for the workspace; not_found when it is not used there.
	BlockOAuthClient(ctx context.Context, workspaceID, clientID string, by store.By) error
	// UnblockOAuthClient lifts a block; not_found when there is none.
	UnblockOAuthClient(ctx context.Context, workspaceID, clientID string, by store.By) error
	// SetAdminAppsOnly sets the workspace's "admin-registered apps only".
	SetAdminAppsOnly(ctx context.Context, workspaceID string, on bool, by store.By) error
	// OAuthClientRefusal reports a client's block and the workspace's setting.
	OAuthClientRefusal(ctx context.Context, workspaceID, clientID string) (blocked, adminAppsOnly bool, err error)
	// OAuthConnections lists the enabled apps a member authorised and did not revoke.
	OAuthConnections(ctx context.Context, userID string) ([]store.OAuthConnection, error)
	// RevokeOAuthConnections revokes every family the member gave each client.
	RevokeOAuthConnections(ctx context.Context, userID string, clientIDs []string, now time.Time, by store.By) error
	// SignOutEverywhere ends every session of the member and revokes every token and
	// pending code they gave apps.
	SignOutEverywhere(ctx context.Context, userID string, now time.Time, by store.By) error
	// NotifyRevoked tells every process to drop cached credentials.
	NotifyRevoked(ctx context.Context, payload string) error
}

// Apps lists every OAuth client used in a workspace, and whether the workspace allows only
// its admins' apps.
func (o *Ops) Apps(ctx context.Context, workspaceID string) ([]store.AppRow, bool, error) {
	rows, err := o.cfg.Store.WorkspaceApps(ctx, workspaceID)
	if err != nil {
		return nil, false, err
	}
	_, only, err := o.cfg.Store.OAuthClientRefusal(ctx, workspaceID, "")
	return rows, only, err
}

// BlockApp blocks a client for the workspace: its tokens stop at once, and members' new
// authorizations are refused with a page saying so.
func (o *Ops) BlockApp(ctx context.Context, workspaceID, clientID string, by store.By) error {
	if !storableID(clientID) {
		return apierr.NotFound("no app %q is used in this workspace", clientID)
	}
	return o.cfg.Store.BlockOAuthClient(ctx, workspaceID, clientID, by)
}

// UnblockApp lifts a block; members may authorize the client again.
func (o *Ops) UnblockApp(ctx context.Context, workspaceID, clientID string, by store.By) error {
	if !storableID(clientID) {
		return apierr.NotFound("app %q is not blocked in this workspace", clientID)
	}
	return o.cfg.Store.UnblockOAuthClient(ctx, workspaceID, clientID, by)
}

// SetAdminAppsOnly sets whether members may authorize only apps the workspace's admins
// registered (default: any app, dynamically registered ones included).
func (o *Ops) SetAdminAppsOnly(ctx context.Context, workspaceID string, on bool, by store.By) error {
	return o.cfg.Store.SetAdminAppsOnly(ctx, workspaceID, on, by)
}

// Connections lists the apps a member authorised.
func (o *Ops) Connections(ctx context.Context, userID string) ([]store.OAuthConnection, error) {
	return o.cfg.Store.OAuthConnections(ctx, userID)
}

// RevokeConnections revokes what a member gave the listed clients (every one they
// authorised when clientIDs is nil) and forgets the consents, for by (the member on their
// own page); their tokens stop at once.
func (o *Ops) RevokeConnections(ctx context.Context, userID string, clientIDs []string, by store.By) error {
	if clientIDs == nil {
		conns, err := o.cfg.Store.OAuthConnections(ctx, userID)
		if err != nil {
			return err
		}
		for _, c := range conns {
			clientIDs = append(clientIDs, c.ClientID)
		}
	}
	ids := make([]string, 0, len(clientIDs))
	for _, id := range clientIDs {
		if storableID(id) { // no client has another id: nothing to revoke
			ids = append(ids, id)
		}
	}
	if err := o.cfg.Store.RevokeOAuthConnections(ctx, userID, ids, o.cfg.Now(), by); err != nil {
		return err
	}
	return o.cfg.Store.NotifyRevoked(ctx, "oauth_user_client:"+userID)
}

// SignOutEverywhere ends every sign-in session of the member, this browser's included,
// and revokes every token and pending authorization code they gave apps, for by (the
// member on their own page); the tokens stop at once. Agent keys are not the member's and
// keep working.
func (o *Ops) SignOutEverywhere(ctx context.Context, userID string, by store.By) error {
	return o.cfg.Store.SignOutEverywhere(ctx, userID, o.cfg.Now(), by)
}

// storableID reports whether a client id can name a stored row (valid UTF-8, no NUL,
// bounded), so a forged one is not_found rather than a database error.
func storableID(id string) bool {
	if id == "" || len(id) > 200 {
		return false
	}
	for _, c := range id {
		if c == 0 || c == '\uFFFD' {
			return false
		}
	}
	return true
}
