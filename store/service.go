package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// serviceSQL sets the workspace for the rest of the transaction, keeping the service's role.
const serviceSQL = `SELECT set_config('app.workspace_id', $1, true)`

// ServiceTx runs fn in a transaction as the service itself (the tables' owner, not the
// request role), with app.workspace_id set to workspaceID when it is not "", so the
// isolation policies of the webhook tables admit that workspace's rows and no other's.
// Only background work that acts for no member uses it (webhook delivery).
func (s *Store) ServiceTx(ctx context.Context, workspaceID string, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, serviceSQL, workspaceID); err != nil {
			return fmt.Errorf("store: set workspace: %w", err)
		}
		return fn(tx)
	})
}

// ServiceQuery runs one statement as the service with app.workspace_id set, in a single
// round trip (the setting and the statement travel as one pipelined batch, one implicit
// transaction, as Query does for actors). scan is called with the statement's rows.
func (s *Store) ServiceQuery(ctx context.Context, workspaceID, sql string, args []any, scan func(pgx.Rows) error) error {
	return s.settingsThen(ctx, "workspace", serviceSQL, []any{workspaceID}, nil, sql, args, scan)
}
