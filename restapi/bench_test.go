package restapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// Benchmarks of docs/performance.md: the full HTTP stack (httptest server, a real client
// with keep-alive) next to the operation layer alone and the same statement sent straight
// through pgx, in one run. Re-run with:
//
//	go test ./restapi/ -run '^$' -bench . -benchtime 2s

// benchWorld is a workspace with n deals, one pipeline, an admin and their token.
type benchWorld struct {
	e     *env
	admin *auth.Principal
	token string
	deal  string
}

func newBenchWorld(b testing.TB, deals int) *benchWorld {
	b.Helper()
	e := newEnv(b)
	admin, deal := seedDeals(b, e.store, deals)
	return &benchWorld{e: e, admin: admin, token: e.token(admin), deal: deal}
}

// seedDeals makes a workspace with n deals in one pipeline and returns its admin and a deal.
func seedDeals(b testing.TB, s *store.Store, deals int) (*auth.Principal, string) {
	b.Helper()
	f := storetest.Workspace(b, s, workspace.Scopes())
	ctx := context.Background()
	var deal string
	err := storetest.Pool(b).QueryRow(ctx, `WITH pl AS (INSERT INTO pipelines (workspace_id, created_by, name)
			VALUES ($1, $2, 'Bench') RETURNING id),
		d AS (INSERT INTO deals (workspace_id, created_by, name, pipeline_id, value, notes, created_at)
			SELECT $1, $2, 'Deal ' || g, pl.id, g * 10.5, 'notes of deal ' || g, now() - g * interval '1 second'
			FROM pl, generate_series(1, $3::int) g RETURNING id)
		SELECT id::text FROM d LIMIT 1`, f.WorkspaceID, f.Admin.UserID, deals).Scan(&deal)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := storetest.Pool(b).Exec(ctx, `VACUUM ANALYZE deals`); err != nil {
		b.Fatal(err)
	}
	return f.Admin, deal
}

func (w *benchWorld) get(b testing.TB, path string) { w.send(b, "GET", path, "") }

