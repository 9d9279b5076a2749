package workspace

import (
	"context"
	"encoding/json"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Enricher performs the metered company lookup of POST /enrich (docs/decisions.md 6): it
// normalises the domain, serves the 30-day cache, charges credits atomically with storing
// the result, and returns the response's data object. It returns *apierr.Errors with the
// codes validation_error (not a hostname), insufficient_credits, upstream_error and
// enrich_unbilled. enrich.Service implements it; cmd puts it in Config.Enricher.
type Enricher interface {
	Enrich(ctx context.Context, p *auth.Principal, domain string) (*EnrichResult, error)
}

// enrich runs the enrichment operation on a body decoded and past the gates (Post): a
// body {domain}, then the configured Enricher. With no Enricher it answers 503
// internal_error.
func (o *Ops) enrich(ctx context.Context, p *auth.Principal, r *Resource, m map[string]json.RawMessage) (json.RawMessage, error) {
	set, err := checkBody(r, m, true)
	if err != nil {
		return nil, err
	}
	if o.enricher == nil {
		return nil, &apierr.Error{Code: apierr.CodeInternal, Unavailable: true,
			Message: "enrichment is not configured on this server"}
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

// EnrichResult is the data of POST /enrich and enrich_company's result (docs/decisions.md
// 6): what the lookup found and what it cost. The enrich package returns it; EnrichSchema
// is derived from it.
type EnrichResult struct {
	EnrichCompany
	Cached           bool  `json:"cached" jsonschema:"served from the 30-day cache, free"`
	CreditsSpent     int64 `json:"credits_spent"`
	CreditsRemaining int64 `json:"credits_remaining"`
}

// EnrichCompany is what a lookup finds of a company: empty text where it found nothing.
type EnrichCompany struct {
	Domain   string        `json:"domain"`
	Name     string        `json:"name"`
	Website  string        `json:"website"`
	Industry string        `json:"industry"`
	Socials  EnrichSocials `json:"socials" jsonschema:"social profile URLs, each https or empty"`
}

// EnrichSocials holds the company's social profile URLs, each an https URL or "".
type EnrichSocials struct {
	LinkedIn  string `json:"linkedin"`
	Twitter   string `json:"twitter"`
	Instagram string `json:"instagram"`
	Facebook  string `json:"facebook"`
}
