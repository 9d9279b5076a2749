package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/queue"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/pglaunch"
	"github.com/agencyos/workspaced/store/storetest"
)

var update = flag.Bool("update", false, "rewrite store/schema.sql from a freshly migrated database")

// unstable matches the lines of a pg_dump that say when, by what or for whom it was made
// rather than what the schema is: version comments, session settings, and the
// \restrict lines of newer pg_dumps (their key is random).
var unstable = regexp.MustCompile(`(?m)^(-- Dumped (from|by) .*|SET .*|SELECT pg_catalog\.set_config\('search_path'.*|\\(un)?restrict .*)\n`)

const schemaHeader = `-- The schema store/migrations make, as pg_dump --schema-only --no-owner prints it for a
-- freshly migrated database. Generated: do not edit. Change a migration, then run
--   go test ./store -run TestSchemaIsCheckedIn -update

`

// TestSchemaIsCheckedIn: store/schema.sql is the schema the migrations make, dumped from
// a freshly migrated database, so a reader sees every table, policy and function as it
// is now in one file instead of replaying seventeen migrations. A migration that changes
// the schema changes this file in the same commit: go test ./store -run TestSchemaIsCheckedIn -update.
func TestSchemaIsCheckedIn(t *testing.T) {
	dsn := freshDatabase(t)
	pgDump := pgDumpPath(t)
	out, err := exec.Command(pgDump, "--schema-only", "--no-owner", "--no-comments", "--dbname", dsn).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("%s --schema-only: %s", pgDump, msg)
	}
	got := unstable.ReplaceAll(out, nil)
	got = append(bytes.TrimSpace(regexp.MustCompile(`\n{3,}`).ReplaceAll(got, []byte("\n\n"))), '\n')
	got = append([]byte(schemaHeader), got...)
	if *update {
		if err := os.WriteFile("schema.sql", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("schema.sql")
	if err != nil {
		t.Fatalf("%v: make it with go test ./store -run TestSchemaIsCheckedIn -update", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("store/schema.sql is not the schema the migrations make (-checked in +migrated); "+
			"if the migrations are right, refresh it with go test ./store -run TestSchemaIsCheckedIn -update:\n%s", diff)
	}
}

// freshDatabase makes a database of its own beside the package's, migrates it and returns
// its DSN, so what other tests of the package leave in theirs never reaches the dump.
func freshDatabase(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	base := storetest.DSN(t)
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := "workspaced_schema_" + hex.EncodeToString(rnd[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	dsn := base + " dbname=" + name // a keyword/value DSN
	if u, err := url.Parse(base); err == nil && u.Scheme != "" {
		u.Path = "/" + name
		dsn = u.String()
	}
	s, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx, nil, queue.Migrate); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// pgDumpPath finds pg_dump beside the PostgreSQL server binaries the launcher uses (so its
// version matches the server's), else on PATH.
func pgDumpPath(t *testing.T) string {
	t.Helper()
	if dir, _, err := pglaunch.Binaries(); err == nil {
		if p := filepath.Join(dir, "pg_dump"); fileExists(p) {
			return p
		}
	}
	p, err := exec.LookPath("pg_dump")
	if err != nil {
		t.Fatalf("pg_dump is needed to compare store/schema.sql with the migrated schema: install PostgreSQL's client tools (Debian: apt-get install postgresql-client): %v", err)
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
