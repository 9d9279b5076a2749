package workspace

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
)

// Limiter is the rate-limit policy REST and MCP share (docs/decisions.md 5): per credential and
// per workspace for authenticated calls, per client IP for failed authentication.
// ratelimit.Limiter implements it.
type Limiter interface {
	Take(ctx context.Context, credentialKey, workspaceKey string) (ratelimit.Decision, error)
	TakeIP(ctx context.Context, bucket string, ip netip.Addr) (ratelimit.Decision, error)
}

// credentialKey names a principal's credential for its rate-limit budget: each access token
// and each agent key has its own.
func credentialKey(p *auth.Principal) string { return p.Credential.Type + ":" + p.Credential.ID }

// rateLimited is the 429 of docs/contract.md section 7 for a decision that denied: its message states the
// budget that was spent as configured (d.Limit per d.Interval); Retry-After comes from the
// decision's headers.
func rateLimited(d ratelimit.Decision) *apierr.Error {
	var spent string
	switch d.Budget {
	case "credential":
		spent = fmt.Sprintf("this token's budget of %d requests per %s is spent", d.Limit, per(d.Interval))
	case "workspace":
		spent = fmt.Sprintf("this workspace's budget of %d requests per %s, shared by all its tokens and keys, is spent",
			d.Limit, per(d.Interval))
	case "ip:" + ratelimit.BucketAuthFail:
		spent = fmt.Sprintf("too many failed authentications from this address (%d per %s)", d.Limit, per(d.Interval))
	default:
		spent = fmt.Sprintf("too many requests from this address (%d per %s)", d.Limit, per(d.Interval))
	}
	return &apierr.Error{Code: apierr.CodeRateLimited,
		Message: "rate limit exceeded: " + spent + "; retry after the Retry-After seconds", RetryAfter: time.Minute}
}

// per names an interval the way people say it: "minute", "hour", else Go's "1m30s".
func per(d time.Duration) string {
	switch d {
	case time.Second:
		return "second"
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	}
	return d.String()
}

// LimitError is the answer to a decision: nil when it allowed, RateLimited when a budget
// is spent, and 503 internal_error with a short Retry-After when the rate-limit store
// failed and the failure policy (fail-closed) denied: the outage decided, not the
// client's use, so "you are over your limit" would be false.
func LimitError(d ratelimit.Decision) error {
	switch {
	case d.Allowed:
		return nil
	case d.Degraded:
		return &apierr.Error{Code: apierr.CodeInternal, Unavailable: true,
			Message:    "rate limits cannot be checked right now; retry shortly",
			RetryAfter: time.Duration(ratelimit.OutageRetryAfter) * time.Second}
	}
	return rateLimited(d)
}

// TakeCall charges one call of p against its budgets and sets the rate-limit headers on h.
// It returns LimitError's answer when the call may not proceed. With no limiter it allows
// everything.
func TakeCall(ctx context.Context, l Limiter, p *auth.Principal, h http.Header) error {
	if l == nil {
		return nil
	}
	d, err := l.Take(ctx, credentialKey(p), p.WorkspaceID)
	if err != nil {
		return store.Internal(err)
	}
	if h != nil {
		d.SetHeaders(h)
	}
	return LimitError(d)
}
