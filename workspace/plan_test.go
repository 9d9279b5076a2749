package workspace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestListPlansWalkTheKeysetIndex seeds 10,000 rows of every listable resource in one
// workspace and asserts, with EXPLAIN (ANALYZE, BUFFERS) of the very statement List runs,
// executed as the request role with the actor set, that the first page walks the resource's
// keyset index (workspace_id, created_at DESC, id DESC) for its 51 rows instead of reading
// and sorting the workspace: no Sort, no other scan of the table, a handful of buffers.
// Each table is checked twice: before ANALYZE (no statistics, or those of the table before
// it grew; autovacuum is off for it meanwhile) and after: at 10,000 rows the planner once
// sorted the whole workspace because the feature-grant policy looked selective
// (docs/performance.md, "Lists: plans that do not depend on statistics"). The same tables
// then answer each sort, q and each operator (checkFinding).
func TestListPlansWalkTheKeysetIndex(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	ops := workspace.NewOps(workspace.Config{Store: s})
	sd := &seeder{t: t, pool: pool, ws: f.WorkspaceID, user: f.Admin.UserID, parents: map[string]string{}}
	sd.otherWorkspaces(10_000) // the workspace and credits tables: one row per workspace
	readerOf := func(r *workspace.Resource) *auth.Principal {
		if r.AdminOnly { // only admins read these at all (docs/webhooks.md)
			return f.Admin
		}
		return reader
	}

	for _, r := range workspace.Catalog() {
		if !r.CanList() {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			sd.t = t
			if r.Access != workspace.Singleton && r.Access != workspace.ListOnly {
				sd.quiet(r.Table)
				if len(r.Searchable()) > 0 {
					// Words of their own in every row, as real text has (a word every row
					// shares makes the planner guess that half the rows match any other);
					// the three newest (none of them a private task) for q=acme to find.
					col := r.Searchable()[0]
					if names := r.NameFields(); len(names) > 0 {
						col = names[0]
					}
					sd.set = map[string]map[string]string{r.Table: {col: "CASE WHEN g <= 3 THEN 'Acme Zeta ' || g ELSE 'Row ' || md5(g::text) END"}}
				}
				sd.seed(r.Table, 10_000)
				sd.set = nil
			}
			reader := readerOf(r)
			seeded := r.Access != workspace.Singleton && r.Access != workspace.ListOnly
			for _, when := range []string{"not analysed since seeding", "analysed"} {
				if when == "analysed" {
					sd.exec("ANALYZE " + pgx.Identifier{r.Table}.Sanitize())
				}
				checkListPlan(t, s, ops, reader, r, workspace.ListParams{}, when)
				if seeded {
					checkFinding(t, s, ops, reader, r, sd, when)
				}
			}
		})
	}
}

