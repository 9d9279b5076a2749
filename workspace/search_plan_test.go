package workspace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestFindPlansUseTheirIndexes: with 10,000 deals and 10,000 people in one workspace, q
// reads its matches through the search index (migration 00019, led by workspace_id since
// 00024, so one index answers the policy's workspace and the match) rather than the
// workspace's rows, before and after ANALYZE, and each sort walks its (workspace_id,
// field, id) index without sorting, and so does a name's prefix, and a part of a name or
// an email reads its trigram index; executed as the request role under RLS. A typo's
// trigram plan is logged, not asserted: it varies with ANALYZE's sample. The sizes of
// 100,000 rows among 1,000,000 are TestFindPlansAtScale's.
func TestFindPlansUseTheirIndexes(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	ops := workspace.NewOps(workspace.Config{Store: s})
	sd := &seeder{t: t, pool: pool, ws: f.WorkspaceID, user: f.Admin.UserID, parents: map[string]string{}}
	for _, c := range []struct {
		table, q, typo, sort string
	}{
		{"deals", "acme", "zetaa", "-value"},
		{"people", "acme", "zetaa", "name"},
	} {
		t.Run(c.table, func(t *testing.T) {
			sd.t = t
			sd.quiet(c.table)
			sd.seed(c.table, 10_000)
			// Distinct names, three of them the ones searched for.
			sd.exec("UPDATE "+c.table+" SET name = 'Row ' || md5(id::text) WHERE workspace_id = $1", f.WorkspaceID)
			sd.exec("UPDATE "+c.table+" SET name = 'Acme Zeta ' || id WHERE id IN (SELECT id FROM "+c.table+
				" WHERE workspace_id = $1 LIMIT 3)", f.WorkspaceID)
			if c.table == "people" { // q of an address: the same three, by their email's domain
				sd.exec("UPDATE people SET email = 'p' || left(md5(id::text), 6) || '@acme.example' WHERE workspace_id = $1 AND name LIKE 'Acme Zeta %'", f.WorkspaceID)
			}
			sd.exec("VACUUM " + c.table) // no dead versions for the index scans to visit
			r := workspace.Lookup(c.table)
			for _, when := range []string{"not analysed since seeding", "analysed"} {
				if when == "analysed" {
					sd.exec("ANALYZE " + c.table)
				}
				sortIndex := r.Table + "_" + strings.TrimPrefix(c.sort, "-") + "_sort"
				checkFindPlan(t, s, ops, reader, r, workspace.ListParams{Sort: &c.sort}, workspace.DefaultLimit+1, sortIndex, when, true)
				checkFindPlan(t, s, ops, reader, r, workspace.ListParams{Q: &c.q}, 3, r.Table+"_search", when, true)
				if c.table == "people" {
					// q of a host is one word of the search document (migration 00062), not a
					// phrase of its labels, whose "example", in every seeded address, read up to
					// 193 buffers of the search index.
					addr := "acme.example"
					checkFindPlan(t, s, ops, reader, r, workspace.ListParams{Q: &addr}, 3, r.Table+"_search", when, true)
				}
				// A typo's plan depends on ANALYZE's sample: people q=zetaa read 31 buffers in
				// one run and 574 in another. Its rows are asserted, its plan logged.
				checkFindPlan(t, s, ops, reader, r, workspace.ListParams{Q: &c.typo}, 3, r.Table+"_name_trgm", when, false)
				// A prefix of one name, in the list's own order and sorted by name, reads a range
				// of the name's index: the test database's text is in code point order.
				prefix := workspace.Condition{Field: "name", Op: workspace.OpPrefix, Value: operandsOf(t, sd, r, r.OpField("name"))[workspace.OpPrefix]}
				t.Logf("%s name[prefix], %s: %s", r.Name, when, checkOperatorPlan(t, s, ops, reader, r, prefix, "", when, sd, maxListBuffers)[0])
				checkOperatorPlan(t, s, ops, reader, r, prefix, "name", when, sd, maxListBuffers)
				checkOperatorPlan(t, s, ops, reader, r, prefix, "-name", when, sd, maxListBuffers)
				// A part of one name, and of the three addresses, reads the field's trigram index
				// (migration 00061), case ignored; its buffers are logged (checkOperatorPlan).
				parts := []workspace.Condition{{Field: "name", Op: workspace.OpContains, Value: operandsOf(t, sd, r, r.OpField("name"))[workspace.OpContains]}}
				if c.table == "people" {
					parts = append(parts, workspace.Condition{Field: "email", Op: workspace.OpContains, Value: "ACME.exa"})
				}
				for _, part := range parts {
					t.Logf("%s %s[contains]=%s, %s: %s", r.Name, part.Field, part.Value, when,
						checkOperatorPlan(t, s, ops, reader, r, part, "", when, sd, maxListBuffers)[0])
				}
			}
		})
	}
}

