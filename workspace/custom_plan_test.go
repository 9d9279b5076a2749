package workspace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// customPlanTypes are the 20 custom fields seedCustomFields defines on deals, mixed types.
var customPlanTypes = []string{"text", "text", "number", "number", "money", "date", "date", "timestamp", "boolean",
	"select", "select", "multi_select", "url", "email", "phone", "member", "long_text", "number", "text", "timestamp"}

// customValueSQL is the JSON value of a field of each type in the deal whose value is g
// (numbered newest first): distinct and in g's order where the type has an order.
var customValueSQL = map[string]string{
	"text": "to_jsonb('t ' || lpad(g::text, 7, '0'))", "number": "to_jsonb(g)",
	"money":        "jsonb_build_object('amount', g, 'currency', 'EUR')",
	"date":         "to_jsonb((date '2000-01-01' + g)::text)",
	"timestamp":    `to_jsonb(to_char(timestamp '2000-01-01' + g * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))`,
	"boolean":      "to_jsonb(g % 2 = 0)",
	"select":       "to_jsonb('o' || (g % 10))",
	"multi_select": "jsonb_build_array('o' || (g % 10), 'o' || ((g + 1) % 10))",
	"url":          "to_jsonb('https://x.example/' || g)", "email": "to_jsonb('u' || g || '@example.com')",
	"phone": "to_jsonb('+1 555 ' || g)", "member": "to_jsonb($2::text)", "long_text": "to_jsonb('long ' || g)",
}

// seedCustomFields defines customPlanTypes on deals of workspace ws and gives each of its
// deals a value of each, in one UPDATE and one INSERT ... SELECT, as the owner with
// triggers off (bulk, in replica mode): the rows are what the triggers would write.
func seedCustomFields(t *testing.T, bulk *pgxpool.Pool, ws, user string) {
	t.Helper()
	defineCustomFields(t, bulk, ws, user)
	// g numbers the deals newest first, as the seeder's created_at does.
	sql := `UPDATE deals d SET custom_fields = ` + customFieldsValue(nil) + `
		FROM (SELECT id, row_number() OVER (ORDER BY created_at DESC, id DESC)::int AS g FROM deals WHERE workspace_id = $1) x
		WHERE d.id = x.id`
	if _, err := bulk.Exec(context.Background(), sql, ws, user); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	fillCustomValues(t, bulk, ws)
}

// defineCustomFields defines customPlanTypes on deals of workspace ws, keys f00 to f19, as
// the owner with triggers off (bulk): f00 unique, f01 searchable, selects with ten options.
func defineCustomFields(t *testing.T, bulk *pgxpool.Pool, ws, user string) {
	t.Helper()
	options := `[{"key":"o0","label":"O0"},{"key":"o1","label":"O1"},{"key":"o2","label":"O2"},{"key":"o3","label":"O3"},
		{"key":"o4","label":"O4"},{"key":"o5","label":"O5"},{"key":"o6","label":"O6"},{"key":"o7","label":"O7"},
		{"key":"o8","label":"O8"},{"key":"o9","label":"O9"}]`
	for i, typ := range customPlanTypes {
		opts := "[]"
		if strings.HasSuffix(typ, "select") {
			opts = options
		}
		if _, err := bulk.Exec(context.Background(), `INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type, options, "unique", searchable)
			VALUES ($1, $2, 'deals', $3, $3, $4, $5::jsonb, $6, $7)`, ws, user, fmt.Sprintf("f%02d", i), typ, opts,
			i == 0, i == 1); err != nil {
			t.Fatal(err)
		}
	}
}