// checkFinding: in a workspace of 10,000 rows of r, each sort walks its (workspace_id,
// field, id) index and q=acme finds its three rows through the search index, never
// reading the table by Seq Scan. Their buffers are logged, not bounded, as are the plans
// of each operator on each field: the list bound holds for deals and people
// (TestFindPlansUseTheirIndexes, TestFindPlansAtScale), and docs/performance.md ("Finding
// in every resource at 10,000 rows") lists where the others read more. A field with fewer
// than five values (the seed leaves most nullable columns NULL) is compared by null only.
func checkFinding(t *testing.T, s *store.Store, ops *workspace.Ops, reader *auth.Principal, r *workspace.Resource, sd *seeder, when string) {
	t.Helper()
	var figures []string
	explain := func(what string, params workspace.ListParams, index string) (planNode, bool, bool, string, explained) {
		t.Helper()
		sql, doc := explainList(t, s, ops, reader, r, params, when)
		top := doc[0].Plan
		uses, seq := false, false
		top.walk(func(n planNode) {
			uses = uses || n.IndexName == index
			seq = seq || n.RelationName == r.Table && n.NodeType == "Seq Scan"
		})
		figure := fmt.Sprintf("%s %d", what, top.SharedHit+top.SharedRead)
		if seq {
			figure += " (Seq Scan)"
		}
		figures = append(figures, figure)
		return top, uses, seq, sql, doc
	}
	find := func(what string, params workspace.ListParams, want int, index string) {
		t.Helper()
		top, uses, seq, sql, doc := explain(what, params, index)
		if top.ActualRows != want || !uses || seq {
			pretty, _ := json.MarshalIndent(doc, "", " ")
			t.Errorf("%s %s, %s: %d rows (want %d), reads %s: %v, Seq Scan: %v\n%s\n%s",
				r.Name, what, when, top.ActualRows, want, index, uses, seq, sql, pretty)
		}
	}
	for _, field := range r.SortFields() {
		if field == "created_at" || field == "updated_at" {
			continue // their walks are the list's own, checked above
		}
		for _, sort := range []string{field, "-" + field} {
			find("sort="+sort, workspace.ListParams{Sort: &sort}, workspace.DefaultLimit+1, r.Table+"_"+field+"_sort")
		}
	}
	if len(r.Searchable()) > 0 {
		find("q=acme", workspace.ListParams{Q: new("acme")}, 3, r.Table+"_search")
	}
	for _, field := range r.OpFields() {
		var filled int
		err := sd.pool.QueryRow(context.Background(), "SELECT count(*) FROM "+pgx.Identifier{r.Table}.Sanitize()+
			" WHERE workspace_id = $1 AND "+pgx.Identifier{field.Name}.Sanitize()+" IS NOT NULL", sd.ws).Scan(&filled)
		if err != nil {
			t.Fatal(err)
		}
		vals := map[workspace.Operator]string{}
		if filled >= 5 {
			vals = operandsOf(t, sd, r, field)
		}
		vals[workspace.OpNull] = "true"
		for _, op := range field.Operators() {
			if v, ok := vals[op]; ok {
				cond := workspace.Condition{Field: field.Name, Op: op, Value: v}
				explain(fmt.Sprintf("%s[%s]", field.Name, op), workspace.ListParams{Where: []workspace.Condition{cond}}, "")
			}
		}
	}
	t.Logf("%s, %s, buffers of the first page: %s", r.Name, when, strings.Join(figures, "; "))
}

// TestDealListPlansAtEverySize checks deals at 100, 10,000 and 100,000 rows, each in a
// workspace of its own, with statistics taken while the workspace was empty (stale) and
// after it was seeded; and lists filtered by a column every deal shares (the filter's own
// index would mean reading the whole workspace): the pipeline, and status=open, the
// status every deal of an open stage has (migration 00037).
func TestDealListPlansAtEverySize(t *testing.T) {
	s := storetest.New(t)
	ops := workspace.NewOps(workspace.Config{Store: s})
	deals := workspace.Lookup("deals")
	for _, n := range []int{100, 10_000, 100_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := storetest.Workspace(t, s, workspace.Scopes())
			reader := readerOfEverything(t, s, f.WorkspaceID)
			sd := &seeder{t: t, pool: storetest.Pool(t), ws: f.WorkspaceID, user: f.Admin.UserID, parents: map[string]string{}}
			sd.quiet("deals")
			sd.exec("ANALYZE deals")
			pipeline := sd.parent("pipelines")
			sd.seed("deals", n)
			byPipeline := workspace.ListParams{Filters: map[string]string{"pipeline_id": pipeline}}
			open := workspace.ListParams{Filters: map[string]string{"status": "open"}}
			checkListPlan(t, s, ops, reader, deals, workspace.ListParams{}, "stale statistics")
			checkListPlan(t, s, ops, reader, deals, byPipeline, "stale statistics, filtered")
			checkListPlan(t, s, ops, reader, deals, open, "stale statistics, status=open")
			sd.exec("ANALYZE deals")
			checkListPlan(t, s, ops, reader, deals, workspace.ListParams{}, "analysed")
			checkListPlan(t, s, ops, reader, deals, byPipeline, "analysed, filtered")
			checkListPlan(t, s, ops, reader, deals, open, "analysed, status=open")
		})
	}
}

