package workspace

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// What the package's external tests (bench_test.go) need to compare Get with the very
// statement it runs and to start a list at a given row (List's own statement is ListSQL).

// GetSQL returns the statement Get runs for r (its one argument is the id).
func (o *Ops) GetSQL(r *Resource) string { return o.statements[r].get }

// Cursor returns the cursor List issues for the position (at, id) of r's list in order.
func (o *Ops) Cursor(ctx context.Context, r *Resource, order Order, at time.Time, id string) (string, error) {
	key, err := o.key(ctx)
	if err != nil {
		return "", err
	}
	return encodeCursor(key, r.Name, position{at: at, id: uuid.MustParse(id), order: order}), nil
}

// SearchStatement returns the statement of Search's first page for q over types, with the
// searchable custom fields of the types in custom (customSearchable), and its arguments.
func SearchStatement(q string, types []string, custom map[string]bool, limit int) (string, []any, error) {
	query, err := parseSearch(q)
	if err != nil {
		return "", nil, err
	}
	var args []any
	add := func(v any) int {
		args = append(args, v)
		return len(args)
	}
	return searchStatement(query, types, custom, limit, "", "", add), args, nil
}
