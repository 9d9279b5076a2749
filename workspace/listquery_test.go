package workspace_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestConditionPagesFollowTheWalk pages through tasks filtered by operator conditions in
// the list's own order, as a member, and compares every page with the rows SQL of the
// test's own selects as the owner: the same tasks in the same order (created_at ties
// broken by id), each once, none of the private tasks of another member. A condition
// matching more than fewMatches rows (workspace/listquery.go) is answered by the keyset
// walk on its first pages and by the probe's few rows once fewer remain past the cursor,
// so the pages cross from one way to the other.
func TestConditionPagesFollowTheWalk(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	ops := workspace.NewOps(workspace.Config{Store: s})
	// 600 tasks: half created at the same instant, priority g % 5, one in eight without a
	// due date, one in seven private to the admin who made them.
	if _, err := pool.Exec(ctx, `INSERT INTO tasks (workspace_id, created_by, name, priority, due_date, is_private, created_at)
		SELECT $1, $2, 'task ' || (g % 50), g % 5, CASE WHEN g % 8 = 0 THEN NULL ELSE current_date END, g % 7 = 0,
		       CASE WHEN g <= 300 THEN now() ELSE now() - g * interval '1 ms' END
		  FROM generate_series(1, 600) g`, f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op    workspace.Condition
		where string // the same condition in SQL
	}{
		{workspace.Condition{Field: "priority", Op: workspace.OpEq, Value: "1"}, "priority = 1"},
		{workspace.Condition{Field: "priority", Op: workspace.OpGte, Value: "1"}, "priority >= 1"},
		{workspace.Condition{Field: "priority", Op: workspace.OpNe, Value: "3"}, "priority <> 3"},
		{workspace.Condition{Field: "priority", Op: workspace.OpIn, Value: "0,4"}, "priority IN (0, 4)"},
		{workspace.Condition{Field: "name", Op: workspace.OpPrefix, Value: "task 1"}, "name LIKE 'task 1%'"},
		{workspace.Condition{Field: "due_date", Op: workspace.OpNull, Value: "true"}, "due_date IS NULL"},
		{workspace.Condition{Field: "due_date", Op: workspace.OpNull, Value: "false"}, "due_date IS NOT NULL"},
	} {
		t.Run(c.where, func(t *testing.T) {
			rows, err := pool.Query(ctx, `SELECT id::text FROM tasks WHERE workspace_id = $1 AND NOT is_private AND `+c.where+
				` ORDER BY created_at DESC, id DESC`, f.WorkspaceID)
			if err != nil {
				t.Fatal(err)
			}
			want, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			got := taskIDsPaged(t, ops, reader, workspace.ListParams{Where: []workspace.Condition{c.op}, Limit: 50})
			if !slices.Equal(got, want) {
				t.Errorf("%d tasks, want %d in the walk's order\ngot  %v\nwant %v", len(got), len(want), got, want)
			}
		})
	}
}