// readerOfEverything is a member holding read on every feature: every policy is evaluated
// (admins pass the same checks with full).
func readerOfEverything(t *testing.T, s *store.Store, ws string) *auth.Principal {
	grants := map[string]string{}
	for _, f := range store.Features {
		grants[f] = "read"
	}
	return storetest.AddUser(t, s, ws, "member", grants, workspace.Scopes())
}

// maxListBuffers bounds the buffers of a first page: a few index pages and the heap pages
// of 51 rows seeded in key order. Reading the workspace of 10,000 rows takes well over 100.
// Tables whose read policy looks up each row's parent (task attachments, comments and
// activity look at their task, under the task's own policies: a few index and heap pages)
// may add lookupBuffers a row; those read 30,000 buffers when they read the workspace.
const (
	maxListBuffers = 60
	lookupBuffers  = 8
)

// parentLookups are the tables whose read policy looks up each row's parent.
var parentLookups = map[string]bool{"task_attachments": true, "comments": true, "activity": true}

// checkListPlan explains the statement List runs for params, as the reader, and asserts
// the keyset walk, the rows it returns and its buffers.
func checkListPlan(t *testing.T, s *store.Store, ops *workspace.Ops, reader *auth.Principal, r *workspace.Resource, params workspace.ListParams, when string) {
	t.Helper()
	sql, doc := explainList(t, s, ops, reader, r, params, when)
	top := doc[0].Plan
	want := workspace.DefaultLimit
	switch {
	case r.Access == workspace.Singleton || r.Access == workspace.ListOnly:
		want = 1
	case r.Paged:
		want++
	}
	index := r.Table + "_keyset"
	if r.Access == workspace.Singleton {
		index = "workspaces_pkey"
	}
	var problems []string
	if top.ActualRows != want {
		problems = append(problems, fmt.Sprintf("returned %d rows, want %d (is the seed visible?)", top.ActualRows, want))
	}
	walks := false
	top.walk(func(n planNode) {
		switch {
		case n.NodeType == "Sort" && r.Access != workspace.Singleton: // the workspace: one row by id
			problems = append(problems, "sorts")
		case n.RelationName == r.Table && n.NodeType == "Index Scan" &&
			(n.IndexName == index || len(params.Filters) > 0 && strings.HasPrefix(n.IndexName, r.Table+"_")):
			walks = true // a filter's index carries the keyset order too (migration 00011)
		case n.RelationName == r.Table:
			problems = append(problems, fmt.Sprintf("reads %s by %s %s", r.Table, n.NodeType, n.IndexName))
		}
	})
	if !walks {
		problems = append(problems, "does not walk "+index)
	}
	limit := maxListBuffers
	if parentLookups[r.Table] {
		limit += lookupBuffers * want
	}
	if b := top.SharedHit + top.SharedRead; b > limit {
		problems = append(problems, fmt.Sprintf("reads %d buffers (at most %d)", b, limit))
	}
	if testing.Verbose() {
		t.Logf("%s, %s: %d buffers", r.Name, when, top.SharedHit+top.SharedRead)
	}
	if len(problems) > 0 {
		pretty, _ := json.MarshalIndent(doc, "", " ")
		t.Errorf("%s, %s: %s\n%s\n%s", r.Name, when, strings.Join(problems, "; "), sql, pretty)
	}
}

// explainList runs EXPLAIN (ANALYZE, BUFFERS) of the statement List runs for params, as
// the reader, and returns the statement and the plan. It runs the statement once before, in
// the same transaction: EXPLAIN's buffers also count the system catalogue pages a node reads
// while the backend's catalogue caches are cold, as they are after a cache reset, which DDL
// in other databases of a busy server causes. One such run of a three-row search counted 540
// buffers, 199 of them in its Sort node, which reads no table. In the transaction, holding
// the statement's locks, the backend takes in no invalidation before the second run.
func explainList(t *testing.T, s *store.Store, ops *workspace.Ops, reader *auth.Principal, r *workspace.Resource,
	params workspace.ListParams, when string) (string, explained) {
	t.Helper()
	ctx := context.Background()
	sql, args, _, err := ops.ListSQL(ctx, reader, r, params)
	if err != nil {
		t.Fatal(err)
	}
	var raw []byte
	err = s.InTx(ctx, reader.Actor(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sql, args...).Scan(&raw)
	})
	if err != nil {
		t.Fatalf("%s: explain: %v", when, err)
	}
	var doc explained
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return sql, doc
}