// checkFindPlan explains the statement List runs as the reader and asserts it returns
// want rows, reads the table through index (and no other way), sorts only a q's matches,
// and stays within the list buffer bound; not strict, it asserts the rows and logs the rest.
func checkFindPlan(t *testing.T, s *store.Store, ops *workspace.Ops, reader *auth.Principal, r *workspace.Resource,
	params workspace.ListParams, want int, index, when string, strict bool) {
	t.Helper()
	sql, doc := explainList(t, s, ops, reader, r, params, when)
	top := doc[0].Plan
	var problems []string
	if top.ActualRows != want {
		problems = append(problems, fmt.Sprintf("returned %d rows, want %d", top.ActualRows, want))
	}
	uses := false
	top.walk(func(n planNode) {
		switch {
		case n.IndexName == index:
			uses = true
		case n.NodeType == "Sort" && params.Q == nil:
			problems = append(problems, "sorts")
		case n.RelationName == r.Table && n.NodeType == "Seq Scan":
			problems = append(problems, "reads the table by Seq Scan")
		case n.IndexName == r.Table+"_keyset":
			problems = append(problems, "reads the workspace by its keyset index")
		}
	})
	if !uses {
		problems = append(problems, "does not use "+index)
	}
	if b := top.SharedHit + top.SharedRead; b > maxListBuffers {
		problems = append(problems, fmt.Sprintf("reads %d buffers (at most %d)", b, maxListBuffers))
	}
	if doc[0].JIT != nil {
		problems = append(problems, fmt.Sprintf("compiled %d functions by JIT", doc[0].JIT.Functions))
	}
	var q, sort string
	if params.Q != nil {
		q = *params.Q
	}
	if params.Sort != nil {
		sort = *params.Sort
	}
	switch {
	case !strict && top.ActualRows == want:
		t.Logf("%s q=%s, %s: %d buffers; %s", r.Name, q, when, top.SharedHit+top.SharedRead, strings.Join(problems, "; "))
	case len(problems) > 0:
		pretty, _ := json.MarshalIndent(doc, "", " ")
		t.Errorf("%s q=%s sort=%s %+v, %s: %s\n%s\n%s", r.Name, q, sort, params, when, strings.Join(problems, "; "), sql, pretty)
	case testing.Verbose():
		t.Logf("%s q=%s sort=%s, %s: %d buffers", r.Name, q, sort, when, top.SharedHit+top.SharedRead)
	}
}

// TestFindIndexes checks the catalogue's finding declarations (workspace/find.go) against
// the migrated database: each searchable resource's table stores its search document,
// the column search_doc generated from exactly its searchable fields in order (migration
// 00029; List's q= reads the column), with a search index on it; each name has a trigram
// index, of the operator class that answers contains too (migration 00061), and so has
// each field taking contains; both keep a pending list of at most 64 kB (migration 00033);
// each declared sort a (workspace_id, field, id) index, each field declared for operator filters alone a
// (workspace_id, field, created_at DESC, id DESC) index (migration 00030). No other table
// has the column.
func TestFindIndexes(t *testing.T) {
	storetest.New(t)
	ctx := context.Background()
	defs := map[string]string{}
	rows, err := storetest.Pool(t).Query(ctx, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			t.Fatal(err)
		}
		defs[name] = strings.ReplaceAll(def, `"`, "") // position is quoted: a keyword
	}
	docs := map[string]string{} // table -> the generation expression of its search_doc
	rows, err = storetest.Pool(t).Query(ctx, `SELECT a.attrelid::regclass::text, a.attgenerated::text,
			format_type(a.atttypid, a.atttypmod), coalesce(pg_get_expr(d.adbin, d.adrelid), '')
		FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		JOIN pg_class c ON c.oid = a.attrelid
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attname = 'search_doc' AND NOT a.attisdropped`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var table, generated, typ, expr string
		if err := rows.Scan(&table, &generated, &typ, &expr); err != nil {
			t.Fatal(err)
		}
		if generated != "s" || typ != "tsvector" {
			t.Errorf("%s.search_doc: %s, generated %q, want a stored generated tsvector", table, typ, generated)
		}
		docs[table] = strings.ReplaceAll(expr, `"`, "")
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	want := func(index, fragment string) {
		t.Helper()
		if def, ok := defs[index]; !ok || !strings.Contains(def, fragment) {
			t.Errorf("index %s: %q, want it to contain %q", index, def, fragment)
		}
	}
	for _, r := range workspace.Catalog() {
		if s := r.Searchable(); len(s) > 0 {
			if doc, expr := docs[r.Table], "ws_search_doc(VARIADIC ARRAY["+strings.Join(s, ", ")+"])"; doc != expr {
				t.Errorf("%s.search_doc: generated as %q, want %q", r.Table, doc, expr)
			}
			delete(docs, r.Table)
			want(r.Table+"_search", "USING gin (workspace_id, search_doc) WITH (gin_pending_list_limit='64')")
		}
		for _, n := range r.NameFields() {
			want(r.Table+"_"+n+"_trgm", "USING gin (workspace_id, ws_unaccent("+n+") ws_trgm_ops) WITH (gin_pending_list_limit='64')")
		}
		// contains is answered by the field's trigram index (migration 00061).
		for _, f := range r.OpFields() {
			if slices.Contains(f.Operators(), workspace.OpContains) {
				want(r.Table+"_"+f.Name+"_trgm", "ws_unaccent("+f.Name+") ws_trgm_ops")
			}
		}
		for _, f := range r.SortFields() {
			if f != "created_at" && f != "updated_at" {
				want(r.Table+"_"+f+"_sort", "(workspace_id, "+f+", id)")
			}
		}
		// A field declared for operator filters alone (migration 00030) has an index
		// carrying the list's order: the probe of a condition on it reads its matches there.
		// (A declared sort has its _sort index, even on a resource of one page.)
		for _, f := range r.OpFields() {
			_, sorted := defs[r.Table+"_"+f.Name+"_sort"]
			if !f.Filter && !sorted && f.Name != "created_at" && f.Name != "updated_at" {
				want(r.Table+"_"+f.Name, "(workspace_id, "+f.Name+", created_at DESC, id DESC)")
			}
		}
	}
	for table := range docs {
		t.Errorf("%s has a search_doc column but no searchable resource reads it", table)
	}
}
