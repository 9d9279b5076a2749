package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/overload"
	"github.com/agencyos/workspaced/store"
)

// Fair shares of capacity (docs/operations.md, "Fair shares of capacity"): every operation
// that runs statements takes a place in its class (reads, searches, writes) for as long
// as it runs, held by its workspace and its credential; no workspace and no credential
// holds more than its share of a class, so one that floods the service waits on its own
// requests and is answered 429, while the others keep being served.

// Class names the capacity an operation takes.
type Class string

// The classes: a search (Search, or a list with q) costs the database many times a read
// by id or a plain list, so it has its own, smaller capacity and shares.
const (
	ClassRead   Class = "read"
	ClassSearch Class = "search"
	ClassWrite  Class = "write"
	// ClassToken is the OAuth token endpoint's requests (sign-ins and refreshes): they
	// have no principal to share by yet, so their one bound is taken before authentication
	// (cmd's guard), not through Capacities. Each adapter names the class of its routes
	// before authentication (restapi.RouteClass, mcp.RouteClass, oauth.RouteClass).
	ClassToken Class = "token"
)

// Capacity is one class's bound on operations in flight. Acquire admits an operation held
// by keys (its workspace, then its credential), waiting for a place if need be, and
// returns the function that ends it, or an *overload.Refusal, or ctx's error.
// overload.Shares implements it.
type Capacity interface {
	Acquire(ctx context.Context, keys ...string) (release func(), err error)
}

var _ Capacity = (*overload.Shares)(nil)

// Capacities are the bounds of the classes; a nil one admits everything.
type Capacities struct {
	Read, Search, Write Capacity
	// SearchTimeout bounds each statement of a search, at the server, below the pool's
	// statement timeout; 0 leaves the pool's.
	SearchTimeout time.Duration
	// Refused, when set, is told of each refusal: the class, and whether the holder's own
	// share was full (429) or the class was full of others' operations (503 overloaded).
	Refused func(class Class, own bool)
}

// CapacityConfig sizes the classes' capacities, as the settings give them (cmd reads
// them: MAX_IN_FLIGHT_READS, _SEARCHES, _WRITES, WORKSPACE_SHARE, CREDENTIAL_SHARE,
// SHARE_WAIT); ClassShares says what a zero field means.
type CapacityConfig struct {
	Reads, Searches, Writes int // each class's bound on operations in flight
	// WorkspaceShare and CredentialShare are the percent of each class's bound one
	// workspace's and one credential's operations may hold at once.
	WorkspaceShare, CredentialShare int
	ShareWait                       time.Duration // the longest an operation waits for a place
}

// The shares' defaults, the settings' defaults too.
const (
	DefaultWorkspaceShare  = 50
	DefaultCredentialShare = 25
	DefaultShareWait       = time.Second
)

// ClassShares builds each class's capacity, sized by c for a database pool of maxConns
// connections. A 0 bound is the pool's size for reads and writes and a quarter of it for
// searches: an operation holds at most one connection at a time, and the pool's size is
// the concurrency at which the service peaks: every operation beyond it waits in the
// pool's queue and useful throughput falls as the waits grow (docs/performance.md,
// "Overload and a frozen database"). Each class has its own bound, so a flood of reads
// leaves writes their room, and a flood of searches, which cost many reads each, leaves
// reads theirs. Each workspace's and credential's share is its percent of the bound, at
// least one place; a zero share or wait is its default.
func ClassShares(c CapacityConfig, maxConns int) map[Class]*overload.Shares {
	for _, b := range []*int{&c.Reads, &c.Writes} {
		if *b == 0 {
			*b = maxConns
		}
	}
	if c.Searches == 0 {
		c.Searches = max(1, maxConns/4)
	}
	c.WorkspaceShare = cmp.Or(c.WorkspaceShare, DefaultWorkspaceShare)
	c.CredentialShare = cmp.Or(c.CredentialShare, DefaultCredentialShare)
	c.ShareWait = cmp.Or(c.ShareWait, DefaultShareWait)
	shares := func(capacity int) *overload.Shares {
		pct := func(p int) int { return max(1, capacity*p/100) }
		return overload.NewShares(overload.SharesConfig{Capacity: capacity, Wait: c.ShareWait,
			Shares: []int{pct(c.WorkspaceShare), pct(c.CredentialShare)}})
	}
	return map[Class]*overload.Shares{ClassRead: shares(c.Reads), ClassSearch: shares(c.Searches), ClassWrite: shares(c.Writes)}
}

// RetryAfterShare is the Retry-After of a refusal: operations in flight end within the
// statement timeouts, and most within milliseconds.
const RetryAfterShare = time.Second

func (c *Capacities) of(class Class) Capacity {
	switch class {
	case ClassSearch:
		return c.Search
	case ClassWrite:
		return c.Write
	}
	return c.Read
}

// admitClass takes a place in class for p's workspace and credential until the returned
// function is called. A refusal is a 429 rate_limited when p's workspace or credential
// already holds its share (it waited behind its own operations), a 503 overloaded when
// the class is full of others'.
func (o *Ops) admitClass(ctx context.Context, p *auth.Principal, class Class) (func(), error) {
	if ctx.Value(backgroundKey{}) == nil {
		o.lastForeground.Store(time.Now().UnixNano())
	}
	c := o.capacities.of(class)
	if c == nil || p == nil {
		return func() {}, nil
	}
	release, err := c.Acquire(ctx, CapacityKeys(p)...)
	if err == nil {
		return release, nil
	}
	var r *overload.Refusal
	if !errors.As(err, &r) {
		return nil, store.AsError(err) // the client went away, or its deadline passed
	}
	if o.capacities.Refused != nil {
		o.capacities.Refused(class, r.Own)
	}
	if r.Own {
		return nil, &apierr.Error{Code: apierr.CodeRateLimited, RetryAfter: RetryAfterShare, Err: err,
			Message: fmt.Sprintf("this workspace or this credential already has its share of %d %s operations in flight, "+
				"and the one sent waited for it in vain; nothing was done: retry after %d second%s, or send fewer at once",
				r.Share, class, int(RetryAfterShare/time.Second), plural(int(RetryAfterShare/time.Second)))}
	}
	return nil, ErrOverloaded
}

// backgroundKey marks a context whose operations are background work (Background).
type backgroundKey struct{}

// Background marks ctx's operations as background work, an import's chunks: they take
// their places in their classes as any operation does, but are not the API traffic that
// QuietFor waits out.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// QuietFor returns how long until no operation but background work will have begun in
// this process for d: 0 when none has for d already. Background work that can go faster
// on more connections (imports/job.go) takes them only while the API is quiet, so the
// API's requests find a core free.
func (o *Ops) QuietFor(d time.Duration) time.Duration {
	return max(0, time.Until(time.Unix(0, o.lastForeground.Load()).Add(d)))
}

// ErrOverloaded is the 503 of an operation refused because its class is full of others'
// operations: nothing was done, so the same request may be sent again, here a second
// later or at once to another replica.
var ErrOverloaded = &apierr.Error{Code: apierr.CodeOverloaded, RetryAfter: time.Second,
	Message: "this server has as many requests in flight as it takes; nothing was done: retry after the Retry-After seconds"}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// CapacityKeys are the holders of p's operations' places: its workspace, then its
// credential.
func CapacityKeys(p *auth.Principal) []string {
	return []string{"workspace:" + p.WorkspaceID, "credential:" + credentialKey(p)}
}

// searchContext bounds a search's statements by the search timeout.
func (o *Ops) searchContext(ctx context.Context) context.Context {
	return store.WithStatementTimeout(ctx, o.capacities.SearchTimeout)
}
