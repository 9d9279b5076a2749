package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
)

// newTestOps is a stand-in for the operation layer until restapi's lands: it applies the
// scope and feature gates of decisions.md 3 and echoes the operation as data.
func newTestOps(s *store.Store) mcp.Operations {
	real := restapi.NewOps(s)
	return mcp.OperationsFunc(func(ctx context.Context, p *store.Principal, op mcp.Op) (*mcp.Result, error) {
		if op.Kind == mcp.KindMe {
			me, err := real.Me(ctx, p)
			return &mcp.Result{Data: me}, err
		}
		r := op.Resource
		scope, level := r.WriteScope(), "full"
		if op.Kind == mcp.KindList || op.Kind == mcp.KindGet {
			scope, level = r.ReadScope(), "read"
		}
		if !restapi.HasScope(p.Scopes, scope) {
			return nil, store.Errorf(http.StatusForbidden, "insufficient_scope", "this call needs the %s scope", scope)
		}
		if g := p.Grant(string(r.Feature)); r.Feature != restapi.NoFeature && (g == "none" || level == "full" && g != "full") {
			return nil, store.Errorf(http.StatusForbidden, "insufficient_permission", "this call needs the %s grant", r.Feature)
		}
		body := map[string]any{}
		_ = json.Unmarshal(op.Body, &body)
		switch op.Kind {
		case mcp.KindList:
			q := map[string]any{}
			for k := range op.Query {
				q[k] = op.Query.Get(k)
			}
			return &mcp.Result{Data: []any{q}}, nil
		case mcp.KindGet:
			return &mcp.Result{Data: map[string]any{"id": op.ID}}, nil
		case mcp.KindDetach:
			body["detached"] = true
		case mcp.KindUpdate:
			body["id"] = op.ID
		}
		return &mcp.Result{Data: body}, nil
	})
}
