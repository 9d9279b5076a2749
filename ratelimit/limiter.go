package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Names of the per-IP buckets the service uses; TakeIP accepts any name configured in
// Config.IPBudgets.
const (
	// BucketAuthFail counts requests that failed authentication, so token guessing from
	// one address is throttled.
	BucketAuthFail = "authfail"
	// BucketRegister counts dynamic client registrations (RFC 7591), 20 per hour per IP.
	BucketRegister = "register"
)

// DefaultKeyPrefix starts the Redis keys when Config.KeyPrefix is empty.
const DefaultKeyPrefix = "workspaced:ratelimit"

// Budget is a number of takes allowed in any window of Interval: a sliding window, so no
// Interval-long span ever holds more than Tokens allowed takes.
type Budget struct {
	Tokens   uint64
	Interval time.Duration
}

// DefaultIPBudgets returns the per-IP budgets used when Config.IPBudgets is nil: 30 failed
// authentications a minute and 20 registrations an hour. It returns a new map each call
// so callers may change it.
func DefaultIPBudgets() map[string]Budget {
	return map[string]Budget{
		BucketAuthFail: {Tokens: 30, Interval: time.Minute},
		BucketRegister: {Tokens: 20, Interval: time.Hour},
	}
}

// Config configures a Limiter. cmd/workspaced builds it from the environment; the package
// reads no environment itself.
type Config struct {
	// PerCredential is the budget of each access token or agent key per Interval;
	// 0 means the spec's 60.
	PerCredential uint64
	// PerWorkspace is the budget shared by all credentials of a workspace per Interval;
	// 0 means the spec's 600.
	PerWorkspace uint64
	// Interval is the window of both budgets; 0 means one minute.
	Interval time.Duration

	// IPBudgets names the per-IP buckets TakeIP accepts; nil means DefaultIPBudgets().
	IPBudgets map[string]Budget
	// SignIn are the password sign-in budgets (AllowSignIn); zero means
	// DefaultSignInBudgets().
	SignIn SignInBudgets

	// RedisURL selects the store: empty keeps counts in this process's memory; a
	// redis:// or rediss:// URL keeps them in Redis, shared by every process using it.
	RedisURL string
	// KeyPrefix starts every Redis key; empty means DefaultKeyPrefix. Processes that
	// should share budgets must use the same prefix.
	KeyPrefix string

	// FailOpen decides requests when the store fails (Redis unreachable, timing out):
	// true allows them, keeping the API up at the cost of unenforced limits; false denies
	// them, keeping limits at the cost of availability. Either way the failure is logged
	// and counted, never silent.
	FailOpen bool

	// Logger receives store failures, once per burst of them; nil discards.
	Logger *slog.Logger
	// Registerer receives the workspaced_ratelimit_store_errors_total counter; nil
	// leaves it unregistered. It is passed in, not the global registry, so tests and
	// several Limiters in one process do not collide.
	Registerer prometheus.Registerer
}

// Limiter applies the service's budgets. It is safe for concurrent use; REST, MCP and
// OAuth registration share one.
type Limiter struct {
	counts     counter
	cred, ws   Budget
	prefix     string // of every key: the Redis key prefix, or "" in memory
	ipBudgets  map[string]Budget
	signIn     SignInBudgets
	failOpen   bool
	policy     string
	log        *slog.Logger
	storeErrs  prometheus.Counter
	errGate    errorGate
	now        func() time.Time
	closed     atomic.Bool
	closeOnce  sync.Once
	closeError error
}

// ErrClosed is returned by Take and TakeIP after Close.
var ErrClosed = errors.New("ratelimit: limiter closed")