// explained is EXPLAIN's JSON document: the plan, and JIT's section when the statement
// was compiled.
type explained []struct {
	Plan planNode
	JIT  *struct{ Functions int } `json:"JIT"`
}

// planNode is the part of EXPLAIN's JSON the check reads.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	IndexCond    string     `json:"Index Cond"`
	ActualRows   int        `json:"Actual Rows"`
	SharedHit    int        `json:"Shared Hit Blocks"`
	SharedRead   int        `json:"Shared Read Blocks"`
	Plans        []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// seeder fills tables of one workspace as the owner, with one INSERT ... SELECT
// generate_series a table. Columns come from the catalogue of PostgreSQL, not from the
// test: every NOT NULL column without a default gets a value of its type (the first value
// its CHECK allows, for enumerations), every reference points at a real parent row of the
// workspace, and where a reference is part of a unique key each row gets its own parent.
type seeder struct {
	t       *testing.T
	pool    *pgxpool.Pool
	ws      string
	user    string
	parents map[string]string // table -> id of a parent row made for references
	// set gives columns of a table their values as SQL of the row number g, in place of
	// the generic ones (and sets nullable columns the seed would leave NULL).
	set map[string]map[string]string
}

func (sd *seeder) exec(sql string, args ...any) {
	sd.t.Helper()
	if _, err := sd.pool.Exec(context.Background(), sql, args...); err != nil {
		sd.t.Fatalf("%s: %v", sql, err)
	}
}

// quiet keeps autovacuum from analysing the table behind the test's back.
func (sd *seeder) quiet(table string) {
	sd.exec("ALTER TABLE " + pgx.Identifier{table}.Sanitize() + " SET (autovacuum_enabled = false)")
	sd.t.Cleanup(func() {
		_, _ = sd.pool.Exec(context.Background(), "ALTER TABLE "+pgx.Identifier{table}.Sanitize()+" RESET (autovacuum_enabled)")
	})
}

// otherWorkspaces adds n workspaces, each with its credit balance.
func (sd *seeder) otherWorkspaces(n int) {
	sd.exec(`WITH w AS (INSERT INTO workspaces (name) SELECT 'other ' || g FROM generate_series(1, $1::int) g RETURNING id)
		INSERT INTO credit_balances (workspace_id, balance) SELECT id, 0 FROM w`, n)
}

// column is a column the seed must fill: NOT NULL without a default, or a reference.
type column struct {
	name, typ string
	notNull   bool
	check     string // the column's CHECK (... IN (...)) text, if any
	parent    string // referenced table of a (workspace_id, column) foreign key
	unique    bool   // part of a unique key beside workspace_id: one parent per row
}

