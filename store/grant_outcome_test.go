package store_test

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// sqlOutcome finds the outcome strings in a grant function's source: the values it
// assigns (outcome := 'x', CASE ... THEN 'x' / ELSE 'x') and the ones it tests.
var sqlOutcome = regexp.MustCompile(`(?:\bTHEN|\bELSE|\boutcome\s*(?::=|=|<>))\s*'([a-z_]+)'`)

// TestGrantOutcomesMatchTheSQL: the grant functions' outcomes are Go constants
// (store.GrantOutcome) and SQL strings; the two lists are the same list. Reading the
// installed functions' source (pg_get_functiondef) catches an outcome added to, renamed
// in or dropped from either side.
func TestGrantOutcomesMatchTheSQL(t *testing.T) {
	s := storetest.New(t)
	shared := []store.GrantOutcome{store.GrantUnknown, store.GrantExpired, store.GrantOtherClient, store.GrantOtherResource}
	for _, tc := range []struct {
		function string
		want     []store.GrantOutcome
	}{
		{"oauth_client_check", []store.GrantOutcome{store.ClientUnknown, store.ClientSecretMissing, store.ClientSecretWrong}},
		{"oauth_code_grant", append([]store.GrantOutcome{store.CodeGrantIssued, store.CodeGrantReplayed, store.CodeGrantBadRequest,
			store.CodeGrantOtherRedirect, store.CodeGrantWrongVerifier}, shared...)},
		{"oauth_refresh_grant", append([]store.GrantOutcome{store.RefreshRotated, store.RefreshSuperseded, store.RefreshRevoked,
			store.RefreshInactive, store.RefreshReused, store.RefreshWiderScope}, shared...)},
	} {
		t.Run(tc.function, func(t *testing.T) {
			rows, err := store.PoolOf(s).Query(context.Background(),
				`SELECT pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.proname = $1 AND p.pronamespace = 'public'::regnamespace`, tc.function)
			if err != nil {
				t.Fatal(err)
			}
			defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			if len(defs) != 1 {
				t.Fatalf("%d functions named %s, want 1 (migration 00018 dropped the superseded ones)", len(defs), tc.function)
			}
			var got []store.GrantOutcome
			for _, m := range sqlOutcome.FindAllStringSubmatch(defs[0], -1) {
				if o := store.GrantOutcome(m[1]); !slices.Contains(got, o) {
					got = append(got, o)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("outcomes of %s: Go constants (-) and SQL source (+) differ; add or rename the constant in store/grant_outcome.go and the case in oauth/token.go:\n%s",
					tc.function, diff)
			}
		})
	}
}
