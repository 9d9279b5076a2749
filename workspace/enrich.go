package workspace

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/agencyos/workspaced/store"
)

// Enricher performs the metered company lookup of POST /enrich (decisions.md 6): it
// normalises the domain, serves the 30-day cache, charges credits atomically with storing
// the result, and returns the response's data object. It returns store.Errors with the
// codes validation_error (not a hostname), insufficient_credits, upstream_error and
// enrich_unbilled. The enrich package implements it; cmd puts it in Config.Enricher.
type Enricher interface {
	Enrich(ctx context.Context, p *store.Principal, domain string) (any, error)
}

// Enrich runs the enrichment operation: the gates (enrich:write), a body {domain}, then the
// configured Enricher. With no Enricher it answers 503 internal_error.
func (o *Ops) Enrich(ctx context.Context, p *store.Principal, body json.RawMessage) (json.RawMessage, error) {
	r, err := resolve(p, "enrich", OpCreate)
	if err != nil {
		return nil, err
	}
	m, err := DecodeObject(body)
	if err != nil {
		return nil, err
	}
	set, err := checkBody(r, m, true)
	if err != nil {
		return nil, err
	}
	if o.enricher == nil {
		return nil, store.Errorf(http.StatusServiceUnavailable, "internal_error",
			"enrichment is not configured on this server")
	}
	out, err := o.enricher.Enrich(ctx, p, set[0].value.(string))
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, store.Internal(err)
	}
	return b, nil
}

// EnricherFunc adapts a function to Enricher.
type EnricherFunc func(ctx context.Context, p *store.Principal, domain string) (any, error)

// Enrich calls f.
func (f EnricherFunc) Enrich(ctx context.Context, p *store.Principal, domain string) (any, error) {
	return f(ctx, p, domain)
}