// TestCustomConditionPagesFollowTheWalk is TestConditionPagesFollowTheWalk for filters on
// custom fields, which probe custom_values' index for fewMatches+1 candidate records
// before walking (customProbe, workspace/customquery.go): every page, as a member, holds
// the tasks the test's own SQL on the records' custom_fields selects as the owner, in the
// list's order, each once, none private to another member. The conditions match from
// none to all of 600 tasks, on either side of fewMatches, and a multi_select in holds
// records with both options (two custom_values rows matching); a field added after the
// tasks is absent from those an UPDATE did not give it.
func TestCustomConditionPagesFollowTheWalk(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	ops := workspace.NewOps(workspace.Config{Store: s})
	for _, def := range []struct{ key, typ, options string }{
		{"n", "number", "[]"}, {"s", "text", "[]"},
		{"m", "multi_select", `[{"key":"o0","label":"O0"},{"key":"o1","label":"O1"},{"key":"o2","label":"O2"},{"key":"o3","label":"O3"},{"key":"o4","label":"O4"}]`},
	} {
		if _, err := pool.Exec(ctx, `INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type, options)
			VALUES ($1, $2, 'tasks', $3, $3, $4, $5::jsonb)`, f.WorkspaceID, f.Admin.UserID, def.key, def.typ, def.options); err != nil {
			t.Fatal(err)
		}
	}
	// 600 tasks as in TestConditionPagesFollowTheWalk; n is g % 5 but for one in eight,
	// which has none; s is 'task ' || (g % 50); m holds two of o0, o1 and o2, and one in
	// ten also o3 and o4.
	if _, err := pool.Exec(ctx, `INSERT INTO tasks (workspace_id, created_by, name, is_private, created_at, custom_fields)
		SELECT $1, $2, 'task', g % 7 = 0, CASE WHEN g <= 300 THEN now() ELSE now() - g * interval '1 ms' END,
		       jsonb_build_object('s', 'task ' || (g % 50), 'm', jsonb_build_array('o' || (g % 3), 'o' || ((g + 1) % 3))
		       || CASE WHEN g % 10 = 0 THEN '["o3", "o4"]'::jsonb ELSE '[]' END)
		       || CASE WHEN g % 8 = 0 THEN '{}' ELSE jsonb_build_object('n', g % 5) END
		  FROM generate_series(1, 600) g`, f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	// late is added after the tasks (its insert marks it absent from each of them,
	// store/migrations/00059_custom_absent.sql), then given to all but one task in a
	// hundred by an UPDATE through the record trigger.
	for _, sql := range []string{
		`INSERT INTO custom_fields (workspace_id, created_by, resource, key, label, type) VALUES ($1, $2, 'tasks', 'late', 'late', 'number')`,
		`UPDATE tasks SET custom_fields = custom_fields || jsonb_build_object('late', 1)
		  WHERE workspace_id = $1 AND $2::text IS NOT NULL AND get_byte(uuid_send(id), 0) % 100 <> 0`,
	} {
		if _, err := pool.Exec(ctx, sql, f.WorkspaceID, f.Admin.UserID); err != nil {
			t.Fatal(err)
		}
	}
	cond := func(key string, op workspace.Operator, v string) workspace.Condition {
		c := workspace.Condition{Field: "custom_fields." + key, Op: op, Value: v}
		if op == workspace.OpIn {
			c.Values = strings.Split(v, ",")
		}
		return c
	}
	for _, c := range []struct {
		op    workspace.Condition
		where string                // the same condition in SQL
		more  []workspace.Condition // further conditions, which where states too: one probes, the others are checked
	}{
		{cond("n", workspace.OpEq, "1"), "(custom_fields->>'n')::int = 1", nil},
		{cond("n", workspace.OpEq, "7"), "(custom_fields->>'n')::int = 7", nil},
		{cond("n", workspace.OpGte, "1"), "(custom_fields->>'n')::int >= 1", nil},
		{cond("n", workspace.OpLt, "1"), "(custom_fields->>'n')::int < 1", nil},
		{cond("n", workspace.OpNe, "3"), "(custom_fields->>'n')::int <> 3", nil},
		{cond("n", workspace.OpIn, "0,4"), "(custom_fields->>'n')::int IN (0, 4)", nil},
		{cond("n", workspace.OpNull, "true"), "NOT custom_fields ? 'n'", nil},
		{cond("n", workspace.OpNull, "false"), "custom_fields ? 'n'", nil},
		{cond("late", workspace.OpNull, "true"), "NOT custom_fields ? 'late'", nil},
		{cond("late", workspace.OpNull, "false"), "custom_fields ? 'late'", nil},
		{cond("s", workspace.OpPrefix, "task 1"), "custom_fields->>'s' LIKE 'task 1%'", nil},
		{cond("s", workspace.OpEq, "task 7"), "custom_fields->>'s' = 'task 7'", nil},
		{cond("m", workspace.OpEq, "o0"), "custom_fields->'m' ? 'o0'", nil},
		{cond("m", workspace.OpIn, "o0,o1"), "custom_fields->'m' ?| array['o0', 'o1']", nil},
		{cond("m", workspace.OpIn, "o3,o4"), "custom_fields->'m' ?| array['o3', 'o4']", nil},
		{cond("m", workspace.OpNe, "o0"), "NOT custom_fields->'m' ? 'o0'", nil},
		{cond("m", workspace.OpNe, "o3"), "NOT custom_fields->'m' ? 'o3'", nil},
		{cond("s", workspace.OpPrefix, "task 1"), "custom_fields->>'s' LIKE 'task 1%' AND (custom_fields->>'n')::int >= 1",
			[]workspace.Condition{cond("n", workspace.OpGte, "1")}},
		{cond("n", workspace.OpEq, "1"), "(custom_fields->>'n')::int = 1 AND custom_fields->>'s' LIKE 'task 1%'",
			[]workspace.Condition{cond("s", workspace.OpPrefix, "task 1")}},
	} {
		t.Run(c.op.Field+"["+string(c.op.Op)+"]="+c.op.Value, func(t *testing.T) {
			rows, err := pool.Query(ctx, `SELECT id::text FROM tasks WHERE workspace_id = $1 AND NOT is_private AND `+c.where+
				` ORDER BY created_at DESC, id DESC`, f.WorkspaceID)
			if err != nil {
				t.Fatal(err)
			}
			want, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			got := taskIDsPaged(t, ops, reader, workspace.ListParams{Where: append([]workspace.Condition{c.op}, c.more...), Limit: 50})
			if !slices.Equal(got, want) {
				t.Errorf("%d tasks, want %d in the walk's order\ngot  %v\nwant %v", len(got), len(want), got, want)
			}
		})
	}
	// A custom sort pages through the tasks with a value, then through the 75 without one
	// (read from custom_absent) in the order of id, either way.
	for sort, order := range map[string]string{
		"custom_fields.n":  "(custom_fields->>'n')::int ASC NULLS LAST, id ASC",
		"-custom_fields.n": "(custom_fields->>'n')::int DESC NULLS LAST, id DESC",
	} {
		t.Run("sort="+sort, func(t *testing.T) {
			rows, err := pool.Query(ctx, `SELECT id::text FROM tasks WHERE workspace_id = $1 AND NOT is_private ORDER BY `+order, f.WorkspaceID)
			if err != nil {
				t.Fatal(err)
			}
			want, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			got := taskIDsPaged(t, ops, reader, workspace.ListParams{Sort: &sort, Limit: 50})
			if !slices.Equal(got, want) {
				t.Errorf("%d tasks, want %d in the sort's order\ngot  %v\nwant %v", len(got), len(want), got, want)
			}
		})
	}
}

// TestContains: ?field[contains]=text keeps the records whose field holds the text, case
// and accents ignored, its %, _ and \ literal; an operand without three letters or digits
// in a row, and a field without a trigram index, are refused with 400.
func TestContains(t *testing.T) {
	s := storetest.New(t)
	pool := storetest.Pool(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	ops := workspace.NewOps(workspace.Config{Store: s})
	if _, err := pool.Exec(ctx, `INSERT INTO people (workspace_id, created_by, name, email) VALUES
		($1, $2, 'Ada Lovelace', 'ada@acme.example'), ($1, $2, 'Bob Other', 'bob@other.example'),
		($1, $2, 'Zoë Real 100% sure', NULL), ($1, $2, 'Zoe Real 1000 sure', NULL),
		($1, $2, 'snake_case_name', NULL), ($1, $2, 'snakeXcaseYname', NULL),
		($1, $2, 'back\slash', NULL), ($1, $2, 'backslash', NULL)`, f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	people := workspace.Lookup("people")
	for _, c := range []struct {
		field, value string
		want         []string // names, in the list's order (newest first; equal times by id)
	}{
		{"email", "ACME", []string{"Ada Lovelace"}},
		{"email", "example", []string{"Ada Lovelace", "Bob Other"}},
		{"name", "zoe real", []string{"Zoë Real 100% sure", "Zoe Real 1000 sure"}},
		{"name", "ZOË", []string{"Zoë Real 100% sure", "Zoe Real 1000 sure"}},
		{"name", "100% sure", []string{"Zoë Real 100% sure"}},
		{"name", "snake_case", []string{"snake_case_name"}},
		{"name", `back\slash`, []string{`back\slash`}},
		{"name", "nobody", nil},
	} {
		page, err := ops.List(ctx, reader, people, workspace.ListParams{Where: []workspace.Condition{{Field: c.field, Op: workspace.OpContains, Value: c.value}}})
		if err != nil {
			t.Fatalf("%s[contains]=%s: %v", c.field, c.value, err)
		}
		var recs []struct{ Name string }
		if err := json.Unmarshal(page.Data, &recs); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range recs {
			got = append(got, r.Name)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s[contains]=%s: %q, want %q", c.field, c.value, got, want)
		}
	}
	for _, c := range []struct {
		r            *workspace.Resource
		field, value string
		message      string
	}{
		{people, "name", "ad", "at least 3 letters or digits in a row"},
		{people, "email", "a.b@c", "at least 3 letters or digits in a row"},
		{people, "name", "", "is empty"},
		{workspace.Lookup("companies"), "industry", "software", "takes the operators eq, ne, in, prefix, null"},
	} {
		_, err := ops.List(ctx, reader, c.r, workspace.ListParams{Where: []workspace.Condition{{Field: c.field, Op: workspace.OpContains, Value: c.value}}})
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != apierr.CodeBadRequest || !strings.Contains(e.Message, c.message) {
			t.Errorf("%s %s[contains]=%q: %v, want 400 saying %q", c.r.Name, c.field, c.value, err, c.message)
		}
	}
}

// taskIDsPaged lists tasks as reader with params, page after page through next_cursor
// (at most 20), and returns their ids in the order the pages gave them.
func taskIDsPaged(t *testing.T, ops *workspace.Ops, reader *auth.Principal, params workspace.ListParams) []string {
	t.Helper()
	var got []string
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("paging does not end")
		}
		page, err := ops.List(context.Background(), reader, workspace.Lookup("tasks"), params)
		if err != nil {
			t.Fatal(err)
		}
		var recs []struct{ ID string }
		if err := json.Unmarshal(page.Data, &recs); err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			got = append(got, r.ID)
		}
		if page.NextCursor == nil {
			return got
		}
		params.Cursor = *page.NextCursor
	}
}