// seed inserts n rows into table, created a second apart, newest first in key order.
func (sd *seeder) seed(table string, n int) {
	sd.t.Helper()
	ctx := context.Background()
	rows, err := sd.pool.Query(ctx, `
		SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
		       coalesce((SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
		                  WHERE c.conrelid = a.attrelid AND c.contype = 'c' AND c.conkey = ARRAY[a.attnum] LIMIT 1), ''),
		       coalesce((SELECT c.confrelid::regclass::text FROM pg_constraint c
		                  WHERE c.conrelid = a.attrelid AND c.contype = 'f' AND a.attnum = ANY (c.conkey)
		                    AND cardinality(c.conkey) = 2 LIMIT 1), ''),
		       EXISTS (SELECT 1 FROM pg_constraint c
		                WHERE c.conrelid = a.attrelid AND c.contype = 'u' AND a.attnum = ANY (c.conkey)
		                  AND cardinality(c.conkey) = 3)
		  FROM pg_attribute a
		 WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
		   AND a.attname NOT IN ('id', 'workspace_id', 'created_by', 'created_at', 'updated_at')
		   AND (a.attnotnull AND NOT a.atthasdef OR a.attname IN ('entity_id', 'is_private', 'feature')
		        OR a.attname = ANY ($2::text[])
		        OR EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conrelid = a.attrelid AND c.contype = 'f'
		                    AND a.attnum = ANY (c.conkey) AND cardinality(c.conkey) = 2))
		 ORDER BY a.attnum`, table, slices.Collect(maps.Keys(sd.set[table])))
	if err != nil {
		sd.t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (column, error) {
		var c column
		return c, r.Scan(&c.name, &c.typ, &c.notNull, &c.check, &c.parent, &c.unique)
	})
	if err != nil {
		sd.t.Fatal(err)
	}
	names := []string{"workspace_id", "created_at", "created_by"}
	values := []string{"$1::uuid", "now() - g * interval '1 second'", "$2::uuid"}
	var from []string
	for _, c := range cols {
		v, ok := sd.set[table][c.name]
		if !ok {
			v = sd.value(table, c, n, &from)
		}
		if v == "" {
			continue
		}
		names = append(names, pgx.Identifier{c.name}.Sanitize())
		values = append(values, v)
	}
	sql := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM generate_series(1, $3::int) g%s",
		pgx.Identifier{table}.Sanitize(), strings.Join(names, ", "), strings.Join(values, ", "), strings.Join(from, ""))
	if table == "custom_fields" {
		// A resource takes at most 200 fields (its guard trigger); the plan tests hold
		// 10,000 to see the plans at size, written with triggers off.
		ctx := context.Background()
		tx, err := sd.pool.Begin(ctx)
		if err != nil {
			sd.t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		for _, stmt := range []string{"SET LOCAL session_replication_role = replica", sql} {
			if _, err := tx.Exec(ctx, stmt, map[bool][]any{true: {sd.ws, sd.user, n}}[stmt == sql]...); err != nil {
				sd.t.Fatalf("%s: %v", stmt, err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			sd.t.Fatal(err)
		}
		return
	}
	sd.exec(sql, sd.ws, sd.user, n)
}

// value is the SQL of a column's value in row g ("" leaves a nullable column out); joins
// it needs are appended to from.
func (sd *seeder) value(table string, c column, n int, from *[]string) string {
	switch {
	case c.parent == "users" && c.unique: // space_members: n members of the workspace
		alias := "u_" + c.name
		sd.seed("users", n)
		*from = append(*from, fmt.Sprintf(` JOIN (SELECT id, row_number() OVER (ORDER BY id) rn FROM users
			WHERE workspace_id = $1::uuid AND id <> $2::uuid LIMIT $3::int) %s ON %s.rn = g`, alias, alias))
		return alias + ".id"
	case c.parent == "users":
		if c.notNull {
			return "$2::uuid"
		}
		return ""
	case c.parent != "" && c.unique: // join records: each row links its own parent
		alias := "p_" + c.name
		sd.seed(c.parent, n)
		*from = append(*from, fmt.Sprintf(` JOIN (SELECT id, row_number() OVER (ORDER BY id) rn FROM %s
			WHERE workspace_id = $1::uuid ORDER BY id LIMIT $3::int) %s ON %s.rn = g`,
			pgx.Identifier{c.parent}.Sanitize(), alias, alias))
		return alias + ".id"
	case c.parent != "" && (c.notNull || visibilityParent(table, c.name)):
		return "'" + sd.parent(c.parent) + "'::uuid"
	case c.parent != "":
		return ""
	}
	switch c.name {
	case "custom_fields", "reference_resource": // records without custom values; fields of other types than reference
		return ""
	case "key":
		if table == "custom_fields" {
			return "'k' || g"
		}
	case "entity_id": // comments and activity describe a task of the workspace
		return "'" + sd.parent("tasks") + "'::uuid"
	case "is_private": // every tenth task is private to its creator: the reader skips it
		return "g % 10 = 0"
	case "feature": // activity of a feature-gated resource: its grant is checked per row
		return "'crm'"
	}
	if c.name == "entity_type" {
		if table == "comments" {
			return "'task'"
		}
		return "'tasks'"
	}
	if c.check != "" {
		if i := strings.Index(c.check, "'"); i >= 0 {
			j := strings.Index(c.check[i+1:], "'")
			return c.check[i:i+j+2] + "::" + c.typ
		}
	}
	switch c.typ {
	case "uuid":
		return "gen_random_uuid()"
	case "text":
		return fmt.Sprintf("'%s ' || g || ' ' || gen_random_uuid()", table)
	case "integer", "bigint", "numeric":
		return "g"
	case "date":
		return "current_date"
	case "timestamp with time zone":
		return "now()"
	case "boolean":
		return "false"
	case "jsonb":
		return "'{}'::jsonb"
	}
	sd.t.Fatalf("seed %s: no value for %s %s", table, c.name, c.typ)
	return ""
}

// visibilityParent names the nullable references a read policy follows: they are seeded
// so the policy's lookup runs for every row, as it does in a real workspace.
func visibilityParent(table, column string) bool {
	return table == "task_attachments" && column == "task_id"
}

// parent returns a row of table in the workspace, made (with its own parents) on first use.
func (sd *seeder) parent(table string) string {
	sd.t.Helper()
	if id, ok := sd.parents[table]; ok {
		return id
	}
	if table == "users" {
		return sd.user
	}
	sd.seed(table, 1)
	var id string
	if err := sd.pool.QueryRow(context.Background(), "SELECT id::text FROM "+pgx.Identifier{table}.Sanitize()+
		" WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1", sd.ws).Scan(&id); err != nil {
		sd.t.Fatal(err)
	}
	sd.parents[table] = id
	return id
}

// TestDealStatusPlans: in a workspace of 10,000 deals, status=won, which three deals have
// (moved to a won stage, the stage's outcome set after they were in it: migration
// 00037's triggers), is answered from the index deals_status in a few buffers, not by
// walking the workspace's keyset for matches; status=open, which every other deal has,
// walks 51 rows (TestDealListPlansAtEverySize).
func TestDealStatusPlans(t *testing.T) {
	s := storetest.New(t)
	ops := workspace.NewOps(workspace.Config{Store: s})
	deals := workspace.Lookup("deals")
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	sd := &seeder{t: t, pool: storetest.Pool(t), ws: f.WorkspaceID, user: f.Admin.UserID, parents: map[string]string{}}
	sd.quiet("deals")
	sd.seed("deals", 10_000)
	pipeline := sd.parent("pipelines")
	var won string
	if err := sd.pool.QueryRow(context.Background(), `INSERT INTO pipeline_stages (workspace_id, pipeline_id, name)
		VALUES ($1, $2, 'Won') RETURNING id::text`, f.WorkspaceID, pipeline).Scan(&won); err != nil {
		t.Fatal(err)
	}
	sd.exec(`UPDATE deals SET pipeline_stage_id = $2 WHERE id IN
		(SELECT id FROM deals WHERE workspace_id = $1 ORDER BY created_at LIMIT 3)`, f.WorkspaceID, won)
	sd.exec(`UPDATE pipeline_stages SET outcome = 'won' WHERE id = $1`, won)
	for _, when := range []string{"stale statistics", "analysed"} {
		if when == "analysed" {
			sd.exec("ANALYZE deals")
		}
		sql, doc := explainList(t, s, ops, reader, deals, workspace.ListParams{Filters: map[string]string{"status": "won"}}, when)
		top := doc[0].Plan
		uses, seq := false, false
		top.walk(func(n planNode) {
			uses = uses || n.IndexName == "deals_status"
			seq = seq || n.RelationName == "deals" && n.NodeType == "Seq Scan"
		})
		if b := top.SharedHit + top.SharedRead; top.ActualRows != 3 || !uses || seq || b > maxListBuffers {
			pretty, _ := json.MarshalIndent(doc, "", " ")
			t.Errorf("status=won, %s: %d rows (want 3), reads deals_status: %v, Seq Scan: %v, %d buffers (at most %d)\n%s\n%s",
				when, top.ActualRows, uses, seq, b, maxListBuffers, sql, pretty)
		}
		checkListPlan(t, s, ops, reader, deals, workspace.ListParams{Filters: map[string]string{"status": "open"}}, when)
	}
}
