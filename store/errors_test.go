package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestDataErrorsAreClientErrors: the SQLSTATEs hostile values provoke (NUL bytes, invalid
// UTF-8, \u0000 in jsonb, an index row too large, nesting too deep) map to 400 with the
// caller's code on writes and bad_request on reads, never to a 500.
func TestDataErrorsAreClientErrors(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	random := make([]byte, 300_000) // incompressible, so the index row stays too large
	_, _ = rand.Read(random)
	cases := []struct {
		name, sql string
		args      []any
		sqlstate  string
	}{
		{"NUL in text", `SELECT $1::text`, []any{"a\x00b"}, "22021"},
		{"invalid UTF-8 in text", `SELECT $1::text`, []any{"\xff\xfe"}, "22021"},
		{"NUL in jsonb", `SELECT $1::text::jsonb`, []any{`{"k":"a\u0000b"}`}, "22P05"},
		{"index row too large", `INSERT INTO hostile VALUES ($1)`, []any{hex.EncodeToString(random)}, "54000"},
		{"nesting too deep", `SELECT $1::text::jsonb`, []any{strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000)}, "54001"},
	}
	conn, err := store.PoolOf(s).Acquire(ctx) // the temp table lives on one connection
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE hostile (v text); CREATE INDEX ON hostile (v)`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := conn.Exec(ctx, tc.sql, tc.args...)
			var pg *pgconn.PgError
			if !errors.As(err, &pg) || pg.Code != tc.sqlstate {
				t.Fatalf("want SQLSTATE %s, got %v", tc.sqlstate, err)
			}
			w := store.AsError(store.MapWriteError(err, "create_failed"))
			if httpx.Status(w) != http.StatusBadRequest || w.Code != "create_failed" {
				t.Fatalf("write: %d %s, want 400 create_failed", httpx.Status(w), w.Code)
			}
			r := store.AsError(store.MapReadError(err))
			if httpx.Status(r) != http.StatusBadRequest || r.Code != "bad_request" {
				t.Fatalf("read: %d %s, want 400 bad_request", httpx.Status(r), r.Code)
			}
		})
	}
	t.Run("other errors stay server errors", func(t *testing.T) {
		_, err := conn.Exec(ctx, `SELECT * FROM no_such_table`)
		if e := store.AsError(store.MapReadError(err)); httpx.Status(e) != http.StatusInternalServerError {
			t.Fatalf("undefined table mapped to %d", httpx.Status(e))
		}
	})
}
