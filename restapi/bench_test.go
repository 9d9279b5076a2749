package restapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// Benchmarks of docs/performance.md: the full HTTP stack (httptest server, a real client
// with keep-alive) next to the operation layer alone, in one run (workspace/bench_test.go
// puts the operation layer next to the very statement it runs). Re-run with:
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

func BenchmarkGetDeal(b *testing.B) {
	w := newBenchWorld(b, 60)
	ctx := context.Background()
	ops := w.e.ops
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
}

func BenchmarkListDeals50(b *testing.B) {
	w := newBenchWorld(b, 60)
	ctx := context.Background()
	ops := w.e.ops
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

// cursorAtDepth returns the cursor that continues after the depth-th newest deal, reached
// as a client reaches it: page after page of the largest size.
func cursorAtDepth(tb testing.TB, w *benchWorld, depth int) string {
	tb.Helper()
	ctx, deals := context.Background(), workspace.Lookup("deals")
	cursor := ""
	for left := depth; left > 0; {
		n := min(left, workspace.MaxLimit)
		page, err := w.e.ops.List(ctx, w.admin, deals, workspace.ListParams{Limit: n, Cursor: cursor})
		if err != nil {
			tb.Fatal(err)
		}
		if page.NextCursor == nil {
			tb.Fatalf("the list ends before depth %d", depth)
		}
		cursor, left = *page.NextCursor, left-n
	}
	return cursor
}

// BenchmarkListDeals50Deep compares the first page of 100,000 deals with the page that
// continues 99,900 rows in (workspace's TestPageAtDepthCostsNoMore checks its plan).
func BenchmarkListDeals50Deep(b *testing.B) {
	w := newBenchWorld(b, 100_000)
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
