package admin

import (
	"context"

	"github.com/agencyos/workspaced/store"
)

// ActivityStore reads the audit log; *store.Store implements it.
type ActivityStore interface {
	// WorkspaceActivity returns a workspace's activity records, newest first.
	WorkspaceActivity(ctx context.Context, workspaceID string, f store.ActivityFilter) ([]store.ActivityRow, error)
}

// Activity returns the audit log of a workspace, filtered by member, app, agent key or
// resource. An id of the wrong shape matches nothing rather than failing.
func (o *Ops) Activity(ctx context.Context, workspaceID string, f store.ActivityFilter) ([]store.ActivityRow, error) {
	for _, id := range []string{f.ID, f.ActorID, f.KeyID} {
		if id != "" && !isUUID(id) {
			return nil, nil
		}
	}
	return o.cfg.Store.WorkspaceActivity(ctx, workspaceID, f)
}

// ActivityRecord returns one activity record of the workspace; not_found when it has none
// with id.
func (o *Ops) ActivityRecord(ctx context.Context, workspaceID, id string) (store.ActivityRow, error) {
	rows, err := o.Activity(ctx, workspaceID, store.ActivityFilter{ID: id, Limit: 1})
	if err != nil {
		return store.ActivityRow{}, err
	}
	if len(rows) == 0 {
		return store.ActivityRow{}, store.NotFound("no activity record %q in this workspace", id)
	}
	return rows[0], nil
}