// send makes one request as the admin, a JSON body when body is not "", and wants a 200.
func (w *benchWorld) send(b testing.TB, method, path, body string) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, w.e.srv.URL+"/v1"+path, rd)
	req.Header.Set("apikey", testAPIKey)
	req.Header.Set("Authorization", "Bearer "+w.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: %d", method, path, res.StatusCode)
	}
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
	w := newBenchWorld(b, 60)
	ctx := context.Background()
	ops := w.e.ops
	sql := workspace.GetSQLForTest("deals")
	b.Run("api", func(b *testing.B) {
		for b.Loop() {
			w.get(b, "/deals/"+w.deal)
		}
	})
	b.Run("ops", func(b *testing.B) {
		for b.Loop() {
			if _, err := ops.Get(ctx, w.admin, workspace.Lookup("deals"), w.deal); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pgx", func(b *testing.B) { // the same statement and actor batch, one round trip
		for b.Loop() {
			if err := w.e.store.Query(ctx, w.admin.Actor(), sql, []any{w.deal}, drain); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkListDeals50(b *testing.B) {
	w := newBenchWorld(b, 60)
	ctx := context.Background()
	ops := w.e.ops
	sql, args, err := ops.ListSQLForTest(ctx, w.admin, "deals", workspace.ListParams{Limit: 50})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("api", func(b *testing.B) {
		for b.Loop() {
			w.get(b, "/deals?limit=50")
		}
	})
	b.Run("ops", func(b *testing.B) {
		for b.Loop() {
			if _, err := ops.List(ctx, w.admin, workspace.Lookup("deals"), workspace.ListParams{Limit: 50}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pgx", func(b *testing.B) {
		for b.Loop() {
			if err := w.e.store.Query(ctx, w.admin.Actor(), sql, args, drain); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPatchDeal is a partial update of one field of a deal (PATCH /v1/deals/{id}),
// a new value each time: the statement, the updated_at and activity triggers (the activity
// row lists the changed fields, store/migrations/00031_activity_cost.sql) and, with no
// webhook endpoint, the outbox trigger's probe (docs/performance.md, "REST writes").
func BenchmarkPatchDeal(b *testing.B) {
	w := newBenchWorld(b, 60)
	ctx := context.Background()
	ops, deals := w.e.ops, workspace.Lookup("deals")
	n := 0
	b.Run("api", func(b *testing.B) {
		for b.Loop() {
			n++
			w.send(b, "PATCH", "/deals/"+w.deal, `{"notes":"call `+strconv.Itoa(n)+`"}`)
		}
	})
	b.Run("ops", func(b *testing.B) {
		for b.Loop() {
			n++
			if _, err := ops.Update(ctx, w.admin, deals, w.deal, json.RawMessage(`{"notes":"call `+strconv.Itoa(n)+`"}`)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// deep is a workspace of 100,000 deals, seeded once per test binary (it lives in the
// package database). Only the data is shared: each caller gets a server of its own, since
// a server belongs to the test or benchmark that started it and closes when that ends.
var deep struct {
	once  sync.Once
	admin *auth.Principal
	deal  string
}

func deepWorld(tb testing.TB) *benchWorld {
	tb.Helper()
	deep.once.Do(func() { deep.admin, deep.deal = seedDeals(tb, storetest.New(tb), 100_000) })
	if deep.admin == nil {
		tb.Fatal("deep world failed")
	}
	e := newEnv(tb)
	return &benchWorld{e: e, admin: deep.admin, token: e.token(deep.admin), deal: deep.deal}
}

// cursorAtDepth returns the cursor that continues after the depth-th newest deal.
func cursorAtDepth(tb testing.TB, w *benchWorld, depth int) string {
	tb.Helper()
	ctx := context.Background()
	var created time.Time
	var id string
	if err := storetest.Pool(tb).QueryRow(ctx, `SELECT created_at, id::text FROM deals WHERE workspace_id = $1
		ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`, w.admin.WorkspaceID, depth-1).Scan(&created, &id); err != nil {
		tb.Fatal(err)
	}
	c, err := w.e.ops.CursorForTest(ctx, "deals", created, id)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func BenchmarkListDeals50Deep(b *testing.B) {
	w := deepWorld(b)
	cursor := cursorAtDepth(b, w, 100_000-100)
	ctx, ops := context.Background(), w.e.ops
	b.Run("api first page", func(b *testing.B) {
		for b.Loop() {
			w.get(b, "/deals?limit=50")
		}
	})
	b.Run("api page at depth 99900", func(b *testing.B) {
		for b.Loop() {
			w.get(b, "/deals?limit=50&cursor="+cursor)
		}
	})
	b.Run("ops first page", func(b *testing.B) {
		for b.Loop() {
			if _, err := ops.List(ctx, w.admin, workspace.Lookup("deals"), workspace.ListParams{Limit: 50}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ops page at depth 99900", func(b *testing.B) {
		for b.Loop() {
			if _, err := ops.List(ctx, w.admin, workspace.Lookup("deals"), workspace.ListParams{Limit: 50, Cursor: cursor}); err != nil {
				b.Fatal(err)
			}
		}
	})
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
	w := deepWorld(t)
	ctx := context.Background()
	var updated time.Time
	var id string
	if err := storetest.Pool(t).QueryRow(ctx, `SELECT updated_at, id::text FROM deals WHERE workspace_id = $1
		ORDER BY updated_at, id OFFSET $2 LIMIT 1`, w.admin.WorkspaceID, 100_000-100-1).Scan(&updated, &id); err != nil {
		t.Fatal(err)
	}
	syncCursor, err := w.e.ops.SyncCursorForTest(ctx, "deals", updated, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("order=created_at", func(t *testing.T) {
		pageAtDepth(t, w, workspace.OrderCreated, "", cursorAtDepth(t, w, 100_000-100))
	})
	t.Run("order=updated_at", func(t *testing.T) {
		pageAtDepth(t, w, workspace.OrderUpdated, "&order=updated_at", syncCursor)
	})
}

func pageAtDepth(t *testing.T, w *benchWorld, order workspace.Order, query, cursor string) {
	ctx := context.Background()
	ops := w.e.ops
	type cost struct {
		buffers int
		exec    float64
		api     time.Duration
	}
	measure := func(params workspace.ListParams, path string) cost {
		sql, args, err := ops.ListSQLForTest(ctx, w.admin, "deals", params)
		if err != nil {
			t.Fatal(err)
		}
		var plan []byte
		query := w.e.store.Query
		if params.Order == workspace.OrderUpdated {
			query = w.e.store.QuerySync // the sync's horizon, as List runs it
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
			w.get(t, path)
			times = append(times, time.Since(start))
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		return cost{out[0].Plan.Hit + out[0].Plan.Read, out[0].Exec, times[len(times)/2]}
	}
	first := measure(workspace.ListParams{Limit: 50, Order: order}, "/deals?limit=50"+query)
	depth := measure(workspace.ListParams{Limit: 50, Order: order, Cursor: cursor}, "/deals?limit=50"+query+"&cursor="+cursor)
	t.Logf("first page:        %d buffers, execution %.3f ms, API median %v", first.buffers, first.exec, first.api)
	t.Logf("page at depth 99900: %d buffers, execution %.3f ms, API median %v", depth.buffers, depth.exec, depth.api)
	if depth.buffers > 2*first.buffers+10 {
		t.Errorf("the page at depth reads %d buffers, the first %d: the keyset is not an index condition", depth.buffers, first.buffers)
	}
	// 100,000 deals fill thousands of pages: a page that reads hundreds walks no index.
	if first.buffers > 200 || depth.buffers > 200 {
		t.Errorf("pages read %d and %d buffers for 50 rows: the order has no index", first.buffers, depth.buffers)
	}
}

// BenchmarkGetDealCounted is GET /v1/deals/{id} with usage counting off and on
// (workspace.Usage around the authenticator, as cmd wires it), in one run: the cost of
// counting every authenticated request (docs/performance.md, "Usage counting").
func BenchmarkGetDealCounted(b *testing.B) {
	var usage *workspace.Usage
	worlds := map[string]*benchWorld{}
	for _, mode := range []string{"off", "on"} {
		e := newEnv(b, func(c *envConfig) {
			if mode == "on" {
				usage = workspace.NewUsage(c.Store, nil, nil)
				c.Auth = usage.Counted(c.Auth)
			}
		})
		admin, deal := seedDeals(b, e.store, 60)
		counted := *admin
		counted.Credential = store.Credential{Type: "oauth", ID: uuid.NewString(), ClientName: "Bench"}
		worlds[mode] = &benchWorld{e: e, admin: &counted, token: e.token(&counted), deal: deal}
	}
	for _, mode := range []string{"off", "on"} {
		w := worlds[mode]
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				w.get(b, "/deals/"+w.deal)
			}
		})
	}
	if err := usage.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
}
