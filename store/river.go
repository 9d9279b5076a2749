package store

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// River is the job queue webhook deliveries run on (docs/webhooks.md); its tables are
// River's own, migrated by its migrator after ours, in the same advisory lock.

// RiverDriver returns River's pgx driver over the service's pool.
func (s *Store) RiverDriver() *riverpgxv5.Driver { return riverpgxv5.New(s.pool) }

// migrateRiver applies River's migrations that have not run yet.
func migrateRiver(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("store: river migrations: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("store: river migrate: %w", err)
	}
	for _, v := range res.Versions {
		if log != nil {
			log.Info("migrated river", "version", v.Version, "took", v.Duration)
		}
	}
	return nil
}

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
