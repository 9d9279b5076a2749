package restapi

import (
	"context"
	"net/http"
	"net/netip"

	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
)

// Limiter is the rate-limit policy REST and MCP share (decisions.md 5): per credential and
// per workspace for authenticated calls, per client IP for failed authentication.
// ratelimit.Limiter implements it.
type Limiter interface {
	Take(ctx context.Context, credentialKey, workspaceKey string) (ratelimit.Decision, error)
	TakeIP(ctx context.Context, bucket string, ip netip.Addr) (ratelimit.Decision, error)
}

// CredentialKey names a principal's credential for its rate-limit budget: each access token
// and each agent key has its own.
func CredentialKey(p *store.Principal) string { return p.Credential.Type + ":" + p.Credential.ID }

// RateLimited is the 429 of spec 7; Retry-After comes from the decision's headers.
func RateLimited() *store.Error {
	return &store.Error{Status: http.StatusTooManyRequests, Code: "rate_limited",
		Message: "rate limit exceeded (60 requests a minute per token, 600 per workspace); retry after the Retry-After seconds",
		Header:  map[string]string{"Retry-After": "60"}}
}

// TakeCall charges one call of p against its budgets and sets the rate-limit headers on h.
// It returns RateLimited when either budget is spent. With no limiter it allows everything.
func TakeCall(ctx context.Context, l Limiter, p *store.Principal, h http.Header) error {
	if l == nil {
		return nil
	}
	d, err := l.Take(ctx, CredentialKey(p), p.WorkspaceID)
	if err != nil {
		return store.Internal(err)
	}
	if h != nil {
		d.SetHeaders(h)
	}
	if !d.Allowed {
		return RateLimited()
	}
	return nil
}

// limitFailure charges a failed authentication to the client's IP, so token guessing is
// throttled, and turns the failure into a 429 once that budget is spent.
func (a *API) limitFailure(r *http.Request, h http.Header, failure error) error {
	if a.cfg.Limiter == nil {
		return failure
	}
	d, err := a.cfg.Limiter.TakeIP(r.Context(), ratelimit.BucketAuthFail, ratelimit.ClientIP(r, a.cfg.TrustedProxies))
	if err != nil {
		return failure
	}
	d.SetHeaders(h)
	if !d.Allowed {
		return RateLimited()
	}
	return failure
}
