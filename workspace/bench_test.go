package workspace_test

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// Benchmarks of docs/performance.md ("REST reads"): the operation layer next to the very
// statement it runs, sent straight through store.Query with the same actor batch, in one
// run (restapi/bench_test.go puts the operation layer next to the full HTTP stack).
// Re-run with:
//
//	go test ./workspace/ -run '^$' -bench 'Deal' -benchtime 2s

// dealsWorld is a workspace of deals in one pipeline, its admin, a deal, and the operations.
type dealsWorld struct {
	s     *store.Store
	ops   *workspace.Ops
	admin *auth.Principal
	deal  string
}

// newDealsWorld makes a workspace with n deals, one second apart in created_at, and
// analyses the table.
func newDealsWorld(tb testing.TB, n int) *dealsWorld {
	tb.Helper()
	s := storetest.New(tb)
	f := storetest.Workspace(tb, s, workspace.Scopes())
	ctx := context.Background()
	w := &dealsWorld{s: s, ops: workspace.NewOps(workspace.Config{Store: s}), admin: f.Admin}
	err := storetest.Pool(tb).QueryRow(ctx, `WITH pl AS (INSERT INTO pipelines (workspace_id, created_by, name)
			VALUES ($1, $2, 'Bench') RETURNING id),
		d AS (INSERT INTO deals (workspace_id, created_by, name, pipeline_id, value, notes, created_at)
			SELECT $1, $2, 'Deal ' || g, pl.id, g * 10.5, 'notes of deal ' || g, now() - g * interval '1 second'
			FROM pl, generate_series(1, $3::int) g RETURNING id)
		SELECT id::text FROM d LIMIT 1`, f.WorkspaceID, f.Admin.UserID, n).Scan(&w.deal)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := storetest.Pool(tb).Exec(ctx, `VACUUM ANALYZE deals`); err != nil {
		tb.Fatal(err)
	}
	return w
}

func drain(rows pgx.Rows) error {
	for rows.Next() {
		var a, b, c any
		if len(rows.FieldDescriptions()) == 1 {
			if err := rows.Scan(&a); err != nil {
				return err
			}
			continue
		}
		if err := rows.Scan(&a, &b, &c); err != nil {
			return err
		}
	}
	return nil
}

