package mcp

import (
	"context"
	"fmt"

	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
)

// RESTOperations runs tool operations on REST's operation layer, parsing list arguments
// with REST's own query parser, so a tool call and the equivalent REST call pass the same
// gates and validation and return the same data.
type RESTOperations struct {
	Ops *restapi.Ops
}

var _ Operations = RESTOperations{}

// Do implements Operations.
func (o RESTOperations) Do(ctx context.Context, p *store.Principal, op Op) (*Result, error) {
	if op.Kind == KindMe {
		me, err := o.Ops.Me(ctx, p)
		if err != nil {
			return nil, err
		}
		return &Result{Data: me}, nil
	}
	name := op.Resource.Name
	var data any
	var err error
	switch op.Kind {
	case KindList:
		params, perr := restapi.ParseListParams(op.Resource, op.Query)
		if perr != nil {
			return nil, perr
		}
		page, lerr := o.Ops.List(ctx, p, name, params)
		if lerr != nil {
			return nil, lerr
		}
		return &Result{Data: page.Data, NextCursor: page.NextCursor}, nil
	case KindGet:
		data, err = o.Ops.Get(ctx, p, name, op.ID)
	case KindCreate, KindDetach:
		kind := restapi.OpCreate
		if op.Kind == KindDetach {
			kind = restapi.OpDetach
		}
		posted, perr := o.Ops.Post(ctx, p, kind, name, op.Body, op.IdempotencyKey)
		if perr != nil {
			return nil, perr
		}
		data = posted.Data
	case KindUpdate:
		data, err = o.Ops.Update(ctx, p, name, op.ID, op.Body)
	default:
		return nil, fmt.Errorf("mcp: unknown operation %q", op.Kind)
	}
	if err != nil {
		return nil, err
	}
	return &Result{Data: data}, nil
}
