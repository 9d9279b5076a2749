// Package storetest gives each test binary its own freshly migrated PostgreSQL database,
// so packages run in parallel without sharing tables, and helpers that make workspaces and
// principals. Tests never mock the store.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agencyos/workspaced/queue"
	"github.com/agencyos/workspaced/store"
)

// The database of this test binary, made on first use and dropped by Main.
var (
	once    sync.Once
	shared  *store.Store
	dsn     string
	dbName  string
	adminDB string
	initErr error
	raw     *pgxpool.Pool
	rawOnce sync.Once
	rawErr  error
)

// Main runs the package's tests and drops the package database afterwards. Call it from
// TestMain: func TestMain(m *testing.M) { storetest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	if raw != nil {
		raw.Close()
	}
	if shared != nil {
		shared.Close()
		dropDatabase()
	}
	stopLauncher()
	os.Exit(code)
}

// New returns the migrated store of this test binary.
func New(tb testing.TB) *store.Store {
	tb.Helper()
	once.Do(func() { initErr = setup() })
	if initErr != nil {
		tb.Fatalf("storetest: %v", initErr)
	}
	return shared
}

// DSN returns the connection string of this test binary's database (for subprocesses).
func DSN(tb testing.TB) string {
	New(tb)
	return dsn
}

// Pool returns a connection pool on this test binary's database, outside row-level
// security, for tests that arrange or inspect rows with SQL of their own. Production code
// has no such handle: store keeps its pool to itself.
func Pool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	New(tb)
	rawOnce.Do(func() {
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			raw, rawErr = nil, err
			return
		}
		cfg.MaxConns = store.DefaultMaxConns // the store's size, so benchmarks compare like with like
		raw, rawErr = pgxpool.NewWithConfig(context.Background(), cfg)
	})
	if rawErr != nil {
		tb.Fatalf("storetest: pool: %v", rawErr)
	}
	return raw
}

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := adminURL(ctx)
	if err != nil {
		return err
	}
	adminDB = admin
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	dbName = dbPrefix + hex.EncodeToString(rnd[:])
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect %s: %w", redact(admin), err)
	}
	defer conn.Close(ctx)
	sweep(ctx, conn, time.Now())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+dbName); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	if _, err := conn.Exec(ctx, "COMMENT ON DATABASE "+dbName+" IS "+quote(mark(time.Now()))); err != nil {
		return fmt.Errorf("mark database: %w", err)
	}
	dsn = replaceDatabase(admin, dbName)
	s, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	if err := s.Migrate(ctx, nil, queue.Migrate); err != nil {
		s.Close()
		return err
	}
	shared = s
	return nil
}

// EmptyDatabase makes a database of its own for one test, with CREATE DATABASE's options
// (a locale, a collation provider) and without migrations, marked like the package's so a
// crashed binary's is swept, dropped when the test ends; it returns the database's DSN.
func EmptyDatabase(tb testing.TB, options string) string {
	tb.Helper()
	New(tb)
	ctx := context.Background()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := dbPrefix + hex.EncodeToString(rnd[:])
	conn, err := pgx.Connect(ctx, adminDB)
	if err != nil {
		tb.Fatalf("storetest: connect: %v", err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{"CREATE DATABASE " + name + " " + options,
		"COMMENT ON DATABASE " + name + " IS " + quote(mark(time.Now()))} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			tb.Fatalf("storetest: %s: %v", sql, err)
		}
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, adminDB); err == nil {
			defer conn.Close(ctx)
			_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		}
	})
	return replaceDatabase(adminDB, name)
}

// Private makes a migrated database of its own for one test, dropped when the test ends,
// and returns its store (closed when the test ends) and DSN: for a test whose tables and
// statistics the package's other tests, sharing New's database, must not reach, such as a
// plan test that analyses a million rows.
func Private(tb testing.TB) (*store.Store, string) {
	tb.Helper()
	dsn := EmptyDatabase(tb, "")
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	if err != nil {
		tb.Fatalf("storetest: open: %v", err)
	}
	tb.Cleanup(s.Close) // before EmptyDatabase's drop: cleanups run last added first
	if err := s.Migrate(ctx, nil, queue.Migrate); err != nil {
		tb.Fatalf("storetest: migrate: %v", err)
	}
	return s, dsn
}

func dropDatabase() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, adminDB)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)")
}

// quote is a SQL string literal (COMMENT takes no parameters).
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
