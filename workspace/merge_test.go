package workspace

import (
	"context"
	"slices"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestMergeMovesEveryForeignKey: every foreign key to a Mergeable resource's table, as the
// database states it in pg_constraint, is one a merge moves (mergeMoves), but the merge
// mark itself. A new reference to people or companies fails here until the merge moves it.
func TestMergeMovesEveryForeignKey(t *testing.T) {
	storetest.New(t) // migrates the package database
	rows, err := storetest.Pool(t).Query(context.Background(), `
		SELECT c.confrelid::regclass::text, c.conrelid::regclass::text, a.attname
		  FROM pg_constraint c
		  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
		 WHERE c.contype = 'f' AND c.confrelid::regclass::text = ANY($1) AND a.attname <> 'workspace_id'
		 ORDER BY 1, 2, 3`, mergeableTables())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var target, table, column string
		if err := rows.Scan(&target, &table, &column); err != nil {
			t.Fatal(err)
		}
		n++
		if table == target && column == MergedIntoField {
			continue
		}
		r := mergeableByTable(target)
		if !slices.ContainsFunc(mergeMoves[r.Name], func(m mergeMove) bool { return m.table == table && m.column == column }) {
			t.Errorf("%s.%s refers to %s, but a merge of %s does not move it: add it to mergeMoves (workspace/merge.go)",
				table, column, target, r.Name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no foreign key to people or companies found: the query is wrong")
	}
	// And every move names a column that exists and refers to the resource.
	for name, moves := range mergeMoves {
		if r := Lookup(name); r == nil || !r.Mergeable {
			t.Errorf("mergeMoves names %s, which is not a Mergeable resource", name)
		}
		for _, m := range moves {
			var ok bool
			if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_constraint c
				JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
				WHERE c.contype = 'f' AND c.conrelid = $1::regclass AND a.attname = $2 AND c.confrelid = $3::regclass)`,
				m.table, m.column, Lookup(name).Table).Scan(&ok); err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Errorf("mergeMoves[%s] names %s.%s, which is no foreign key to %s", name, m.table, m.column, name)
			}
		}
	}
}

func mergeableTables() []string {
	var out []string
	for _, r := range catalog {
		if r.Mergeable {
			out = append(out, r.Table)
		}
	}
	return out
}

func mergeableByTable(table string) *Resource {
	for _, r := range catalog {
		if r.Mergeable && r.Table == table {
			return r
		}
	}
	return nil
}
