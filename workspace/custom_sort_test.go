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

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/auth"
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
	run := runKey("sp")
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
	// lock (BuildCustomSortIndex's).
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", workspace.CustomIndexLock("deals")); err != nil {
		t.Fatal(err)
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
	key := runKey("sf")
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
	body := fmt.Sprintf(`{"resource": "deals", "key": %q, "label": "Retainer", "type": "number"}`, key)
	if _, err := ops.Post(ctx, f.Admin, workspace.OpCreate, workspace.Lookup("custom_fields"), workspace.NewBody([]byte(body)), ""); err != nil {
		t.Fatal(err)
	}
	waitValid(t, index, "defined")
	if _, err := pool.Exec(ctx, "DROP INDEX "+index); err != nil {
		t.Fatal(err)
	}
	sort := "-custom_fields." + key
	other := workspace.NewOps(workspace.Config{Store: s}) // a process that never saw the index
	if _, err := other.List(ctx, f.Admin, workspace.Lookup("deals"), workspace.ListParams{Sort: &sort}); err != nil {
		t.Fatal(err)
	}
	waitValid(t, index, "dropped, then sorted by")
	if err := other.BuildCustomSortIndex(ctx, "deals", key, "n"); err != nil { // the list's build has ended
		t.Fatal(err)
	}
}

