package restapi_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestPagingWalksEveryRowOnce walks 500 rows seven at a time while rows are inserted
// between pages: every row that existed when paging began comes exactly once, in
// (created_at, id) descending order. Half the rows share one created_at, so the id breaks
// ties (docs/decisions.md 4).
func TestPagingWalksEveryRowOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	ctx := context.Background()
	if _, err := storetest.Pool(t).Exec(ctx, `INSERT INTO labels (workspace_id, created_by, name, created_at)
		SELECT $1, $2, 'page ' || g, CASE WHEN g <= 250 THEN now() ELSE now() - g * interval '1 ms' END
		FROM generate_series(1, 500) g`, f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	var want []string
	rows, err := storetest.Pool(t).Query(ctx, `SELECT id::text FROM labels WHERE workspace_id = $1
		ORDER BY created_at DESC, id DESC`, f.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		want = append(want, id)
	}
	if len(want) != 500 {
		t.Fatalf("seeded %d labels", len(want))
	}
	c := e.as(t, f.Member)
	var got []string
	next := "/labels?limit=7"
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("paging does not end")
		}
		r := must(t, c.get(next), http.StatusOK)
		list := r.list()
		if len(list) > 7 {
			t.Fatalf("page of %d rows with limit 7", len(list))
		}
		for _, rec := range list {
			got = append(got, rec["id"].(string))
		}
		// A row inserted between pages is newer than every cursor: it never shows up in
		// later pages and never shifts them.
		must(t, c.post("/labels", map[string]any{"name": "inserted while paging"}), http.StatusCreated)
		cur, _ := r.Body["next_cursor"].(string)
		if cur == "" {
			break
		}
		next = "/labels?limit=7&cursor=" + cur
	}
	if len(got) != len(want) {
		t.Fatalf("walked %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %s, want %s (order or duplicates)", i, got[i], want[i])
		}
	}
}

// TestListQueryErrors covers the 400s of docs/decisions.md 4 for list queries.
func TestListQueryErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	if err := e.store.SeedRecords(context.Background(), f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	c := e.as(t, f.Admin)
	must(t, c.post("/labels", map[string]any{"name": "second"}), http.StatusCreated)
	first := must(t, c.get("/labels?limit=1"), http.StatusOK)
	cursor, _ := first.Body["next_cursor"].(string)
	if cursor == "" {
		t.Fatal("no next_cursor with two labels and limit 1")
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		t.Fatalf("cursor is not base64url: %v", err)
	}
	tampered := append([]byte(nil), raw...)
	tampered[5] ^= 1 // a microsecond later: a valid position, but not one we issued
	cases := []struct{ name, path, mention string }{
		{"limit 0", "/labels?limit=0", "limit"},
		{"limit 201", "/labels?limit=201", "limit"},
		{"limit abc", "/labels?limit=abc", "limit"},
		{"limit negative", "/labels?limit=-1", "limit"},
		{"limit fraction", "/labels?limit=1.5", "limit"},
		{"malformed cursor", "/labels?cursor=not*a*cursor", "cursor"},
		{"truncated cursor", "/labels?cursor=" + cursor[:10], "cursor"},
		{"tampered cursor", "/labels?cursor=" + base64.RawURLEncoding.EncodeToString(tampered), "cursor"},
		{"cursor of another resource", "/companies?cursor=" + cursor, "cursor"},
		{"cursor on an unpaged resource", "/project_stages?cursor=" + cursor, "cursor"},
		{"unknown parameter", "/deals?colour=red", "pipeline_id, pipeline_stage_id, owner_id, company_id, status, limit, cursor"},
		{"filter on a non-filter column", "/deals?name=x", "valid parameters"},
		{"bad uuid filter", "/deals?pipeline_id=nope", "uuid"},
		{"bad boolean filter", "/tasks?completed=yes", "true or false"},
		{"enum filter out of range", "/comments?entity_type=invoice", "deal, task"},
		{"repeated filter", "/deals?owner_id=" + f.Admin.UserID + "&owner_id=" + f.Member.UserID, "once"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.get(tc.path)
			wantError(t, r, http.StatusBadRequest, "bad_request")
			wantMessage(t, r, tc.mention)
		})
	}
	t.Run("apikey as a query parameter is not a filter", func(t *testing.T) {
		r := e.doT(t, "GET", "/labels?"+url.Values{"apikey": {testAPIKey}}.Encode(), c.token, "", "")
		must(t, r, http.StatusOK)
	})
	t.Run("the valid cursor still works", func(t *testing.T) {
		r := must(t, c.get("/labels?limit=1&cursor="+cursor), http.StatusOK)
		if len(r.list()) != 1 {
			t.Fatalf("second page: %s", r.Raw)
		}
	})
}