func BenchmarkGetDeal(b *testing.B) {
	w := newDealsWorld(b, 60)
	ctx, deals := context.Background(), workspace.Lookup("deals")
	sql := w.ops.GetSQL(deals)
	b.Run("ops", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.ops.Get(ctx, w.admin, deals, w.deal); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pgx", func(b *testing.B) { // the same statement and actor batch, one round trip
		for b.Loop() {
			if err := w.s.Query(ctx, w.admin.Actor(), sql, []any{w.deal}, drain); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkListDeals50(b *testing.B) {
	benchListOpsAndPgx(b, newDealsWorld(b, 60), workspace.Lookup("deals"), workspace.ListParams{Limit: 50})
}

// benchListOpsAndPgx runs the list of params as two sub-benchmarks: "ops" through Ops.List,
// "pgx" its statement through store.Query as the actor. It returns the statement.
func benchListOpsAndPgx(b *testing.B, w *dealsWorld, r *workspace.Resource, params workspace.ListParams) (string, []any) {
	ctx := context.Background()
	sql, args, _, err := w.ops.ListSQL(ctx, w.admin, r, params)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ops", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.ops.List(ctx, w.admin, r, params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pgx", func(b *testing.B) {
		for b.Loop() {
			if err := w.s.Query(ctx, w.admin.Actor(), sql, args, drain); err != nil {
				b.Fatal(err)
			}
		}
	})
	return sql, args
}

// TestPageAtDepthCostsNoMore compares the first page of 100,000 deals with the page that
// continues 99,900 rows in, in both orders: newest created first, and the incremental
// sync's order=updated_at. The keyset condition is an index condition, so both read a
// handful of index and heap pages. It reports buffers and timings (docs/performance.md)
// and asserts only on buffers, which do not depend on the machine.
func TestPageAtDepthCostsNoMore(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100,000 deals")
	}
	w := newDealsWorld(t, 100_000)
	ctx, deals := context.Background(), workspace.Lookup("deals")
	for _, c := range []struct {
		order  workspace.Order
		column string // the list's time column
		keys   string // the list's order, for the row at depth
	}{
		{workspace.OrderCreated, "created_at", "created_at DESC, id DESC"},
		{workspace.OrderUpdated, "updated_at", "updated_at, id"},
	} {
		t.Run("order="+c.order.String(), func(t *testing.T) {
			var at time.Time
			var id string
			if err := storetest.Pool(t).QueryRow(ctx, `SELECT `+c.column+`, id::text FROM deals
				WHERE workspace_id = $1 ORDER BY `+c.keys+` OFFSET $2 LIMIT 1`, w.admin.WorkspaceID, 100_000-100-1).Scan(&at, &id); err != nil {
				t.Fatal(err)
			}
			cursor, err := w.ops.Cursor(ctx, deals, c.order, at, id)
			if err != nil {
				t.Fatal(err)
			}
			pageAtDepth(t, w, c.order, cursor)
		})
	}
}

func pageAtDepth(t *testing.T, w *dealsWorld, order workspace.Order, cursor string) {
	ctx, deals := context.Background(), workspace.Lookup("deals")
	type cost struct {
		buffers int
		exec    float64
		ops     time.Duration
	}
	measure := func(params workspace.ListParams) cost {
		sql, args, _, err := w.ops.ListSQL(ctx, w.admin, deals, params)
		if err != nil {
			t.Fatal(err)
		}
		var plan []byte
		query := w.s.Query
		if params.Order == workspace.OrderUpdated {
			query = w.s.QuerySync // the sync's horizon, as List runs it
		}
		if err := query(ctx, w.admin.Actor(), "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sql, args, func(rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&plan); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var out []struct {
			Plan struct {
				Hit  int `json:"Shared Hit Blocks"`
				Read int `json:"Shared Read Blocks"`
			}
			Exec float64 `json:"Execution Time"`
		}
		if err := json.Unmarshal(plan, &out); err != nil {
			t.Fatal(err)
		}
		var times []time.Duration
		for range 21 {
			start := time.Now()
			if _, err := w.ops.List(ctx, w.admin, deals, params); err != nil {
				t.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		return cost{out[0].Plan.Hit + out[0].Plan.Read, out[0].Exec, times[len(times)/2]}
	}
	first := measure(workspace.ListParams{Limit: 50, Order: order})
	depth := measure(workspace.ListParams{Limit: 50, Order: order, Cursor: cursor})
	t.Logf("first page:        %d buffers, execution %.3f ms, Ops.List median %v", first.buffers, first.exec, first.ops)
	t.Logf("page at depth 99900: %d buffers, execution %.3f ms, Ops.List median %v", depth.buffers, depth.exec, depth.ops)
	if depth.buffers > 2*first.buffers+10 {
		t.Errorf("the page at depth reads %d buffers, the first %d: the keyset is not an index condition", depth.buffers, first.buffers)
	}
	// 100,000 deals fill thousands of pages: a page that reads hundreds walks no index.
	if first.buffers > 200 || depth.buffers > 200 {
		t.Errorf("pages read %d and %d buffers for 50 rows: the order has no index", first.buffers, depth.buffers)
	}
}

// BenchmarkListDealsCustom is the list of bench/perf-load.sh's group custom: 50 deals of
// 10,000 by a select custom field matching one in three, sorted by a number field. "ops" is
// Ops.List (the definitions, the statement, the actor batch), "pgx" the same statement
// through store.Query as the actor (row-level security), "floor" the statement as
// bench/floor runs it: on the owner's pool, no actor, sorting off for its batch.
func BenchmarkListDealsCustom(b *testing.B) {
	w := newDealsWorld(b, 10_000)
	ctx, deals := context.Background(), workspace.Lookup("deals")
	pool := storetest.Pool(b)
	if _, err := pool.Exec(ctx, `INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type, options)
		SELECT $1, $2, 'deals', k, k, t, o::jsonb
		FROM (VALUES ('load_tier', 'select', '[{"key":"gold","label":"Gold"},{"key":"silver","label":"Silver"},{"key":"bronze","label":"Bronze"}]'),
			('load_score', 'number', '[]')) f(k, t, o)`, w.admin.WorkspaceID, w.admin.UserID); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE deals SET custom_fields = jsonb_build_object('load_tier', (ARRAY['gold', 'silver', 'bronze'])[1 + g % 3], 'load_score', g % 997)
		FROM (SELECT id, row_number() OVER (ORDER BY created_at DESC, id DESC)::int AS g FROM deals WHERE workspace_id = $1) x
		WHERE deals.id = x.id`, w.admin.WorkspaceID); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE deals, custom_values, custom_fields`); err != nil {
		b.Fatal(err)
	}
	params, err := workspace.ParseListParams(deals, map[string][]string{"limit": {"50"},
		"custom_fields.load_tier": {"gold"}, "sort": {"-custom_fields.load_score"}})
	if err != nil {
		b.Fatal(err)
	}
	sql, args := benchListOpsAndPgx(b, w, deals, params)
	b.Run("floor", func(b *testing.B) {
		for b.Loop() {
			batch := &pgx.Batch{}
			batch.Queue(`SELECT set_config('enable_sort', 'off', true)`)
			batch.Queue(sql, args...)
			if err := pool.SendBatch(ctx, batch).Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
