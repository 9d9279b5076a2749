package oauth_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestGrantsUseIndexesWithStaleStatistics: the OAuth tables are analysed while nearly
// empty, then grow to 2,000 clients, 4,000 families (20,000 refresh and access tokens) and
// 5,000 used codes (codes are purged an hour after they expire) with autovacuum off for
// them, so the planner works from statistics that describe a handful of rows. Every path of
// both grant functions, the client check (00017) included, must still reach its rows
// through an index: inside one transaction, past the fifth execution after which PL/pgSQL
// may switch to generic plans, pg_stat_xact_user_tables counts no sequential scan of an
// OAuth table. The superseding path once joined access tokens by refresh_id, which has no
// index, and scanned every access token.
func TestGrantsUseIndexesWithStaleStatistics(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pool := storetest.Pool(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	tables := []string{"oauth_clients", "oauth_families", "oauth_refresh_tokens", "oauth_access_tokens", "oauth_codes"}
	for _, table := range tables {
		exec(`ALTER TABLE ` + table + ` SET (autovacuum_enabled = false)`)
		t.Cleanup(func() { _, _ = pool.Exec(ctx, `ALTER TABLE `+table+` RESET (autovacuum_enabled)`) })
	}
	exec(`ANALYZE ` + strings.Join(tables, ", "))

	redirect := "https://app.example.com/callback"
	clientID := e.register(redirect)
	run := strconv.FormatInt(time.Now().UnixNano(), 36) // keys unique per run: the test may be repeated on one database
	exec(`INSERT INTO oauth_clients (id, name, redirect_uris) SELECT 'svcdyn_fill_' || $1 || '_' || g, 'fill', '{https://fill.example/cb}'
		FROM generate_series(1, 2000) g`, run)
	exec(`WITH f AS (
			INSERT INTO oauth_families (client_id, user_id, workspace_id, scopes, created_at)
			SELECT $1, $2, $3, '{deals:read}', now() FROM generate_series(1, 4000) RETURNING id),
		r AS (
			INSERT INTO oauth_refresh_tokens (family_id, token_hash, generation, scopes, created_at, expires_at, retired_at)
			SELECT f.id, sha256(convert_to(f.id::text || g, 'UTF8')), g, '{deals:read}', now(), now() + interval '30 days',
				CASE WHEN g < 5 THEN now() END
			FROM f, generate_series(1, 5) g RETURNING id, family_id, token_hash)
		INSERT INTO oauth_access_tokens (family_id, refresh_id, token_hash, scopes, created_at, expires_at)
		SELECT family_id, id, sha256(token_hash), '{deals:read}', now(), now() + interval '1 hour' FROM r`,
		clientID, e.Member.ID, e.WorkspaceID)
	exec(`INSERT INTO oauth_codes (code_hash, client_id, user_id, workspace_id, redirect_uri, redirect_uri_given, code_challenge,
			scopes, created_at, expires_at, used_at)
		SELECT sha256(convert_to('code' || $5 || '_' || g, 'UTF8')), $1, $2, $3, $4, true, 'x', '{deals:read}', now(), now(), now()
		FROM generate_series(1, 5000) g`, clientID, e.Member.ID, e.WorkspaceID, redirect, run)

	// Real credentials through the endpoints: one token family and eight codes.
	br := e.browser()
	code, verifier := e.flow(br, e.Member, clientID, redirect, "deals:read", nil)
	first := e.exchange(clientID, code, verifier, redirect)
	type pending struct{ code, verifier string }
	var codes []pending
	for range 8 {
		v, challenge := pkce()
		r := br.get(e.authURL(clientID, redirect, challenge, "deals:read", "s"))
		loc, _ := url.Parse(r.Header.Get("Location"))
		if loc == nil || loc.Query().Get("code") == "" {
			t.Fatalf("authorize: %d %s", r.Status, r.Raw)
		}
		codes = append(codes, pending{loc.Query().Get("code"), v})
	}

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	now := time.Now()
	refresh := func(plain string, graceStart time.Time) (outcome, next string) {
		t.Helper()
		next, nextHash := store.NewSecret(store.PrefixRefreshToken)
		_, accessHash := store.NewSecret(store.PrefixAccessToken)
		if err := tx.QueryRow(ctx, `SELECT outcome FROM oauth_refresh_grant($1, NULL, $2, $3, $4, NULL, '', $5, $6, $7, $7)`,
			clientID, store.HashSecret(plain), now, graceStart, nextHash, accessHash, now.Add(time.Hour)).Scan(&outcome); err != nil {
			t.Fatal(err)
		}
		return outcome, next
	}
	exchange := func(p pending) (outcome string) {
		t.Helper()
		_, refreshHash := store.NewSecret(store.PrefixRefreshToken)
		_, accessHash := store.NewSecret(store.PrefixAccessToken)
		if err := tx.QueryRow(ctx, `SELECT outcome FROM oauth_code_grant($1, NULL, $2, $3, true, $4, $5, '', $6, $7, $8, $8)`,
			clientID, store.HashSecret(p.code), now, redirect, challengeOf(p.verifier), refreshHash, accessHash,
			now.Add(time.Hour)).Scan(&outcome); err != nil {
			t.Fatal(err)
		}
		return outcome
	}
	want := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Fatalf("%s: outcome %q, want %q", what, got, want)
		}
	}

	cur, prev := first.Refresh, ""
	for range 8 {
		out, next := refresh(cur, now.Add(-30*time.Second))
		want("rotation", out, "rotated")
		prev, cur = cur, next
	}
	for range 8 {
		out, _ := refresh(prev, now.Add(-30*time.Second))
		want("replay inside the window", out, "superseded")
	}
	out, _ := refresh(prev, now.Add(time.Minute)) // the window has passed
	want("replay after the window", out, "reused")
	for _, p := range codes[:7] {
		want("exchange", exchange(p), "issued")
	}
	want("replayed code", exchange(codes[0]), "replayed")
	want("unknown code", exchange(pending{"svc_ac_unknown", codes[7].verifier}), "unknown")
	var outcome string
	if err := tx.QueryRow(ctx, `SELECT (oauth_refresh_grant('svcdyn_unknown', NULL, $1, $2, $2, NULL, '', $1, $1, $2, $2)).outcome`,
		store.HashSecret(cur), now).Scan(&outcome); err != nil {
		t.Fatal(err)
	}
	want("unknown client", outcome, "client_unknown")

	rows, err := tx.Query(ctx, `SELECT relname, seq_scan FROM pg_stat_xact_user_tables
		WHERE relname LIKE 'oauth\_%' AND seq_scan > 0 ORDER BY relname`)
	if err != nil {
		t.Fatal(err)
	}
	type scans struct {
		Table string
		N     int64
	}
	seq, err := pgx.CollectRows(rows, pgx.RowToStructByPos[scans])
	if err != nil {
		t.Fatal(err)
	}
	if len(seq) > 0 {
		t.Fatalf("sequential scans of OAuth tables during the grants: %+v", seq)
	}
}
