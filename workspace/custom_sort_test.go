package workspace_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestCustomSortPaths: a custom sort reads the same pages through custom_values (no sort
// index on the record table: a field defined before it, or while it is built) as through
// the field's index on deals (workspace/sortindex.go), for a field of each column's types,
// ascending and descending, page by page (4 a page, so the pages break inside runs of
// equal values), records without a value last; and once the index is built, the first
// page walks it.
func TestCustomSortPaths(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	deals := workspace.Lookup("deals")
	// Keys of this run alone: the indexes are shared by every workspace of the database.
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	run := "sp" + hex.EncodeToString(b)
	// value is the JSON of deal g's value of each type: seven distinct values, so runs of
	// equal ones; every fifth deal has none, one has an explicit null.
	value := map[string]func(g int) string{
		"text":      func(g int) string { return fmt.Sprintf(`"v%d"`, g%7) },
		"select":    func(g int) string { return fmt.Sprintf(`"o%d"`, g%7) },
		"number":    func(g int) string { return fmt.Sprintf(`%d.5`, g%7-3) },
		"money":     func(g int) string { return fmt.Sprintf(`{"amount": %d, "currency": "EUR"}`, 100*(g%7)) },
		"date":      func(g int) string { return fmt.Sprintf(`"2026-01-%02d"`, 31-g%7) },
		"timestamp": func(g int) string { return fmt.Sprintf(`"2026-03-01T%02d:30:00+02:00"`, g%7) },
		"boolean":   func(g int) string { return fmt.Sprint(g%2 == 0) },
	}
	column := map[string]string{"text": "t", "select": "t", "number": "n", "money": "n", "date": "d", "timestamp": "d", "boolean": "b"}
	types := []string{"text", "select", "number", "money", "date", "timestamp", "boolean"}
	options := `[{"key":"o0","label":"O0"},{"key":"o1","label":"O1"},{"key":"o2","label":"O2"},{"key":"o3","label":"O3"},
		{"key":"o4","label":"O4"},{"key":"o5","label":"O5"},{"key":"o6","label":"O6"}]`
	var indexes []string
	for _, typ := range types {
		key := run + "_" + typ
		if _, err := pool.Exec(ctx, `INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type, options)
			VALUES ($1, $2, 'deals', $3, $3, $4, $5::jsonb)`, f.WorkspaceID, f.Admin.UserID, key, typ, options); err != nil {
			t.Fatal(err)
		}
		indexes = append(indexes, "deals_cf_"+key+"_"+column[typ])
	}
	ops := workspace.NewOps(workspace.Config{Store: s})
	t.Cleanup(func() {
		for i, typ := range types { // a build a list started ends before its index goes
			if err := ops.BuildCustomSortIndex(ctx, "deals", run+"_"+typ, column[typ]); err != nil {
				t.Error(err)
			}
			if _, err := pool.Exec(ctx, "DROP INDEX "+indexes[i]); err != nil {
				t.Error(err)
			}
		}
	})
	var pipeline string
	if err := pool.QueryRow(ctx, `INSERT INTO pipelines (workspace_id, created_by, name) VALUES ($1, $2, 'Sorted') RETURNING id::text`,
		f.WorkspaceID, f.Admin.UserID).Scan(&pipeline); err != nil {
		t.Fatal(err)
	}
	for g := range 30 {
		values := map[string]json.RawMessage{}
		for _, typ := range types {
			switch {
			case g%5 == 0:
			case g == 7:
				values[run+"_"+typ] = json.RawMessage("null")
			default:
				values[run+"_"+typ] = json.RawMessage(value[typ](g))
			}
		}
		custom, err := json.Marshal(values)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO deals (workspace_id, created_by, name, pipeline_id, custom_fields) VALUES ($1, $2, $3, $4, $5::jsonb)`,
			f.WorkspaceID, f.Admin.UserID, fmt.Sprintf("deal %d", g), pipeline, string(custom)); err != nil {
			t.Fatal(err)
		}
	}
	// walk lists every page of sort, returning each page's ids, each with its value.
	walk := func(sort string) [][]string {
		t.Helper()
		key := strings.TrimPrefix(strings.TrimPrefix(sort, "-"), "custom_fields.")
		var pages [][]string
		params := workspace.ListParams{Sort: &sort, Limit: 4}
		for {
			page, err := ops.List(ctx, reader, deals, params)
			if err != nil {
				t.Fatalf("sort=%s: %v", sort, err)
			}
			var rows []struct {
				ID     string                     `json:"id"`
				Custom map[string]json.RawMessage `json:"custom_fields"`
			}
			if err := json.Unmarshal(page.Data, &rows); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range rows {
				ids = append(ids, r.ID+"="+string(r.Custom[key]))
			}
			pages = append(pages, ids)
			if page.NextCursor == nil {
				return pages
			}
			params.Cursor = *page.NextCursor
		}
	}
	var sorts []string
	for _, typ := range types {
		sorts = append(sorts, "custom_fields."+run+"_"+typ, "-custom_fields."+run+"_"+typ)
	}
	// The side table's pages, while the builds the lists start wait behind this test's
	// locks (BuildCustomSortIndex's).
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range indexes {
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", "custom_sort:"+name); err != nil {
			t.Fatal(err)
		}
	}
	side := map[string][][]string{}
	for _, sort := range sorts {
		side[sort] = walk(sort)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	for i, typ := range types {
		if err := ops.BuildCustomSortIndex(ctx, "deals", run+"_"+typ, column[typ]); err != nil {
			t.Fatal(err)
		}
		for _, sort := range []string{"custom_fields." + run + "_" + typ, "-custom_fields." + run + "_" + typ} {
			sql, doc := explainList(t, s, ops, reader, deals, workspace.ListParams{Sort: &sort, Limit: 4}, "built")
			walked := false
			doc[0].Plan.walk(func(n planNode) { walked = walked || n.IndexName == indexes[i] })
			if !walked {
				pretty, _ := json.MarshalIndent(doc, "", " ")
				t.Errorf("sort=%s does not walk %s once built\n%s\n%s", sort, indexes[i], sql, pretty)
			}
			got := walk(sort)
			if !slices.EqualFunc(got, side[sort], slices.Equal) {
				t.Errorf("sort=%s: through %s\n%v\nthrough custom_values\n%v", sort, indexes[i], got, side[sort])
			}
			// Ordered by value (each page's values in order was the side table's own
			// test), with the records without one last: 6 of every 30 (no key, shown
			// as none), and the null.
			last := got[len(got)-1]
			if n, v := len(side[sort]), last[len(last)-1]; n != 8 || !strings.HasSuffix(v, "=") && !strings.HasSuffix(v, "=null") {
				t.Errorf("sort=%s: %d pages, last %v; want 8, ending with a record without a value", sort, n, last)
			}
		}
	}
}

// TestCustomSortIndexFollowsDefinition: defining a sortable field builds its sort index in
// the background, and a list sorting by a field whose index was dropped answers (through
// custom_values) and builds it again.
func TestCustomSortIndexFollowsDefinition(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	key := "sf" + hex.EncodeToString(b)
	index := "deals_cf_" + key + "_n"
	ops := workspace.NewOps(workspace.Config{Store: s})
	t.Cleanup(func() {
		if err := ops.BuildCustomSortIndex(ctx, "deals", key, "n"); err != nil { // a build under way ends first
			t.Error(err)
		}
		if _, err := pool.Exec(ctx, "DROP INDEX IF EXISTS "+index); err != nil {
			t.Error(err)
		}
	})
	// valid waits up to a minute for index to be valid.
	valid := func(when string) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			var ok bool
			if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
				WHERE c.relname = $1 AND i.indisvalid)`, index).Scan(&ok); err != nil {
				t.Fatal(err)
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no valid %s after a minute", when, index)
			}
		}
	}
	body := fmt.Sprintf(`{"resource": "deals", "key": %q, "label": "Retainer", "type": "number"}`, key)
	if _, err := ops.Post(ctx, f.Admin, workspace.OpCreate, workspace.Lookup("custom_fields"), workspace.NewBody([]byte(body)), ""); err != nil {
		t.Fatal(err)
	}
	valid("defined")
	if _, err := pool.Exec(ctx, "DROP INDEX "+index); err != nil {
		t.Fatal(err)
	}
	sort := "-custom_fields." + key
	other := workspace.NewOps(workspace.Config{Store: s}) // a process that never saw the index
	if _, err := other.List(ctx, f.Admin, workspace.Lookup("deals"), workspace.ListParams{Sort: &sort}); err != nil {
		t.Fatal(err)
	}
	valid("dropped, then sorted by")
	if err := other.BuildCustomSortIndex(ctx, "deals", key, "n"); err != nil { // the list's build has ended
		t.Fatal(err)
	}
}
