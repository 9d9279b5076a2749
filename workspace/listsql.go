package workspace

import (
	"context"

	"github.com/agencyos/workspaced/auth"
)

// ListSQL is the statement List runs for params on r as p, with its arguments and how many
// sort keys each row carries before its id and record (List scans them into the cursor).
// bench/floor runs it as the schema owner, without row-level security, on a database
// holding one workspace's records, so a custom field's list is measured against its own
// SQL (bench/perf-load.sh, group custom). Errors: as List's for params.
func (o *Ops) ListSQL(ctx context.Context, p *auth.Principal, r *Resource, params ListParams) (sql string, args []any, keys int, err error) {
	q, err := o.listQuery(ctx, p, r, params, true)
	if err != nil {
		return "", nil, 0, err
	}
	keys = len(q.walk.keys)
	if q.walk.legacy {
		keys = 1
	}
	return q.sql, q.args, keys, nil
}
