package restapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// search serves GET /v1/search?q=&types=&limit=&cursor= (docs/rest.md): one request, one
// rate-limit unit, over every resource the credential may read.
func (a *API) search(w http.ResponseWriter, r *http.Request) error {
	var params workspace.SearchParams
	for k, vs := range r.URL.Query() {
		if k == "apikey" {
			continue
		}
		if len(vs) != 1 {
			return apierr.BadRequest("give query parameter %s once", k)
		}
		v := vs[0]
		switch k {
		case "q":
			params.Q = v
		case "types":
			params.Types = strings.Split(v, ",")
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return workspace.BadLimit(workspace.MaxSearchLimit, workspace.DefaultSearchLimit, fmt.Sprintf("%.60q", v))
			}
			params.Limit = n
		case "cursor":
			params.Cursor = v
		default:
			return apierr.BadRequest("unknown query parameter %.60q for search; valid parameters: q, types, limit, cursor", k)
		}
	}
	page, err := a.ops.Search(r.Context(), httpx.PrincipalFrom(r.Context()), params)
	if err != nil {
		return err
	}
	writePage(w, page)
	return nil
}
