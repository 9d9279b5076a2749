// Package store holds the PostgreSQL side of the service: the connection pool, the embedded
// migrations, transactions that run as an actor under row-level security, the Error type
// every layer renders, and the identities and credentials it reads (the principal built
// from them is package auth's).
package store

import (
	"cmp"
	"context"
	"embed"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is the service's handle on PostgreSQL.
type Store struct {
	pool *pgxpool.Pool
	// codePoint: the database's default collation orders text by code point (TextInCodePointOrder).
	codePoint bool
}

// DefaultMaxConns is the pool size when Options.MaxConns is 0 (DB_MAX_CONNS's default).
// pgx's own default, the larger of 4 and the number of CPUs, left requests queuing for a
// connection while others waited on the network, a lock or a commit's flush: a
// 16-connection pool gave 1.25-1.35x the refresh grants of 4 on two cores (oauth benchmarks).
const DefaultMaxConns = 16

// Open connects to the database at dsn and checks that it answers.
func Open(ctx context.Context, dsn string) (*Store, error) { return OpenWith(ctx, dsn, Options{}) }

// OpenWith is Open with bounds on every wait (Options).
func OpenWith(ctx context.Context, dsn string, o Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: parse DATABASE_URL: %w", err)
	}
	if o.ConnectTimeout > 0 {
		cfg.ConnConfig.ConnectTimeout = o.ConnectTimeout
	}
	if o.AcquireTimeout > 0 || o.StatementTimeout > 0 || o.Observe != nil {
		// pgxpool takes the acquire hooks from the same tracer value.
		cfg.ConnConfig.Tracer = deadlines{acquire: o.AcquireTimeout, statement: o.StatementTimeout, observe: o.Observe}
	}
	cfg.MaxConns = int32(cmp.Or(o.MaxConns, DefaultMaxConns))
	// No JIT compilation: requests are short statements, and a search's estimated cost (RLS
	// quals, text-search functions, a UNION branch per resource) crosses jit_above_cost, so
	// the server default compiled every call: 5 s for GET /v1/search on the demo's few rows,
	// 50 ms without (TestRequestsNeverJITCompile). A jit option in DATABASE_URL still wins.
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	if err := pool.Ping(WithoutDeadlines(ctx)); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: ping: %w", err)
	}
	codePoint, err := collatesByCodePoint(WithoutDeadlines(ctx), pool)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: read the database's collation: %w", err)
	}
	return &Store{pool: pool, codePoint: codePoint}, nil
}

// TextInCodePointOrder reports whether the database's default collation orders text by
// code point, as the C, POSIX and C.UTF-8 collations of the C library (and PostgreSQL
// 17's builtin provider) do: then the values starting with a prefix are exactly one range
// of a text index, from the prefix to its successor (workspace's prefix operator reads
// them so). Under any other collation (en_US, ICU) the order is a language's, and no such
// range is known to hold them all.
func (s *Store) TextInCodePointOrder() bool { return s.codePoint }

// collatesByCodePoint reads the database's collation provider and default collation once.
// datlocprovider (PostgreSQL 15) is read through to_jsonb, so that an older server, which
// has only the C library's collations, still answers.
func collatesByCodePoint(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var provider, collate string
	err := pool.QueryRow(ctx, `SELECT coalesce(to_jsonb(d)->>'datlocprovider', 'c'), datcollate
		FROM pg_database d WHERE datname = current_database()`).Scan(&provider, &collate)
	if err != nil {
		return false, err
	}
	switch provider {
	case "c": // the C library's: C and POSIX compare bytes, C.UTF-8 code points (the same order)
		return collate == "C" || collate == "POSIX" || strings.EqualFold(collate, "C.UTF-8") ||
			strings.EqualFold(collate, "C.utf8"), nil
	case "b": // PostgreSQL's builtin provider: every locale of it sorts by code point
		return true, nil
	}
	return false, nil // ICU: a language's order
}

// Stat reports the pool's size and use (its configured MaxConns among them).
func (s *Store) Stat() *pgxpool.Stat { return s.pool.Stat() }

// Ping reports whether the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Close releases every connection.
func (s *Store) Close() { s.pool.Close() }

// Migrator applies another schema's migrations after the service's own, inside Migrate's
// advisory lock (queue.Migrate: River's tables).
type Migrator func(ctx context.Context, s *Store, log *slog.Logger) error

// Pool is the service's connection pool, for a driver that needs it (queue.Driver: River).
// Requests never use it: they go through Query and Tx, as their actor.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Migrate applies the embedded migrations that have not run yet, then each of then.
// Concurrent starts are serialised by an advisory lock so two processes never migrate at
// once.
func (s *Store) Migrate(ctx context.Context, log *slog.Logger, then ...Migrator) error {
	ctx = WithoutDeadlines(ctx)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7294001)"); err != nil {
		return fmt.Errorf("store: migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(7294001)")

	db := stdlib.OpenDBFromPool(s.pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, mustSub(migrations, "migrations"))
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	for _, r := range results {
		if log != nil {
			log.Info("migrated", "version", r.Source.Version, "file", r.Source.Path, "took", r.Duration)
		}
	}
	for _, m := range then {
		if err := m(ctx, s, log); err != nil {
			return err
		}
	}
	return nil
}