// customFieldsValue is the SQL of the custom_fields of deal g holding a value of each of
// defineCustomFields' fields (customValueSQL; $2 is the member), or for the keys in
// override, override's SQL.
func customFieldsValue(override map[string]string) string {
	var pairs []string
	for i, typ := range customPlanTypes {
		key := fmt.Sprintf("f%02d", i)
		v, ok := override[key]
		if !ok {
			v = customValueSQL[typ]
		}
		pairs = append(pairs, fmt.Sprintf("'%s', %s", key, v))
	}
	return "jsonb_build_object(" + strings.Join(pairs, ", ") + ")"
}

// fillCustomValues writes the custom_values rows of workspace ws's deals, as the record
// trigger would (ws_custom_rows), as the owner with triggers off (bulk).
func fillCustomValues(t *testing.T, bulk *pgxpool.Pool, ws string) {
	t.Helper()
	sql := `INSERT INTO custom_values SELECT r.* FROM deals d JOIN custom_fields f ON f.workspace_id = d.workspace_id AND f.resource = 'deals'
		CROSS JOIN LATERAL ws_custom_rows(f, d.workspace_id, d.id, d.custom_fields -> f.key) r
		WHERE d.workspace_id = $1`
	if _, err := bulk.Exec(context.Background(), sql, ws); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// customOperands picks, for a field of typ, a value per operator that matches a handful of
// the workspace's n deals (g from 1 to n), or all but a handful (ne).
func customOperands(typ, member string, n int) map[workspace.Operator]string {
	at := func(g int) string {
		switch typ {
		case "text":
			return fmt.Sprintf("t %07d", g)
		case "date":
			return dateAfter(g)
		case "timestamp":
			return timeAfter(g)
		case "select", "multi_select":
			return fmt.Sprintf("o%d", g%10)
		case "url":
			return fmt.Sprintf("https://x.example/%d", g)
		case "email":
			return fmt.Sprintf("u%d@example.com", g)
		case "phone":
			return fmt.Sprintf("+1 555 %d", g)
		case "member":
			return member
		case "boolean":
			return "true"
		}
		return fmt.Sprint(g)
	}
	return map[workspace.Operator]string{
		workspace.OpEq: at(5), workspace.OpNe: at(5), workspace.OpIn: at(5) + "," + at(6),
		workspace.OpLt: at(5), workspace.OpLte: at(5), workspace.OpGt: at(n - 4), workspace.OpGte: at(n - 4),
		workspace.OpPrefix: at(5), workspace.OpNull: "true",
	}
}

func dateAfter(g int) string { return timeFrom(g * 24 * 60)[:10] }

func timeAfter(g int) string { return timeFrom(g) }

// timeFrom is 2000-01-01 plus minutes, RFC 3339 in UTC.
func timeFrom(minutes int) string {
	return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute).Format("2006-01-02T15:04:05Z")
}

// sortColumn is the custom_values column of each sortable type, which names its sort
// index on the record table (store/migrations/00070_custom_sort_indexes.sql): deals_cf_<key>_<column>.
var sortColumn = map[string]string{"text": "t", "select": "t", "url": "t", "email": "t", "phone": "t", "member": "t", "reference": "t",
	"number": "n", "money": "n", "date": "d", "timestamp": "d", "boolean": "b"}

// sparseDeals is how many deals of the workspace read have no value for f18.
const sparseDeals = 6

// unsetSparse removes f18 from sparseDeals deals of workspace ws through the record trigger
// (owner: a pool with triggers on), which writes their custom_absent rows.
func unsetSparse(t *testing.T, owner *pgxpool.Pool, ws string) {
	t.Helper()
	if _, err := owner.Exec(context.Background(), `UPDATE deals SET custom_fields = custom_fields - 'f18'
		WHERE id IN (SELECT id FROM deals WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC OFFSET 1000 LIMIT $2)`,
		ws, sparseDeals); err != nil {
		t.Fatal(err)
	}
}

// probeLimit is how many custom_values rows a filter's probe reads before the list walks
// its order instead (fewMatches, workspace/listquery.go: 200, and one more).
const probeLimit = 201

