package oauth

import (
	"context"
	"net/netip"
	"sync"
	"time"
)

// Sign-in budgets of the in-process LoginLimiter; cmd gives the shared limiter the same.
const (
	DefaultLoginPerIP         = 20
	DefaultLoginPerIPWindow   = 5 * time.Minute
	DefaultLoginPerAccount    = 10
	DefaultLoginAccountWindow = 15 * time.Minute
	defaultPasswordChecks     = 2
	defaultPasswordWait       = 3 * time.Second
	loginRetryAfter           = "60"
)

// LoginLimiter decides whether one more password sign-in may be checked: it charges one
// attempt to the client address and one to the account (the email, lowercased, known or
// not, so the answer reveals nothing about who has an account), and refuses when either
// budget is spent. Every attempt is charged, not only failed ones: a success is rare, and
// charging before the check is what stops the password hash from being the flood's cost.
// An error means it could not decide, as for RegisterLimiter.
type LoginLimiter interface {
	AllowLogin(ctx context.Context, ip netip.Addr, account string) (bool, error)
}

// memoryLoginLimiter is the in-process LoginLimiter used when Config.LoginLimiter is nil.
type memoryLoginLimiter struct {
	ip      *window[netip.Addr]
	account *window[string]
}

func newMemoryLoginLimiter(now func() time.Time) *memoryLoginLimiter {
	return &memoryLoginLimiter{ip: newWindow[netip.Addr](DefaultLoginPerIP, DefaultLoginPerIPWindow, now),
		account: newWindow[string](DefaultLoginPerAccount, DefaultLoginAccountWindow, now)}
}

func (l *memoryLoginLimiter) AllowLogin(_ context.Context, ip netip.Addr, account string) (bool, error) {
	return l.ip.allow(ip) && l.account.allow(account), nil
}

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
type passwordChecks struct {
	slots chan struct{}
	wait  time.Duration
}

func newPasswordChecks(n int, wait time.Duration) *passwordChecks {
	if n <= 0 {
		n = defaultPasswordChecks
	}
	if wait <= 0 {
		wait = defaultPasswordWait
	}
	return &passwordChecks{slots: make(chan struct{}, n), wait: wait}
}

// check runs CheckPassword when a slot frees up within the wait; busy reports that none
// did (the caller answers 429).
func (p *passwordChecks) check(ctx context.Context, hash, password string) (ok, busy bool) {
	t := time.NewTimer(p.wait)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
	case <-t.C:
		return false, true
	case <-ctx.Done():
		return false, true
	}
	defer func() { <-p.slots }()
	return checkPassword(hash, password), false
}