// New returns a Limiter for cfg. With a RedisURL it builds a client but does not contact
// Redis: a service whose Redis is down starts and applies its failure policy.
func New(cfg Config) (*Limiter, error) {
	interval := cfg.Interval
	if interval == 0 {
		interval = time.Minute
	}
	if interval < time.Millisecond {
		return nil, fmt.Errorf("ratelimit: interval %v is shorter than a millisecond", interval)
	}
	l := &Limiter{
		cred:      Budget{orDefault(cfg.PerCredential, 60), interval},
		ws:        Budget{orDefault(cfg.PerWorkspace, 600), interval},
		ipBudgets: cfg.IPBudgets,
		signIn:    cfg.SignIn,
		failOpen:  cfg.FailOpen,
		policy:    "closed",
		log:       cfg.Logger,
		now:       time.Now,
	}
	if l.ipBudgets == nil {
		l.ipBudgets = DefaultIPBudgets()
	}
	for name, b := range l.ipBudgets {
		if name == "" || b.Tokens == 0 || b.Interval < time.Millisecond {
			return nil, fmt.Errorf("ratelimit: IP budget %q needs a name, tokens and an interval of at least 1ms", name)
		}
	}
	if l.signIn == (SignInBudgets{}) {
		l.signIn = DefaultSignInBudgets()
	}
	if l.signIn.ResetMails == (Budget{}) {
		l.signIn.ResetMails = DefaultSignInBudgets().ResetMails
	}
	for _, b := range []Budget{l.signIn.PerAddress, l.signIn.PerAccountAddress, l.signIn.PerAccount, l.signIn.UnknownAccounts,
		l.signIn.ResetMails} {
		if b.Tokens == 0 || b.Interval < time.Millisecond {
			return nil, errors.New("ratelimit: every sign-in budget needs tokens and an interval of at least 1ms")
		}
	}
	if l.failOpen {
		l.policy = "open"
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}

	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "workspaced_ratelimit_store_errors_total",
		Help: "Rate-limit store failures, by the failure policy that decided the request (open: allowed, closed: denied).",
	}, []string{"policy"})
	if cfg.Registerer != nil {
		if err := cfg.Registerer.Register(errs); err != nil {
			// A second Limiter on the same registry (two listeners, a test) shares the
			// first one's counter instead of failing.
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, fmt.Errorf("ratelimit: register metrics: %w", err)
			}
			vec, ok := are.ExistingCollector.(*prometheus.CounterVec)
			if !ok {
				return nil, fmt.Errorf("ratelimit: register metrics: %w", err)
			}
			errs = vec
		}
	}
	l.storeErrs = errs.WithLabelValues(l.policy)

	if cfg.RedisURL == "" {
		l.counts = newMemoryCounter(func() time.Time { return l.now() })
		return l, nil
	}
	c, err := newRedisCounter(cfg.RedisURL)
	if err != nil {
		return nil, err
	}
	l.counts = c
	l.prefix = cfg.KeyPrefix
	if l.prefix == "" {
		l.prefix = DefaultKeyPrefix
	}
	return l, nil
}

func orDefault(v, def uint64) uint64 {
	if v == 0 {
		return def
	}
	return v
}

// Decision is one request's outcome against its budgets. For Take it describes the
// tighter of the credential and workspace budgets, which is the one a client must pace
// itself by, or the one that denied.
type Decision struct {
	// Allowed reports whether the request may proceed; false means answer 429, or 503
	// when Degraded.
	Allowed bool
	// Limit is the size of the budget described.
	Limit uint64
	// Remaining is the number of requests left in that budget's window.
	Remaining uint64
	// Reset is when the oldest request counted in that budget's window leaves it, giving
	// one request back.
	Reset time.Time
	// Degraded reports whether the store failed and Config.FailOpen decided the request,
	// so Remaining (0) and Reset (one interval from now) are guesses.
	Degraded bool
	// Budget names the budget described: "credential", "workspace", or "ip:" and the
	// bucket of TakeIP.
	Budget string
	// Interval is the window of that budget.
	Interval time.Duration
}