// customFilterBound is the most buffers the first page of a filter with op on a field of
// typ reads in the workspace of n deals that checkCustomPlans explains: the list's bound
// (maxListBuffers) for every filter but these:
//   - a filter matching no more than a handful of deals reads their custom_values index
//     entries, then each deal by primary key; one matching many reads probeLimit index
//     entries alone (the value indexes carry the policy's workspace_id, so the probe reads
//     no custom_values row on a vacuumed table) and stops, then walks the list's order
//     checking each deal's own custom_fields, as built-in conditions do. A walk reads some
//     51/f deals for a condition matching a fraction f of them;
//   - prefix on url and phone at 3,000 deals matches more than a page and at most
//     fewMatches deals (111), each fetched by primary key to sort them, about three
//     buffers each, as a built-in condition with as many matches does (339).
//
// The same prefix at 100,000 deals matches 11,111 of them, the deals numbered 5, 50-59
// and 500-599 (newest first): its walk reads the field's prefix index
// (workspace/sortindex.go), checking the prefix on the entries of some 540 deals and
// reading the 51 shown, with the probe within the bound (TestFindPlansAtScale: 22 and 23,
// where the walk of the list's order read 63 or 64). eq on a select or member field reads
// the field's list index instead of probing: no probe and no walk, the index and one heap
// page per deal shown, within the bound at either size (select eq matches one deal in ten,
// whose walk read some 510 deals).
// [null]=true probes the field's custom_absent index (the records without a value) as the
// other operators probe custom_values': within the list's bound.
func customFilterBound(typ string, op workspace.Operator, n int) int {
	switch {
	case op == workspace.OpPrefix && (typ == "url" || typ == "phone") && n < scaleRows:
		return 3*probeLimit + maxListBuffers
	}
	return maxListBuffers
}

