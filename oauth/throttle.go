package oauth

import (
	"context"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agencyos/workspaced/ratelimit"
)

const (
	defaultPasswordChecks = 2
	defaultPasswordWait   = 3 * time.Second
	loginRetryAfter       = "60"
	// deviceChecks is how many hashes sign-ins from known devices may compute at once
	// beside the shared ones.
	deviceChecks = 1
)

// LoginLimiter holds the password sign-in budgets (OWASP ASVS V2.2.1: slow brute force
// without enabling lock-out; docs/oauth.md, "Sign-in budgets"). *ratelimit.Limiter
// implements it; accounts are lowercased emails, known or not, so its answers reveal
// nothing about who has an account. An error means it could not decide (the request is
// answered 503, as for RegisterLimiter).
type LoginLimiter interface {
	// AllowSignIn charges an attempt to the address and reports whether the password may
	// be checked: false once the address's attempts are spent, or once the address has
	// failed too often for the account (or at all, while the account's failures from
	// every address are at their ceiling). An address that has not failed for the
	// account is refused only for its own attempts.
	AllowSignIn(ctx context.Context, ip netip.Addr, account string) (bool, error)
	// SignInFailed records a failed sign-in for account from ip.
	SignInFailed(ctx context.Context, ip netip.Addr, account string) error
	// AllowUnknownAccount charges an attempt for an email no member has to a budget all
	// addresses share, and reports whether its password may be hashed.
	AllowUnknownAccount(ctx context.Context) (bool, error)
	// AllowResetMail charges a "Forgot password?" request for account to the budget the
	// account's requests from every address share, and reports whether a reset link may
	// be mailed to it.
	AllowResetMail(ctx context.Context, account string) (bool, error)
}

var _ LoginLimiter = (*ratelimit.Limiter)(nil)

// window counts events per key in a sliding window: at most n per key.
type window[K comparable] struct {
	n    int
	size time.Duration
	now  func() time.Time

	mu   sync.Mutex
	seen map[K][]time.Time
}

func newWindow[K comparable](n int, size time.Duration, now func() time.Time) *window[K] {
	if now == nil {
		now = time.Now
	}
	return &window[K]{n: n, size: size, now: now, seen: map[K][]time.Time{}}
}

// allow records one event for key and reports whether it is within the budget.
func (w *window[K]) allow(key K) bool {
	now := w.now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seen) > 10_000 {
		for k, ts := range w.seen {
			if len(ts) == 0 || now.Sub(ts[len(ts)-1]) > w.size {
				delete(w.seen, k)
			}
		}
	}
	ts := w.seen[key]
	for len(ts) > 0 && now.Sub(ts[0]) >= w.size {
		ts = ts[1:]
	}
	if len(ts) >= w.n {
		w.seen[key] = ts
		return false
	}
	w.seen[key] = append(ts, now)
	return true
}

// passwordChecks bounds the argon2id checks running at once: each holds the hash's memory
// (64 MiB), so an unbounded flood of sign-ins grows the process by that much per request.
// One more slot is kept for sign-ins from a browser that signed in as that member before
// (a device cookie, deviceSignIn), so strangers' attempts never queue a member behind them.
type passwordChecks struct {
	slots  chan struct{}
	device chan struct{} // the known devices' slot
	wait   time.Duration
	last   atomic.Int64 // how long the latest check took, in nanoseconds
}

func newPasswordChecks(n int, wait time.Duration) *passwordChecks {
	if n <= 0 {
		n = defaultPasswordChecks
	}
	if wait <= 0 {
		wait = defaultPasswordWait
	}
	return &passwordChecks{slots: make(chan struct{}, n), device: make(chan struct{}, deviceChecks), wait: wait}
}

// check runs CheckPassword when a slot frees up within the wait; busy reports that none
// did (the caller answers 429). A sign-in from a known device takes the known devices'
// slot when it is free, else a shared one.
func (p *passwordChecks) check(ctx context.Context, hash, password string, knownDevice bool) (ok, busy bool) {
	var device chan struct{} // nil: never ready
	if knownDevice {
		device = p.device
	}
	var held chan struct{}
	select { // a free slot is always taken, however short the wait
	case device <- struct{}{}:
		held = device
	default:
		select {
		case p.slots <- struct{}{}:
			held = p.slots
		default:
			t := time.NewTimer(p.wait)
			defer t.Stop()
			select {
			case device <- struct{}{}:
				held = device
			case p.slots <- struct{}{}:
				held = p.slots
			case <-t.C:
				return false, true
			case <-ctx.Done():
				return false, true
			}
		}
	}
	defer func() { <-held }()
	start := time.Now()
	ok = checkPassword(hash, password)
	p.last.Store(int64(time.Since(start)))
	return ok, false
}

// pause waits as long as the latest check took, holding no slot: the answer for an email
// no member has, beyond the budget of those hashed, takes as long as a check would.
func (p *passwordChecks) pause(ctx context.Context) {
	t := time.NewTimer(time.Duration(p.last.Load()))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