// Take charges one request to the credential's budget and to the workspace's, or, when
// either is spent, to neither: a request the credential budget denies costs its
// workspace nothing, so one runaway credential cannot exhaust the workspace's budget for
// the others, and a request the workspace denies costs the credential nothing. Both
// budgets are decided in one step (one Redis round trip).
//
// credentialKey identifies the access token or agent key (its id, or the token itself:
// it is hashed before it reaches the store, so no bearer secret lands in Redis);
// workspaceKey is the workspace id.
//
// Store failures never surface as errors: the failure policy decides them, and Take logs
// and counts them. Take returns an error only for an empty key or a closed Limiter
// (ErrClosed); the Decision then denies.
func (l *Limiter) Take(ctx context.Context, credentialKey, workspaceKey string) (Decision, error) {
	if l.closed.Load() {
		return Decision{}, ErrClosed
	}
	if credentialKey == "" || workspaceKey == "" {
		return Decision{}, errors.New("ratelimit: empty credential or workspace key")
	}
	// Both keys carry the workspace as their Redis Cluster hash tag, so one script may
	// touch both (a credential belongs to one workspace).
	ws := "{" + workspaceKey + "}"
	charges := []charge{
		{key: l.prefix + ":c:" + ws + ":" + hashKey(credentialKey), budget: l.cred},
		{key: l.prefix + ":w:" + ws, budget: l.ws},
	}
	use, ok, err := l.counts.take(ctx, charges)
	if err != nil {
		if l.ws.Tokens < l.cred.Tokens {
			return l.storeFailed(err, "workspace", l.ws), nil
		}
		return l.storeFailed(err, "credential", l.cred), nil
	}
	cred := decide(ok, l.cred, use[0], "credential")
	wsd := decide(ok, l.ws, use[1], "workspace")
	switch {
	case ok:
		return tighter(cred, wsd), nil
	case use[0].used >= l.cred.Tokens: // the credential budget denied
		return cred, nil
	default:
		return wsd, nil
	}
}

// decide describes one budget after a take that was (ok) or was not allowed.
func decide(ok bool, b Budget, u usage, name string) Decision {
	d := Decision{Allowed: ok, Limit: b.Tokens, Reset: u.reset, Budget: name, Interval: b.Interval}
	if u.used < b.Tokens {
		d.Remaining = b.Tokens - u.used
	}
	if !ok {
		d.Remaining = 0
	}
	return d
}

// TakeIP charges one event to ip's budget in the named bucket (BucketAuthFail,
// BucketRegister or another name in Config.IPBudgets). IPv6 addresses are counted per
// /64, the block one subscriber usually holds, so an attacker cannot rotate addresses
// within it; an invalid (zero) address, such as a Unix-socket peer, shares one budget.
//
// Store failures follow the failure policy as in Take; TakeIP returns an error only for
// an unknown bucket or a closed Limiter, and the Decision then denies.
func (l *Limiter) TakeIP(ctx context.Context, bucket string, ip netip.Addr) (Decision, error) {
	if l.closed.Load() {
		return Decision{}, ErrClosed
	}
	b, ok := l.ipBudgets[bucket]
	if !ok {
		return Decision{}, fmt.Errorf("ratelimit: unknown IP bucket %q", bucket)
	}
	use, ok, err := l.counts.take(ctx, []charge{{key: l.prefix + ":ip:" + bucket + ":{" + ipKey(ip) + "}", budget: b}})
	if err != nil {
		return l.storeFailed(err, "ip:"+bucket, b), nil
	}
	return decide(ok, b, use[0], "ip:"+bucket), nil
}

// Close releases the store and the Redis client. Later calls to Take and TakeIP return
// ErrClosed.
func (l *Limiter) Close() error {
	l.closeOnce.Do(func() {
		l.closed.Store(true)
		l.closeError = l.counts.close()
	})
	return l.closeError
}

