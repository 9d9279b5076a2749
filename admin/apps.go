package admin

import (
	"context"
	"time"

	"github.com/agencyos/workspaced/store"
)

// AppStore is what the apps and connected-apps operations need; *store.Store implements it.
type AppStore interface {
	// WorkspaceApps lists every OAuth client used in the workspace.
	WorkspaceApps(ctx context.Context, workspaceID string) ([]store.AppRow, error)
	// BlockOAuthClient blocks a client for the workspace; not_found when it is not used there.
	BlockOAuthClient(ctx context.Context, workspaceID, clientID, by string) error
	// UnblockOAuthClient lifts a block; not_found when there is none.
	UnblockOAuthClient(ctx context.Context, workspaceID, clientID string) error
	// SetAdminAppsOnly sets the workspace's "admin-registered apps only".
	SetAdminAppsOnly(ctx context.Context, workspaceID string, on bool) error
	// OAuthClientRefusal reports a client's block and the workspace's setting.
	OAuthClientRefusal(ctx context.Context, workspaceID, clientID string) (blocked, adminAppsOnly bool, err error)
	// OAuthConnections lists the enabled apps a member authorised and did not revoke.
	OAuthConnections(ctx context.Context, userID string) ([]store.OAuthConnection, error)
	// RevokeOAuthConnection revokes every family the member gave the client.
	RevokeOAuthConnection(ctx context.Context, userID, clientID string, now time.Time) error
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
func (o *Ops) BlockApp(ctx context.Context, workspaceID, clientID, by string) error {
	if !storableID(clientID) {
		return store.NotFound("no app %q is used in this workspace", clientID)
	}
	return o.cfg.Store.BlockOAuthClient(ctx, workspaceID, clientID, by)
}

// UnblockApp lifts a block; members may authorize the client again.
func (o *Ops) UnblockApp(ctx context.Context, workspaceID, clientID string) error {
	if !storableID(clientID) {
		return store.NotFound("app %q is not blocked in this workspace", clientID)
	}
	return o.cfg.Store.UnblockOAuthClient(ctx, workspaceID, clientID)
}

// SetAdminAppsOnly sets whether members may authorize only apps the workspace's admins
// registered (default: any app, dynamically registered ones included).
func (o *Ops) SetAdminAppsOnly(ctx context.Context, workspaceID string, on bool) error {
	return o.cfg.Store.SetAdminAppsOnly(ctx, workspaceID, on)
}

// Connections lists the apps a member authorised.
func (o *Ops) Connections(ctx context.Context, userID string) ([]store.OAuthConnection, error) {
	return o.cfg.Store.OAuthConnections(ctx, userID)
}

// RevokeConnections revokes what a member gave the listed clients (every one they
// authorised when clientIDs is nil) and forgets the consents; their tokens stop at once.
func (o *Ops) RevokeConnections(ctx context.Context, userID string, clientIDs []string) error {
	if clientIDs == nil {
		conns, err := o.cfg.Store.OAuthConnections(ctx, userID)
		if err != nil {
			return err
		}
		for _, c := range conns {
			clientIDs = append(clientIDs, c.ClientID)
		}
	}
	for _, id := range clientIDs {
		if !storableID(id) {
			continue // no client has such an id: nothing to revoke
		}
		if err := o.cfg.Store.RevokeOAuthConnection(ctx, userID, id, o.cfg.Now()); err != nil {
			return err
		}
	}
	return o.cfg.Store.NotifyRevoked(ctx, "oauth_user_client:"+userID)
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
