// Package queue sets up River, the job queue webhook deliveries run on (docs/webhooks.md):
// its driver over the service's pool and its migrations. River's tables are River's own,
// migrated by its migrator after the service's, inside store.Migrate's advisory lock
// (cmd/workspaced/serve.go passes Migrate to it). Nothing in the domain (workspace) or
// the store imports River; docs/imports_test.go holds it so.
package queue

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/agencyos/workspaced/store"
)

// Driver returns River's pgx driver over s's pool.
func Driver(s *store.Store) *riverpgxv5.Driver { return riverpgxv5.New(s.Pool()) }

// Migrate applies River's migrations that have not run yet; it is a store.Migrator.
func Migrate(ctx context.Context, s *store.Store, log *slog.Logger) error {
	m, err := rivermigrate.New(Driver(s), nil)
	if err != nil {
		return fmt.Errorf("queue: river migrations: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("queue: river migrate: %w", err)
	}
	for _, v := range res.Versions {
		if log != nil {
			log.Info("migrated river", "version", v.Version, "took", v.Duration)
		}
	}
	return nil
}

var _ store.Migrator = Migrate