// tighter returns the decision with fewer requests left; on a tie, the smaller budget,
// then the later reset, so a client pacing by it never overruns the other.
func tighter(a, b Decision) Decision {
	switch {
	case a.Remaining != b.Remaining:
		if a.Remaining < b.Remaining {
			return a
		}
		return b
	case a.Limit != b.Limit:
		if a.Limit < b.Limit {
			return a
		}
		return b
	case b.Reset.After(a.Reset):
		return b
	default:
		return a
	}
}

// hashKey keeps credential secrets out of the store: no bearer secret lands in Redis.
// 128 bits of SHA-256 is ample to avoid collisions.
func hashKey(k string) string {
	sum := sha256.Sum256([]byte(k))
	return hex.EncodeToString(sum[:16])
}

func ipKey(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	switch {
	case !ip.IsValid():
		return "unknown"
	case ip.Is6():
		return netip.PrefixFrom(ip, 64).Masked().String()
	default:
		return ip.String()
	}
}

// storeFailed applies the failure policy to a request the store could not decide.
func (l *Limiter) storeFailed(err error, budget string, b Budget) Decision {
	l.storeErrs.Inc()
	if log, suppressed := l.errGate.note(l.now()); log {
		l.log.Error("rate-limit store failed; failure policy decides requests",
			slog.String("policy", l.policy),
			slog.Bool("allowed", l.failOpen),
			slog.String("budget", budget),
			slog.Int("suppressed", suppressed),
			slog.Any("err", err))
	}
	return Decision{
		Allowed:   l.failOpen,
		Limit:     b.Tokens,
		Remaining: 0,
		Reset:     l.now().Add(b.Interval),
		Degraded:  true,
		Budget:    budget,
		Interval:  b.Interval,
	}
}

// errorGate logs the first store failure of a burst and then at most one a minute while
// failures go on, so an outage logs a handful of lines, not one per request. The counter
// still counts every failure.
type errorGate struct {
	mu         sync.Mutex
	lastErr    time.Time
	lastLog    time.Time
	suppressed int
}

const (
	// burstGap is the quiet time after which the next failure starts a new burst.
	burstGap = 30 * time.Second
	// relogEvery is how often a continuing burst is logged again, with the count of
	// failures left unlogged since.
	relogEvery = time.Minute
)

// note records a failure at now and reports whether to log it, with the number of
// failures left unlogged before it.
func (g *errorGate) note(now time.Time) (log bool, suppressed int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lastErr.IsZero() || now.Sub(g.lastErr) >= burstGap || now.Sub(g.lastLog) >= relogEvery {
		log, suppressed = true, g.suppressed
		g.suppressed = 0
		g.lastLog = now
	} else {
		g.suppressed++
	}
	g.lastErr = now
	return log, suppressed
}

// OutageRetryAfter is the Retry-After, in seconds, of a request denied because the store
// failed (fail-closed): the outage, not the client, decided, so the client may retry soon.
const OutageRetryAfter = 5

// SetHeaders writes the spec's rate-limit headers (docs/decisions.md 5):
// X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset in Unix seconds, rounded
// up so a client waiting until then is never early, and on a denial Retry-After: 60, the
// fixed value docs/contract.md section 7 gives (some libraries write a date instead), or
// OutageRetryAfter when the store failed and the request was denied for that. A degraded
// decision (the store could not be asked) writes no X-RateLimit-* headers: it knows no
// budget, and "Remaining: 0" on a 503 would tell the client it spent one.
func (d Decision) SetHeaders(h http.Header) {
	if d.Degraded {
		if !d.Allowed {
			h.Set("Retry-After", strconv.Itoa(OutageRetryAfter))
		}
		return
	}
	h.Set("X-RateLimit-Limit", strconv.FormatUint(d.Limit, 10))
	h.Set("X-RateLimit-Remaining", strconv.FormatUint(d.Remaining, 10))
	reset := d.Reset.Unix()
	if d.Reset.Nanosecond() > 0 {
		reset++
	}
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	switch {
	case d.Allowed:
		h.Del("Retry-After")
	default:
		h.Set("Retry-After", "60")
	}
}
