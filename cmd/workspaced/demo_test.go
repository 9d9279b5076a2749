package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// settingsHolding counts the service settings whose value contains secret.
func settingsHolding(t *testing.T, s *store.Store, secret string) int {
	t.Helper()
	var n int
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT count(*) FROM service_settings WHERE strpos(value, $1) > 0`,
		secret).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The zero-config demo's admin password and agent key live in a 0600 file in DATA_DIR,
// never in service_settings; a restart reads the same ones back.
func TestDemoSecretsNotInDatabase(t *testing.T) {
	s := storetest.New(t)
	dir := t.TempDir()
	srv := &server{cfg: config{DataDir: dir}, store: s, log: slog.New(slog.DiscardHandler)}
	d, err := srv.demo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{d.AdminPassword, d.AgentKey} {
		if secret == "" || settingsHolding(t, s, secret) != 0 {
			t.Fatalf("a demo secret (%d characters) is stored in service_settings", len(secret))
		}
	}
	info, err := os.Stat(filepath.Join(dir, "demo.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v mode %v, want 0600", err, info)
	}
	again, err := srv.demo(t.Context())
	if err != nil || again != d {
		t.Fatalf("restart: %v %+v, want the same demo", err, again)
	}
}

// Plaintext demo credentials an earlier version stored are removed at start: moved to the
// credentials file on a zero-config start, dropped by a server with DATABASE_URL.
func TestStoredDemoSecretsRemovedAtStart(t *testing.T) {
	legacy := store.Demo{WorkspaceID: "00000000-0000-0000-0000-000000000001", AdminEmail: "admin@demo.example",
		AdminPassword: "legacy-admin-password", AgentKey: "kagt_legacyagentkey"}
	raw, _ := json.Marshal(legacy)
	for _, mode := range []struct {
		name, databaseURL string
		keepsFile         bool
	}{{"zero-config", "", true}, {"server", "postgres://elsewhere/db", false}} {
		t.Run(mode.name, func(t *testing.T) {
			s := storetest.New(t)
			if _, err := s.Setting(t.Context(), "demo", func() string { return string(raw) }); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			srv := &server{cfg: config{DataDir: dir, DatabaseURL: mode.databaseURL}, store: s, log: slog.New(slog.DiscardHandler)}
			if err := srv.forgetStoredDemo(t.Context()); err != nil {
				t.Fatal(err)
			}
			if settingsHolding(t, s, legacy.AdminPassword) != 0 || settingsHolding(t, s, legacy.AgentKey) != 0 {
				t.Fatal("the plaintext demo credentials are still in service_settings")
			}
			b, err := os.ReadFile(filepath.Join(dir, "demo.json"))
			if mode.keepsFile != (err == nil && strings.Contains(string(b), legacy.AgentKey)) {
				t.Fatalf("credentials file: %v %s (want it: %v)", err, b, mode.keepsFile)
			}
			if mode.keepsFile {
				if d, err := srv.demo(t.Context()); err != nil || d.AgentKey != legacy.AgentKey {
					t.Fatalf("a zero-config start after the move prints %+v, %v", d, err)
				}
			}
		})
	}
}

// Replicas starting together each run the start-up clean-up at once: none may fail it (it
// used to create the setting to read it and delete it after, so a replica whose insert
// waited for another's could find the row gone and stop with "no rows in result set").
func TestForgetStoredDemoConcurrently(t *testing.T) {
	s := storetest.New(t)
	srv := &server{cfg: config{DataDir: t.TempDir(), DatabaseURL: "postgres://elsewhere/db"}, store: s, log: slog.New(slog.DiscardHandler)}
	for range 30 {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() { errs <- srv.forgetStoredDemo(t.Context()) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("a concurrent start-up clean-up failed: %v", err)
			}
		}
	}
}

// TestDemoAnswersQuestions: the zero-config demo is a small agency worth asking about
// (README.md, "Set up on a fresh machine"): "what is the biggest open deal?" has one
// answer, which REST gives with ?status=open&sort=-value&limit=1; two pipelines each have
// open, won and lost stages; 30 deals have values and owners; people have emails; tasks
// have due dates and assignees, some overdue; there are comments and a month of income and
// expenses. Seeding records nothing in the audit log (docs/console.md, "Audit log"), and a
// second start seeds nothing more.
func TestDemoAnswersQuestions(t *testing.T) {
	dir := t.TempDir()
	ts, _, srv := newTestServer(t, func(c *config) { c.DataDir = dir })
	ctx := t.Context()
	d, err := srv.demo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pool := storetest.Pool(t)
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, sql, d.WorkspaceID).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	get := func(path string) []map[string]any {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.URL+"/v1"+path, nil)
		req.Header.Set("apikey", e2eAPIKey)
		req.Header.Set("Authorization", "Bearer "+d.AgentKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct{ Data []map[string]any }
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
		}
		return body.Data
	}

	// The two largest deals of open stages, read from the stages' outcomes: the biggest is
	// strictly bigger than the next, and bigger won or lost deals exist, so the answer is
	// definite and sorting all deals by value gives another.
	var wantName string
	var top, second float64
	if err := pool.QueryRow(ctx, `SELECT (array_agg(d.name ORDER BY d.value DESC))[1], max(d.value),
			(array_agg(d.value ORDER BY d.value DESC))[2]
		FROM deals d JOIN pipeline_stages s ON s.id = d.pipeline_stage_id
		WHERE d.workspace_id = $1 AND s.outcome = 'open'`, d.WorkspaceID).Scan(&wantName, &top, &second); err != nil {
		t.Fatal(err)
	}
	if top <= second {
		t.Fatalf("the biggest open deal is not definite: %v and %v", top, second)
	}
	got := get("/deals?status=open&sort=-value&limit=1")
	if len(got) != 1 || got[0]["name"] != wantName || got[0]["value"] != top || got[0]["status"] != "open" {
		t.Errorf("the biggest open deal: %v, want %s (%v)", got, wantName, top)
	}
	if all := get("/deals?sort=-value&limit=1"); len(all) != 1 || all[0]["status"] == "open" {
		t.Errorf("the biggest deal of all is %v: want a won or lost one, so status matters", all)
	}

	for what, n := range map[string]int{
		"pipelines with open, won and lost stages": count(`SELECT count(*) FROM pipelines p WHERE workspace_id = $1
			AND (SELECT count(DISTINCT outcome) FROM pipeline_stages s WHERE s.pipeline_id = p.id) = 3`),
		"deals": count(`SELECT count(*) FROM deals WHERE workspace_id = $1`),
		"deals with a value and an owner, in a stage": count(`SELECT count(*) FROM deals WHERE workspace_id = $1
			AND value > 0 AND owner_id IS NOT NULL AND pipeline_stage_id IS NOT NULL`),
		"won deals":               count(`SELECT count(*) FROM deals WHERE workspace_id = $1 AND status = 'won'`),
		"lost deals":              count(`SELECT count(*) FROM deals WHERE workspace_id = $1 AND status = 'lost'`),
		"deal owners":             count(`SELECT count(DISTINCT owner_id) FROM deals WHERE workspace_id = $1`),
		"companies":               count(`SELECT count(*) FROM companies WHERE workspace_id = $1`),
		"people without an email": count(`SELECT count(*) FROM people WHERE workspace_id = $1 AND coalesce(email, '') = ''`),
		"people":                  count(`SELECT count(*) FROM people WHERE workspace_id = $1`),
		"projects":                count(`SELECT count(*) FROM projects WHERE workspace_id = $1`),
		"tasks without a due date or an assignee": count(`SELECT count(*) FROM tasks WHERE workspace_id = $1
			AND (due_date IS NULL OR assignee_id IS NULL)`),
		"tasks":               count(`SELECT count(*) FROM tasks WHERE workspace_id = $1`),
		"comments":            count(`SELECT count(*) FROM comments WHERE workspace_id = $1`),
		"income this month":   count(`SELECT count(*) FROM income WHERE workspace_id = $1 AND date_trunc('month', date) = date_trunc('month', current_date)`),
		"expenses this month": count(`SELECT count(*) FROM expenses WHERE workspace_id = $1 AND date_trunc('month', date) = date_trunc('month', current_date)`),
		"audit rows":          count(`SELECT count(*) FROM activity WHERE workspace_id = $1`),
	} {
		want := map[string][2]int{ // at least, at most
			"pipelines with open, won and lost stages": {2, 2}, "deals": {30, 30},
			"deals with a value and an owner, in a stage": {30, 30}, "won deals": {3, 30}, "lost deals": {3, 30},
			"deal owners": {3, 10}, "companies": {8, 30}, "people without an email": {0, 0}, "people": {8, 50},
			"projects": {2, 10}, "tasks without a due date or an assignee": {0, 0}, "tasks": {10, 50},
			"comments": {3, 20}, "income this month": {2, 20}, "expenses this month": {2, 20}, "audit rows": {0, 0},
		}[what]
		if n < want[0] || n > want[1] {
			t.Errorf("%s: %d, want %d to %d", what, n, want[0], want[1])
		}
	}

	var today string
	if err := pool.QueryRow(ctx, `SELECT current_date::text`).Scan(&today); err != nil {
		t.Fatal(err)
	}
	if overdue := get("/tasks?completed=false&due_date[lt]=" + today); len(overdue) == 0 {
		t.Error("no overdue task: want some open tasks due before today")
	}
	if activity := get("/activity"); len(activity) != 0 {
		t.Errorf("the audit log holds %d rows after seeding, want none: %v", len(activity), activity[0])
	}

	var workspaces int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM workspaces`).Scan(&workspaces); err != nil {
		t.Fatal(err)
	}
	again, err := srv.demo(ctx)
	if err != nil || again != d {
		t.Fatalf("second start: %v %+v, want the same demo", err, again)
	}
	var after int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM workspaces`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != workspaces || count(`SELECT count(*) FROM deals WHERE workspace_id = $1`) != 30 {
		t.Errorf("second start: %d workspaces (was %d), %d deals; want nothing seeded again", after, workspaces,
			count(`SELECT count(*) FROM deals WHERE workspace_id = $1`))
	}
}