// checkCustomPlans explains, as reader, a filter with each operator on each of the 20
// fields and a sort on each sortable one (both directions), and asserts that none reads
// deals, custom_values or custom_absent by Seq Scan, each filter's first page reads at most
// customFilterBound and each sort's first page walks the field's index on deals
// (sortColumn) within maxListBuffers: the page's heap pages and a few of the index's; it
// returns the buffers of each, which the test logs.
func checkCustomPlans(t *testing.T, s *store.Store, ops *workspace.Ops, reader *auth.Principal, member string, n int, when string) []string {
	t.Helper()
	ctx := context.Background()
	deals := workspace.Lookup("deals")
	defs, err := ops.CustomFields(ctx, reader, "deals")
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != len(customPlanTypes) {
		t.Fatalf("%d definitions, want %d", len(defs), len(customPlanTypes))
	}
	// The seed defines the fields in bulk, past the service: their sort and list indexes
	// are built here, as the service builds them when a field is defined (a second call
	// finds one built).
	for _, f := range defs {
		if f.Sortable() {
			if err := ops.BuildCustomSortIndex(ctx, deals.Table, f.Key, sortColumn[f.Type]); err != nil {
				t.Fatal(err)
			}
		}
		if f.ListIndexed() {
			if err := ops.BuildCustomListIndex(ctx, deals.Table, f.Key); err != nil {
				t.Fatal(err)
			}
		}
		if f.PrefixIndexed() {
			if err := ops.BuildCustomPrefixIndex(ctx, deals.Table, f.Key); err != nil {
				t.Fatal(err)
			}
		}
	}
	var figures []string
	// check explains a list and, for a sort or a list index's eq, asserts it walks index
	// (the field's index on deals).
	check := func(label string, params workspace.ListParams, bound int, index string) int {
		sql, doc := explainList(t, s, ops, reader, deals, params, when)
		top := doc[0].Plan
		walked := false
		top.walk(func(n planNode) {
			if n.NodeType == "Seq Scan" && (n.RelationName == "deals" || n.RelationName == "custom_values" || n.RelationName == "custom_absent") {
				pretty, _ := json.MarshalIndent(doc, "", " ")
				t.Errorf("%s, %s: reads %s by Seq Scan\n%s\n%s", label, when, n.RelationName, sql, pretty)
			}
			walked = walked || n.IndexName == index
		})
		if index != "" && !walked {
			pretty, _ := json.MarshalIndent(doc, "", " ")
			t.Errorf("%s, %s: does not walk %s\n%s\n%s", label, when, index, sql, pretty)
		}
		b := top.SharedHit + top.SharedRead
		if b > bound {
			pretty, _ := json.MarshalIndent(doc, "", " ")
			t.Errorf("%s, %s: reads %d buffers (at most %d)\n%s\n%s", label, when, b, bound, sql, pretty)
		}
		figures = append(figures, fmt.Sprintf("%s %d rows %d buffers", label, top.ActualRows, b))
		return top.ActualRows
	}
	for _, f := range defs {
		vals := customOperands(f.Type, member, n)
		for _, op := range f.Operators() {
			values := []string{vals[op]}
			if op == workspace.OpNull {
				values = []string{"true", "false"}
			}
			for _, v := range values {
				c := workspace.Condition{Field: f.Path(), Op: op, Value: v}
				if op == workspace.OpIn {
					c.Values = strings.Split(v, ",")
				}
				label := fmt.Sprintf("%s (%s) [%s]=%s", f.Path(), f.Type, op, v)
				index := "" // eq on a select or member field reads the field's list index
				if op == workspace.OpEq && f.ListIndexed() {
					index = "deals_cfl_" + f.Key + "_t"
				}
				if op == workspace.OpPrefix && f.PrefixIndexed() { // and prefix on a url or phone field its prefix index
					index = "deals_cfp_" + f.Key + "_t"
				}
				rows := check(label, workspace.ListParams{Where: []workspace.Condition{c}}, customFilterBound(f.Type, op, n), index)
				if op == workspace.OpNull && v == "true" {
					want := 0
					if f.Key == "f18" {
						want = sparseDeals
					}
					if rows != want {
						t.Errorf("%s, %s: %d rows, want %d", label, when, rows, want)
					}
				}
			}
		}
		if f.Sortable() {
			for _, sort := range []string{f.Path(), "-" + f.Path()} {
				index := "deals_cf_" + f.Key + "_" + sortColumn[f.Type]
				check("sort="+sort, workspace.ListParams{Sort: &sort}, maxListBuffers, index)
				// The next page starts at its cursor in the index: under row-level security
				// the keyset's condition on the sort's value is an index condition too
				// (store/migrations/00082_custom_sort_whole_document.sql), so the page reads
				// about what the first does, not the first's entries again.
				first, err := ops.List(context.Background(), reader, workspace.Lookup("deals"), workspace.ListParams{Sort: &sort})
				if err != nil {
					t.Fatal(err)
				}
				if first.NextCursor == nil {
					t.Fatalf("sort=%s, %s: one page only", sort, when)
				}
				check("sort="+sort+" page 2", workspace.ListParams{Sort: &sort, Cursor: *first.NextCursor}, maxListBuffers, index)
			}
		}
	}
	// A sort with a custom condition fetches each record by its id and checks it there:
	// with one that every deal meets (the member field), a page is the sort's.
	var byKey = map[string]*workspace.CustomField{}
	for i := range defs {
		byKey[defs[i].Key] = &defs[i]
	}
	sort, cond := "-"+byKey["f03"].Path(), workspace.Condition{Field: byKey["f15"].Path(), Op: workspace.OpEq, Value: member}
	check("sort="+sort+" with "+cond.Field+"[eq]", workspace.ListParams{Sort: &sort, Where: []workspace.Condition{cond}}, maxListBuffers, "deals_cf_f03_n")
	return figures
}

