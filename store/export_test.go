package store

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

// PoolOf hands store's own tests the pool of s, deadlines and all; other packages' tests
// use storetest.Pool.
func PoolOf(s *Store) *pgxpool.Pool { return s.pool }

// MigrateTo applies the embedded migrations up to version alone, so a test can load rows
// as an older schema held them and then Migrate the rest.
func MigrateTo(ctx context.Context, s *Store, version int64) error {
	db := stdlib.OpenDBFromPool(s.pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, mustSub(migrations, "migrations"))
	if err != nil {
		return err
	}
	_, err = provider.UpTo(ctx, version)
	return err
}

// SentButUnanswered is sentButUnanswered, for TestSentButUnanswered.
var SentButUnanswered = sentButUnanswered
