package workspace

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/auth"
)

// Hooks for restapi's benchmarks and the depth test (restapi/bench_test.go) and the plan
// test (plan_test.go), which compare the API with the very statements it runs. They are in
// a non-test file because restapi's tests are in another package; nothing else calls them.

// ListSQLForTest returns the statement and arguments List runs for params.
func (o *Ops) ListSQLForTest(ctx context.Context, p *auth.Principal, resource string, params ListParams) (string, []any, error) {
	st, err := o.listQuery(ctx, p, Lookup(resource), params)
	if err != nil {
		return "", nil, err
	}
	return st.sql, st.args, nil
}

// GetSQLForTest returns the statement Get runs (its one argument is the id).
func GetSQLForTest(resource string) string {
	r := Lookup(resource)
	return "SELECT row_to_json(x)::text FROM (SELECT " + columnList(r) + " FROM " + ident(r.Table) +
		` WHERE "id" = $1::text::uuid) x`
}

// CursorForTest returns the cursor of a position, as List would issue it.
func (o *Ops) CursorForTest(ctx context.Context, resource string, createdAt time.Time, id string) (string, error) {
	return o.orderCursorForTest(ctx, resource, OrderCreated, createdAt, id)
}

// SyncCursorForTest returns the cursor of a position in order=updated_at.
func (o *Ops) SyncCursorForTest(ctx context.Context, resource string, updatedAt time.Time, id string) (string, error) {
	return o.orderCursorForTest(ctx, resource, OrderUpdated, updatedAt, id)
}

func (o *Ops) orderCursorForTest(ctx context.Context, resource string, order Order, at time.Time, id string) (string, error) {
	key, err := o.key(ctx)
	if err != nil {
		return "", err
	}
	return encodeCursor(key, resource, position{at: at, id: uuid.MustParse(id), order: order}), nil
}