// TestCustomListIndexPaths: a list with eq on a select or member field shows the same
// records in the same pages, cursor by cursor, through the field's list index on deals
// (workspace/sortindex.go) as through the probe of custom_values and the walk it reads
// until the index is valid: the workspace's deals holding the value, newest first, ties of
// created_at in id order; with more matches than the probe counts (the walk), fewer (the
// fetch) and none. Once the index is built, the first page reads it.
func TestCustomListIndexPaths(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	deals := workspace.Lookup("deals")
	// Keys of this run alone: the indexes are shared by every workspace of the database.
	run := runKey("lp")
	sel, member := run+"_select", run+"_member"
	for _, d := range [][2]string{{sel, "select"}, {member, "member"}} {
		if _, err := pool.Exec(ctx, `INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type, options)
			VALUES ($1, $2, 'deals', $3, $3, $4, $5::jsonb)`, f.WorkspaceID, f.Admin.UserID, d[0], d[1],
			map[bool]string{true: `[{"key":"o0","label":"O0"},{"key":"o1","label":"O1"},{"key":"o2","label":"O2"}]`, false: "[]"}[d[1] == "select"]); err != nil {
			t.Fatal(err)
		}
	}
	indexes := []string{"deals_cfl_" + sel + "_t", "deals_cfl_" + member + "_t"}
	ops := workspace.NewOps(workspace.Config{Store: s})
	t.Cleanup(func() {
		for i, key := range []string{sel, member} { // a build a list started ends before its index goes
			if err := ops.BuildCustomListIndex(ctx, "deals", key); err != nil {
				t.Error(err)
			}
			if _, err := pool.Exec(ctx, "DROP INDEX "+indexes[i]); err != nil {
				t.Error(err)
			}
		}
	})
	var pipeline string
	if err := pool.QueryRow(ctx, `INSERT INTO pipelines (workspace_id, created_by, name) VALUES ($1, $2, 'Listed') RETURNING id::text`,
		f.WorkspaceID, f.Admin.UserID).Scan(&pipeline); err != nil {
		t.Fatal(err)
	}
	// 330 deals, seven to a created_at (ties): every eleventh without the select, one with
	// a null, and of the others o1 on every fifth (60), o0 on the rest (239, past the
	// probe's 200); the admin as the member on even ones, the reader on odd ones.
	if _, err := pool.Exec(ctx, `INSERT INTO deals (workspace_id, created_by, name, pipeline_id, created_at, custom_fields)
		SELECT $1, $2::text::uuid, 'deal ' || g, $3, now() - (g / 7) * interval '1 second',
			CASE WHEN g % 11 = 0 THEN '{}'::jsonb WHEN g = 13 THEN jsonb_build_object($4::text, null) ELSE jsonb_build_object($4::text, CASE WHEN g % 5 = 0 THEN 'o1' ELSE 'o0' END) END
			|| jsonb_build_object($5::text, CASE WHEN g % 2 = 0 THEN $2::text ELSE $6::text END)
		FROM generate_series(1, 330) g`, f.WorkspaceID, f.Admin.UserID, pipeline, sel, member, reader.UserID); err != nil {
		t.Fatal(err)
	}
	conds := []workspace.Condition{{Field: "custom_fields." + sel, Op: workspace.OpEq, Value: "o0"},
		{Field: "custom_fields." + sel, Op: workspace.OpEq, Value: "o1"},
		{Field: "custom_fields." + sel, Op: workspace.OpEq, Value: "o2"},
		{Field: "custom_fields." + member, Op: workspace.OpEq, Value: f.Admin.UserID}}
	// walk lists every page of the condition, 25 a page, returning each page's ids.
	walk := func(c workspace.Condition) [][]string {
		t.Helper()
		return listPages(t, ops, reader, deals, workspace.ListParams{Where: []workspace.Condition{c}, Limit: 25})
	}
	// want is the condition's deals, newest first, as the table holds them.
	want := func(c workspace.Condition) []string {
		return dealsWhere(t, "custom_fields ->> $2 = $3", f.WorkspaceID, strings.TrimPrefix(c.Field, "custom_fields."), c.Value)
	}
	// The probe and walk's pages, while the builds the lists start wait behind this test's
	// lock (buildCustomIndex's).
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", workspace.CustomIndexLock("deals")); err != nil {
		t.Fatal(err)
	}
	side := make([][][]string, len(conds))
	for i, c := range conds {
		side[i] = walk(c)
		if got, w := slices.Concat(side[i]...), want(c); !slices.Equal(got, w) {
			t.Errorf("%s=%s before the list index: %d deals %v, want %d %v", c.Field, c.Value, len(got), got, len(w), w)
		}
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	for _, key := range []string{sel, member} {
		if err := ops.BuildCustomListIndex(ctx, "deals", key); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range conds {
		index := "deals_cfl_" + strings.TrimPrefix(c.Field, "custom_fields.") + "_t"
		sql, doc := explainList(t, s, ops, reader, deals, workspace.ListParams{Where: []workspace.Condition{c}, Limit: 25}, "built")
		read := false
		doc[0].Plan.walk(func(n planNode) { read = read || n.IndexName == index })
		if !read {
			pretty, _ := json.MarshalIndent(doc, "", " ")
			t.Errorf("%s=%s does not read %s once built\n%s\n%s", c.Field, c.Value, index, sql, pretty)
		}
		if got := walk(c); !slices.EqualFunc(got, side[i], slices.Equal) {
			t.Errorf("%s=%s: through %s\n%v\nbefore it\n%v", c.Field, c.Value, index, got, side[i])
		}
	}
	if n := len(side[0]); n != 10 { // 239 deals, 25 a page
		t.Errorf("o0: %d pages, want 10", n)
	}
}

// TestCustomSortIndexTakesLongValues: a sort index on deals is shared by every workspace
// whose deals carry its key, whatever the field's type there, so another workspace's
// long_text value of that key (far past what one btree entry holds, and incompressible)
// must not refuse that workspace's write; the text sort of the first workspace still
// orders its deals.
func TestCustomSortIndexTakesLongValues(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	sorted := storetest.Workspace(t, s, workspace.Scopes())
	other := storetest.Workspace(t, s, workspace.Scopes())
	key := runKey("lv")
	ops := workspace.NewOps(workspace.Config{Store: s})
	t.Cleanup(func() {
		if err := ops.BuildCustomSortIndex(ctx, "deals", key, "t"); err != nil {
			t.Error(err)
		}
		if _, err := pool.Exec(ctx, "DROP INDEX IF EXISTS deals_cf_"+key+"_t"); err != nil {
			t.Error(err)
		}
	})
	define := func(f storetest.Fixture, typ string) {
		t.Helper()
		body := fmt.Sprintf(`{"resource": "deals", "key": %q, "label": "Notes", "type": %q}`, key, typ)
		if _, err := ops.Post(ctx, f.Admin, workspace.OpCreate, workspace.Lookup("custom_fields"), workspace.NewBody([]byte(body)), ""); err != nil {
			t.Fatal(err)
		}
	}
	create := func(f storetest.Fixture, value string) error {
		t.Helper()
		var pipeline string
		if err := pool.QueryRow(ctx, `INSERT INTO pipelines (workspace_id, created_by, name) VALUES ($1, $2, 'Long') RETURNING id::text`,
			f.WorkspaceID, f.Admin.UserID).Scan(&pipeline); err != nil {
			t.Fatal(err)
		}
		v, _ := json.Marshal(value)
		body := fmt.Sprintf(`{"name": "long value", "pipeline_id": %q, "custom_fields": {%q: %s}}`, pipeline, key, v)
		_, err := ops.Post(ctx, f.Admin, workspace.OpCreate, workspace.Lookup("deals"), workspace.NewBody([]byte(body)), "")
		return err
	}
	define(sorted, "text")
	if err := ops.BuildCustomSortIndex(ctx, "deals", key, "t"); err != nil {
		t.Fatal(err)
	}
	var valid bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relname = $1 AND i.indisvalid)`, "deals_cf_"+key+"_t").Scan(&valid); err != nil || !valid {
		t.Fatalf("sort index valid: %v, %v", valid, err)
	}
	for _, v := range []string{"beta", "alpha"} {
		if err := create(sorted, v); err != nil {
			t.Fatal(err)
		}
	}
	define(other, "long_text")
	// Random letters from across Unicode: 6,000 of them are some 18,000 bytes that
	// compression cannot shrink below a btree entry's 2,704.
	runes := make([]rune, 6000)
	rb := make([]byte, 2*len(runes))
	if _, err := rand.Read(rb); err != nil {
		t.Fatal(err)
	}
	for i := range runes {
		runes[i] = 0x4E00 + rune(rb[2*i])<<6 | rune(rb[2*i+1]&0x3F)
	}
	if err := create(other, string(runes)); err != nil {
		t.Fatalf("another workspace's long_text value of the sorted key: %v", err)
	}
	sort := "custom_fields." + key
	page, err := ops.List(ctx, sorted.Admin, workspace.Lookup("deals"), workspace.ListParams{Sort: &sort})
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		CustomFields map[string]string `json:"custom_fields"`
	}
	if err := json.Unmarshal(page.Data, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].CustomFields[key] != "alpha" || got[1].CustomFields[key] != "beta" {
		t.Fatalf("sorted page: %s", page.Data)
	}
}

// TestCustomPrefixIndexPaths: prefix on a url field lists the same pages, 25 a page, before
// its prefix index is built (the probe, then the walk of the list's order) as through it
// (the probe, then the walk of the index, workspace/sortindex.go): a prefix matching past
// the probe's 200 deals (the walk), one matching fewer (the probe's matches), one matching
// none, one of 64 characters matching past 200 values longer than the index's head of 64
// characters, and one longer than the head matching those (which walks the list's order
// either way), among deals sharing their created_at seven at a time. Once built, the walk reads the index and checks the prefix on
// its entries (an Index Cond), except for the prefix longer than the head.
func TestCustomPrefixIndexPaths(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	deals := workspace.Lookup("deals")
	// A key of this run alone: the indexes are shared by every workspace of the database.
	key := runKey("pp") + "_url"
	index := "deals_cfp_" + key + "_t"
	if _, err := pool.Exec(ctx, `INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type)
		VALUES ($1, $2, 'deals', $3, 'Site', 'url')`, f.WorkspaceID, f.Admin.UserID, key); err != nil {
		t.Fatal(err)
	}
	ops := workspace.NewOps(workspace.Config{Store: s})
	t.Cleanup(func() { // a build a list started ends before its index goes
		if err := ops.BuildCustomPrefixIndex(ctx, "deals", key); err != nil {
			t.Error(err)
		}
		if _, err := pool.Exec(ctx, "DROP INDEX "+index); err != nil {
			t.Error(err)
		}
	})
	var pipeline string
	if err := pool.QueryRow(ctx, `INSERT INTO pipelines (workspace_id, created_by, name) VALUES ($1, $2, 'Prefixed') RETURNING id::text`,
		f.WorkspaceID, f.Admin.UserID).Scan(&pipeline); err != nil {
		t.Fatal(err)
	}
	long := "https://a.example/" + strings.Repeat("x", 60) // 78 characters
	// 500 deals, seven to a created_at: every eleventh without the url, one with a null;
	// of the others, every fourth on https://b.example/ + g, the odd ones on long + g (226),
	// the rest on https://a.example/ + g (114).
	if _, err := pool.Exec(ctx, `INSERT INTO deals (workspace_id, created_by, name, pipeline_id, created_at, custom_fields)
		SELECT $1, $2::text::uuid, 'deal ' || g, $3, now() - (g / 7) * interval '1 second',
			CASE WHEN g % 11 = 0 THEN '{}'::jsonb WHEN g = 13 THEN jsonb_build_object($4::text, null)
			ELSE jsonb_build_object($4::text, CASE WHEN g % 4 = 0 THEN 'https://b.example/' || g
				WHEN g % 2 = 1 THEN $5 || g ELSE 'https://a.example/' || g END) END
		FROM generate_series(1, 500) g`, f.WorkspaceID, f.Admin.UserID, pipeline, key, long); err != nil {
		t.Fatal(err)
	}
	prefixes := []string{"https://a", "https://b.example/1", "https://c", long[:64], long}
	counts := []int{340, 25, 0, 226, 226}
	// walk lists every page of prefix p, 25 a page, returning each page's ids.
	walk := func(p string) [][]string {
		t.Helper()
		return listPages(t, ops, reader, deals, workspace.ListParams{Where: []workspace.Condition{{Field: "custom_fields." + key, Op: workspace.OpPrefix, Value: p}}, Limit: 25})
	}
	// want is prefix p's deals, newest first, as the table holds them.
	want := func(p string) []string {
		return dealsWhere(t, "starts_with(custom_fields ->> $2, $3)", f.WorkspaceID, key, p)
	}
	// The pages before the index, while the build the lists start waits behind this test's
	// lock (buildCustomIndex's).
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", workspace.CustomIndexLock("deals")); err != nil {
		t.Fatal(err)
	}
	side := make([][][]string, len(prefixes))
	for i, p := range prefixes {
		side[i] = walk(p)
		got, w := slices.Concat(side[i]...), want(p)
		if !slices.Equal(got, w) {
			t.Errorf("%s before the prefix index: %d deals %v, want %d %v", p, len(got), got, len(w), w)
		}
		if len(w) != counts[i] {
			t.Errorf("%s: %d deals in the table, want %d", p, len(w), counts[i])
		}
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	if err := ops.BuildCustomPrefixIndex(ctx, "deals", key); err != nil {
		t.Fatal(err)
	}
	for i, p := range prefixes {
		c := workspace.Condition{Field: "custom_fields." + key, Op: workspace.OpPrefix, Value: p}
		sql, doc := explainList(t, s, ops, reader, deals, workspace.ListParams{Where: []workspace.Condition{c}, Limit: 25}, "built")
		cond := ""
		doc[0].Plan.walk(func(n planNode) {
			if n.IndexName == index {
				cond = n.IndexCond
			}
		})
		if headed := i < len(prefixes)-1; headed != strings.Contains(cond, "ws_custom_value_head") {
			pretty, _ := json.MarshalIndent(doc, "", " ")
			t.Errorf("%s: the prefix index's condition is %q, want the head's range: %v\n%s\n%s", p, cond, headed, sql, pretty)
		}
		if got := walk(p); !slices.EqualFunc(got, side[i], slices.Equal) {
			t.Errorf("%s: through %s\n%v\nbefore it\n%v", p, index, got, side[i])
		}
	}
	if n := len(side[0]); n != 14 { // 340 deals, 25 a page
		t.Errorf("https://a: %d pages, want 14", n)
	}
}

// runKey is a custom field key of this run alone: prefix and 8 random hex digits. Custom
// indexes are named by key and shared by every workspace of the database.
func runKey(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b) // crypto/rand's Read never returns an error
	return prefix + hex.EncodeToString(b)
}

// waitValid waits up to a minute for the index named index to be valid; when says at
// what step of the test, should it not be.
func waitValid(t *testing.T, index, when string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var ok bool
		if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
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

// dealsWhere reads the ids of the deals of workspace args[0] that meet cond (its other
// parameters are $2 on), in list order, from the table itself.
func dealsWhere(t *testing.T, cond string, args ...any) []string {
	t.Helper()
	rows, err := storetest.Pool(t).Query(context.Background(), `SELECT id::text FROM deals WHERE workspace_id = $1 AND `+cond+`
		ORDER BY created_at DESC, id DESC`, args...)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// listPages lists every page of params (Limit records a page) as reader, returning each
// page's ids.
func listPages(t *testing.T, ops *workspace.Ops, reader *auth.Principal, r *workspace.Resource, params workspace.ListParams) [][]string {
	t.Helper()
	var pages [][]string
	for {
		page, err := ops.List(context.Background(), reader, r, params)
		if err != nil {
			t.Fatalf("%+v: %v", params.Where, err)
		}
		var rows []struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(page.Data, &rows); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, rec := range rows {
			ids = append(ids, rec.ID)
		}
		pages = append(pages, ids)
		if page.NextCursor == nil {
			return pages
		}
		params.Cursor = *page.NextCursor
	}
}