// TestCustomFieldPlans: 3,000 deals in the workspace read, 3,000 in another, each with
// 20 custom fields of mixed types (sparseDeals of them without f18): before and after
// ANALYZE, no filter or sort on a custom field reads deals, custom_values or custom_absent
// by Seq Scan, [null]=true finds the deals without a value, a filter's first page reads at
// most customFilterBound (most of them maxListBuffers) and a sort's first page walks the
// field's index on deals within maxListBuffers; q on a searchable field, in a list and in
// search, reads both search indexes within maxListBuffers (checkCustomSearch).
func TestCustomFieldPlans(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	bulk := replicaPool(t, storetest.DSN(t))
	ops := workspace.NewOps(workspace.Config{Store: s})
	const n = 3_000
	var reader *auth.Principal
	var member, other string
	for i := range 2 {
		f := storetest.Workspace(t, s, workspace.Scopes())
		sd := &seeder{t: t, pool: bulk, ws: f.WorkspaceID, user: f.Admin.UserID, parents: map[string]string{}}
		for _, table := range []string{"deals", "custom_fields", "custom_values", "custom_absent"} {
			sd.quiet(table) // an autoanalyze mid-test would change the plans of "not analysed"
		}
		sd.seed("deals", n)
		seedCustomFields(t, bulk, f.WorkspaceID, f.Admin.UserID)
		if i == 0 {
			reader, member = readerOfEverything(t, s, f.WorkspaceID), f.Admin.UserID
		} else {
			other = f.WorkspaceID
		}
	}
	// A few deals of the workspace read lose their f18 through the record trigger (not
	// replica mode), which writes their custom_absent rows: [null]=true on f18 matches
	// sparseDeals of them, on every other field none.
	unsetSparse(t, storetest.Pool(t), reader.WorkspaceID)
	// q=acme matches, in the workspace read, searchedDeals deals by name and as many by
	// their searchable f01 alone; in the other, a hundred times as many of each.
	seedSearched(t, storetest.Pool(t), reader.WorkspaceID, searchedDeals)
	seedSearched(t, storetest.Pool(t), other, 100*searchedDeals)
	// As autovacuum would: the probes read custom_values' indexes alone only where the
	// visibility map marks the pages all-visible; on pages written since, each counted
	// entry's row is read too (docs/performance.md, "Custom fields", has both figures).
	if _, err := bulk.Exec(ctx, "VACUUM deals, custom_values, custom_absent"); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"not analysed since seeding", "analysed"} {
		if when == "analysed" {
			if _, err := bulk.Exec(ctx, "ANALYZE deals, custom_values, custom_absent, custom_fields"); err != nil {
				t.Fatal(err)
			}
		}
		figures := checkCustomPlans(t, s, ops, reader, member, n, when)
		figures = append(figures, checkCustomSearch(t, s, ops, reader, 2*searchedDeals, when)...)
		slices.Sort(figures)
		t.Logf("%s:\n%s", when, strings.Join(figures, "\n"))
	}
}

// searchedDeals is how many deals of the workspace read q=acme matches by name, and how
// many more it matches by their searchable custom field f01 alone (seedSearched).
const searchedDeals = 2

