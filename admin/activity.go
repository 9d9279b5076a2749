package admin

import (
	"context"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/store"
)

// ActivityStore reads the audit log; *store.Store implements it.
type ActivityStore interface {
	// WorkspaceActivity returns a workspace's activity records, newest first.
	WorkspaceActivity(ctx context.Context, workspaceID string, f store.ActivityFilter) ([]store.ActivityRow, error)
}

// Activity returns the audit log of a workspace, filtered by member, app, agent key,
// resource or record. An id of the wrong shape matches nothing rather than failing.
func (o *Ops) Activity(ctx context.Context, workspaceID string, f store.ActivityFilter) ([]store.ActivityRow, error) {
	for _, id := range []string{f.ID, f.ActorID, f.KeyID, f.EntityID} {
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
		return store.ActivityRow{}, apierr.NotFound("no activity record %q in this workspace", id)
	}
	return rows[0], nil
}

// CreditsStore reads credits and usage; *store.Store implements it.
type CreditsStore interface {
	// WorkspaceCredits returns the balance, the newest ledger entries and the requests and
	// writes per credential per day.
	WorkspaceCredits(ctx context.Context, workspaceID string, limit, days int) (int64, []store.CreditEntry, []store.CredentialDay, error)
	// GrantCredits adds credits to a workspace's balance and ledger.
	GrantCredits(ctx context.Context, workspaceID string, amount int64, by store.By) (int64, error)
}

// Credits is a workspace's credit balance, ledger and usage.
type Credits struct {
	Balance int64
	Ledger  []store.CreditEntry
	Usage   []store.CredentialDay
}

// Credits returns the balance, the last 100 ledger entries and the requests and writes per
// credential per day of the last 14 days.
func (o *Ops) Credits(ctx context.Context, workspaceID string) (Credits, error) {
	b, l, u, err := o.cfg.Store.WorkspaceCredits(ctx, workspaceID, 100, 14)
	return Credits{Balance: b, Ledger: l, Usage: u}, err
}

// GrantCredits adds a positive amount to a workspace's balance (the CLI's grant-credits)
// for by, and returns the new balance.
func (o *Ops) GrantCredits(ctx context.Context, workspaceID string, amount int64, by store.By) (int64, error) {
	if amount <= 0 {
		return 0, apierr.BadRequest("the amount must be a positive whole number")
	}
	return o.cfg.Store.GrantCredits(ctx, workspaceID, amount, by)
}
