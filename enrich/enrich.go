// Package enrich looks companies up by domain for POST /enrich.
//
// A Provider turns a normalised domain (see NormalizeDomain) into a Company.
// Two providers live here: SiteProvider reads the company's own home page
// through a Guard that refuses to connect to non-public addresses (SSRF), and
// FirmographicsProvider asks a commercial firmographics HTTP API. Neither
// knows about credits, caching or HTTP status codes: callers map ErrUpstream
// to 502 upstream_error and ErrInvalidDomain to 422.
package enrich

import (
	"context"
	"errors"

	"github.com/agencyos/workspaced/workspace"
)

// Company is what a lookup finds (workspace.EnrichCompany, whose JSON keys are the ones
// POST /enrich returns inside data).
type Company = workspace.EnrichCompany

// Socials holds the company's social profile URLs, each an https URL or "".
type Socials = workspace.EnrichSocials

// Provider looks a company up by its normalised domain.
//
// Lookup returns an error wrapping ErrInvalidDomain when domain is not a valid
// hostname, and an error wrapping ErrUpstream when the provider failed: any
// network error, a refused address, a timeout, a non-2xx answer, too many
// redirects or an unreadable answer. A lookup that reached the company but
// found little returns a Company with empty fields and a nil error.
type Provider interface {
	Lookup(ctx context.Context, domain string) (Company, error)
}

// ErrUpstream is wrapped by every error that means the provider failed.
var ErrUpstream = errors.New("enrich: upstream failed")

// ErrInvalidDomain is wrapped by every error that means the domain given is
// not a valid hostname.
var ErrInvalidDomain = errors.New("enrich: invalid domain")