// seedSearched names n deals of workspace ws "Acme Zeta ..." and gives n others an f01 of
// "Acme Yotta ...", through the record trigger (owner: a pool with triggers on), which
// writes their custom_values rows.
func seedSearched(t *testing.T, owner *pgxpool.Pool, ws string, n int) {
	t.Helper()
	for _, sql := range []string{
		`UPDATE deals SET name = 'Acme Zeta ' || id WHERE id IN
			(SELECT id FROM deals WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC OFFSET 100 LIMIT $2)`,
		`UPDATE deals SET custom_fields = custom_fields || jsonb_build_object('f01', 'Acme Yotta ' || id) WHERE id IN
			(SELECT id FROM deals WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC OFFSET 1500 LIMIT $2)`,
	} {
		if _, err := owner.Exec(context.Background(), sql, ws, n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// checkCustomSearch explains, as reader, a list of deals with q=acme and search's
// statement for it over deals (its generic plan, as Search runs it), and asserts each
// finds want deals through the deals' search index and custom_values', reads
// deals and custom_values by no Seq Scan (custom_fields, a page here, may be) and at most
// maxListBuffers; it returns the buffers of each, which the test logs. Written "matches
// the document OR its id is IN (the custom matches)", q read the workspace's deals, each
// checked (434 buffers here, 971 once analysed).
func checkCustomSearch(t *testing.T, s *store.Store, ops *workspace.Ops, reader *auth.Principal, want int, when string) []string {
	t.Helper()
	q := "acme"
	sql, doc := explainList(t, s, ops, reader, workspace.Lookup("deals"), workspace.ListParams{Q: &q}, when)
	figures := []string{checkSearchPlan(t, "list q="+q, when, sql, doc, want)}
	sql, args, err := workspace.SearchStatement(q, []string{"deals"}, map[string]bool{"deals": true}, workspace.DefaultSearchLimit)
	if err != nil {
		t.Fatal(err)
	}
	doc = explainGeneric(t, s, reader, sql, args, when)
	return append(figures, checkSearchPlan(t, "search q="+q, when, sql, doc, want))
}

// checkSearchPlan asserts checkCustomSearch's conditions on one plan and returns its figure.
func checkSearchPlan(t *testing.T, label, when, sql string, doc explained, want int) string {
	t.Helper()
	top := doc[0].Plan
	var problems []string
	if top.ActualRows != want {
		problems = append(problems, fmt.Sprintf("returned %d rows, want %d", top.ActualRows, want))
	}
	used := map[string]bool{}
	top.walk(func(n planNode) {
		used[n.IndexName] = true
		if n.NodeType == "Seq Scan" && (n.RelationName == "deals" || n.RelationName == "custom_values") {
			problems = append(problems, "reads "+n.RelationName+" by Seq Scan")
		}
	})
	for _, index := range []string{"deals_search", "custom_values_search"} {
		if !used[index] {
			problems = append(problems, "does not use "+index)
		}
	}
	b := top.SharedHit + top.SharedRead
	if b > maxListBuffers {
		problems = append(problems, fmt.Sprintf("reads %d buffers (at most %d)", b, maxListBuffers))
	}
	if len(problems) > 0 {
		pretty, _ := json.MarshalIndent(doc, "", " ")
		t.Errorf("%s, %s: %s\n%s\n%s", label, when, strings.Join(problems, "; "), sql, pretty)
	}
	return fmt.Sprintf("%s %d rows %d buffers", label, top.ActualRows, b)
}

// explainGeneric runs EXPLAIN (ANALYZE, BUFFERS) of the generic plan of sql, as the reader
// (store.QueryGeneric's plan), once after running it, as explainList does.
func explainGeneric(t *testing.T, s *store.Store, reader *auth.Principal, sql string, args []any, when string) explained {
	t.Helper()
	ctx := context.Background()
	// EXECUTE takes no parameters of its own: its values are literals.
	values := make([]string, len(args))
	for i, a := range args {
		v, ok := a.(string)
		if !ok {
			t.Fatalf("argument %d is %T, not text", i+1, a)
		}
		values[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	execute := "EXECUTE generic_plan(" + strings.Join(values, ", ") + ")"
	var raw []byte
	err := s.InTx(ctx, reader.Actor(), func(tx pgx.Tx) error {
		for _, stmt := range []string{"SET LOCAL plan_cache_mode = force_generic_plan", "PREPARE generic_plan AS " + sql} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		defer tx.Exec(ctx, "DEALLOCATE generic_plan")
		if _, err := tx.Exec(ctx, execute); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+execute).Scan(&raw)
	})
	if err != nil {
		t.Fatalf("%s: explain: %v", when, err)
	}
	var doc explained
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
