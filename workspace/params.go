package workspace

import (
	"net/url"
	"strconv"
	"time"

	"github.com/agencyos/workspaced/store"
)

// ParseListParams reads a list's query (docs/decisions.md 4): filters of the resource, limit
// 1-200, cursor, and for incremental sync (issue 12) updated_since and order; apikey may ride along (docs/decisions.md 7); anything else is a 400 naming the
// valid parameters. The MCP server parses list tools' arguments with it too.
func ParseListParams(res *Resource, q url.Values) (ListParams, error) {
	params := ListParams{Filters: map[string]string{}}
	for k, vs := range q {
		if k == "apikey" {
			continue
		}
		if len(vs) != 1 {
			return params, store.BadRequest("give query parameter %s once", k)
		}
		v := vs[0]
		switch k {
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxLimit {
				return params, store.BadRequest("limit must be an integer from 1 to %d (default %d), got %q", MaxLimit, DefaultLimit, clip(v))
			}
			params.Limit = n
		case "cursor":
			params.Cursor = v
		case "updated_since":
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return params, store.BadRequest("updated_since must be an RFC 3339 timestamp such as 2026-01-31T09:00:00Z, got %q", clip(v))
			}
			params.UpdatedSince = t
		case "order":
			o, err := parseOrder(v)
			if err != nil {
				return params, err
			}
			params.Order = o
		default:
			if f := res.Field(k); f == nil || !f.Filter {
				return params, unknownParam(res, k)
			}
			params.Filters[k] = v
		}
	}
	return params, nil
}
