package ratelimit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// want is the part of a Decision the tests pin; Reset is checked separately.
type want struct {
	allowed   bool
	limit     uint64
	remaining uint64
}

func check(tb testing.TB, step string, d Decision, err error, w want, interval time.Duration) {
	tb.Helper()
	checkAt(tb, step, d, err, w, interval, time.Now())
}

// checkAt is check with the limiter's clock reading now.
func checkAt(tb testing.TB, step string, d Decision, err error, w want, interval time.Duration, now time.Time) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", step, err)
	}
	if d.Allowed != w.allowed || d.Limit != w.limit || d.Remaining != w.remaining || d.Degraded {
		tb.Fatalf("%s: got allowed=%v limit=%d remaining=%d degraded=%v, want allowed=%v limit=%d remaining=%d",
			step, d.Allowed, d.Limit, d.Remaining, d.Degraded, w.allowed, w.limit, w.remaining)
	}
	if !d.Reset.After(now) || d.Reset.After(now.Add(interval)) {
		tb.Fatalf("%s: reset %v is not within one interval (%v) after now %v", step, d.Reset, interval, now)
	}
}

// The spec's defaults: the 61st request of a credential in a minute is denied.
func TestTakeDefaultBudget(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			cfg := Config{}
			b.configure(t)(&cfg)
			l := newLimiter(t, cfg)
			ctx := context.Background()
			for i := range 60 {
				d, err := l.Take(ctx, "token-1", "ws-1")
				check(t, "take", d, err, want{true, 60, uint64(59 - i)}, time.Minute)
			}
			d, err := l.Take(ctx, "token-1", "ws-1")
			check(t, "61st take", d, err, want{false, 60, 0}, time.Minute)
		})
	}
}

// Each credential has its own budget, and all credentials of a workspace share the
// workspace's. The tighter of the two is reported; a request the credential budget
// denies is not charged to the workspace.
func TestTakeCredentialAndWorkspace(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			cfg := Config{PerCredential: 3, PerWorkspace: 5, Interval: time.Minute}
			b.configure(t)(&cfg)
			l := newLimiter(t, cfg)
			ctx := context.Background()
			steps := []struct {
				name, cred, ws string
				want           want
			}{
				{"a 1: credential tighter", "a", "w", want{true, 3, 2}},
				{"a 2", "a", "w", want{true, 3, 1}},
				{"a 3", "a", "w", want{true, 3, 0}},
				{"a 4: credential exhausted", "a", "w", want{false, 3, 0}},
				{"a 5: still exhausted", "a", "w", want{false, 3, 0}},
				// Had a's denials been charged, the workspace would be empty already.
				{"b 1: workspace now tighter", "b", "w", want{true, 5, 1}},
				{"b 2: workspace's last", "b", "w", want{true, 5, 0}},
				{"b 3: workspace exhausted", "b", "w", want{false, 5, 0}},
				{"c 1: fresh credential, same workspace", "c", "w", want{false, 5, 0}},
				{"d 1: other workspace", "d", "w2", want{true, 3, 2}},
			}
			for _, s := range steps {
				d, err := l.Take(ctx, s.cred, s.ws)
				check(t, s.name, d, err, s.want, time.Minute)
			}
		})
	}
}

// A budget refills when its window ends.
func TestTakeWindowResets(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			const interval = 300 * time.Millisecond
			cfg := Config{PerCredential: 1, PerWorkspace: 10, Interval: interval}
			b.configure(t)(&cfg)
			l := newLimiter(t, cfg)
			clock := newWindowClock(l, b)
			ctx := context.Background()
			d, err := l.Take(ctx, "a", "w")
			checkAt(t, "first", d, err, want{true, 1, 0}, interval, clock.now())
			d, err = l.Take(ctx, "a", "w")
			checkAt(t, "second", d, err, want{false, 1, 0}, interval, clock.now())
			clock.sleep(d.Reset.Sub(clock.now()) + 10*time.Millisecond)
			d, err = l.Take(ctx, "a", "w")
			checkAt(t, "after reset", d, err, want{true, 1, 0}, interval, clock.now())
		})
	}
}

func TestTakeIP(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			cfg := Config{IPBudgets: map[string]Budget{
				BucketRegister: {Tokens: 2, Interval: time.Hour},
				BucketAuthFail: {Tokens: 1, Interval: time.Minute},
			}}
			b.configure(t)(&cfg)
			l := newLimiter(t, cfg)
			ctx := context.Background()
			steps := []struct {
				name, bucket, ip string
				want             want
				interval         time.Duration
			}{
				{"v4 1", BucketRegister, "192.0.2.1", want{true, 2, 1}, time.Hour},
				{"v4 2", BucketRegister, "192.0.2.1", want{true, 2, 0}, time.Hour},
				{"v4 3 denied", BucketRegister, "192.0.2.1", want{false, 2, 0}, time.Hour},
				{"v4-mapped v6 is the same client", BucketRegister, "::ffff:192.0.2.1", want{false, 2, 0}, time.Hour},
				{"other v4", BucketRegister, "192.0.2.2", want{true, 2, 1}, time.Hour},
				{"buckets are separate", BucketAuthFail, "192.0.2.1", want{true, 1, 0}, time.Minute},
				{"v6 1", BucketRegister, "2001:db8::1", want{true, 2, 1}, time.Hour},
				{"v6 same /64", BucketRegister, "2001:db8::2", want{true, 2, 0}, time.Hour},
				{"v6 same /64 denied", BucketRegister, "2001:db8::ffff", want{false, 2, 0}, time.Hour},
				{"v6 other /64", BucketRegister, "2001:db8:0:1::1", want{true, 2, 1}, time.Hour},
			}
			for _, s := range steps {
				d, err := l.TakeIP(ctx, s.bucket, netip.MustParseAddr(s.ip))
				check(t, s.name, d, err, s.want, s.interval)
			}
			if _, err := l.TakeIP(ctx, "nope", netip.MustParseAddr("192.0.2.1")); err == nil {
				t.Error("TakeIP with an unknown bucket: no error")
			}
		})
	}
}

func TestDefaultIPBudgets(t *testing.T) {
	got := DefaultIPBudgets()
	if got[BucketRegister] != (Budget{20, time.Hour}) || got[BucketAuthFail] != (Budget{30, time.Minute}) || len(got) != 2 {
		t.Errorf("DefaultIPBudgets() = %v", got)
	}
}

func TestTakeErrors(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := l.Take(ctx, "", "w"); err == nil {
		t.Error("empty credential key: no error")
	}
	if _, err := l.Take(ctx, "a", ""); err == nil {
		t.Error("empty workspace key: no error")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if d, err := l.Take(ctx, "a", "w"); !errors.Is(err, ErrClosed) || d.Allowed {
		t.Errorf("Take after Close = %+v, %v; want denied, ErrStopped", d, err)
	}
	if d, err := l.TakeIP(ctx, BucketAuthFail, netip.MustParseAddr("192.0.2.1")); !errors.Is(err, ErrClosed) || d.Allowed {
		t.Errorf("TakeIP after Close = %+v, %v; want denied, ErrStopped", d, err)
	}
	for _, cfg := range []Config{
		{RedisURL: "http://nope"},
		{Interval: time.Microsecond},
		{IPBudgets: map[string]Budget{"x": {Tokens: 1}}},
		{IPBudgets: map[string]Budget{"x": {Interval: time.Minute}}},
		{IPBudgets: map[string]Budget{"": {Tokens: 1, Interval: time.Minute}}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}

// REDIS_URL takes the parameters its documentation names; any other is refused at start
// rather than silently ignored (go-redis read read_timeout and pool_size; the client now
// used does not).
func TestRedisURLParameters(t *testing.T) {
	for _, c := range []struct {
		query   string
		refused string // "" when accepted
	}{
		{query: ""},
		{query: "?dial_timeout=2s&write_timeout=250ms&client_name=workspaced"},
		{query: "?db=1"},
		{query: "?read_timeout=2s", refused: `"read_timeout"`},
		{query: "?pool_size=10", refused: `"pool_size"`},
		{query: "?addr=10.0.0.2:6379", refused: `"addr"`},
		{query: "?master_set=main", refused: `"master_set"`},
		{query: "?dial_timeout=soon", refused: "dial timeout"},
	} {
		l, err := New(Config{RedisURL: "redis://127.0.0.1:1/0" + c.query})
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%q: %v", c.query, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "REDIS_URL")):
			t.Errorf("%q: error %v, want one naming REDIS_URL and %s", c.query, err, c.refused)
		}
		if l != nil {
			_ = l.Close()
		}
	}
	l, err := New(Config{RedisURL: "rediss://127.0.0.1:1/0?skip_verify=false"})
	if err != nil {
		t.Errorf("rediss with skip_verify: %v", err)
	} else {
		_ = l.Close()
	}
	if _, err := New(Config{RedisURL: "redis://127.0.0.1:1/0?skip_verify=true"}); err == nil {
		t.Error("skip_verify on redis:// (no TLS): no error")
	}
}

// Two Limiters on one Redis and prefix, as two processes would be, share one budget.
func TestRedisSharedAcrossProcesses(t *testing.T) {
	prefix := redisPrefix(t)
	cfg := Config{PerCredential: 3, PerWorkspace: 100, RedisURL: testRedisURL(), KeyPrefix: prefix}
	p1, p2 := newLimiter(t, cfg), newLimiter(t, cfg)
	ctx := context.Background()
	steps := []struct {
		name string
		l    *Limiter
		want want
	}{
		{"process 1", p1, want{true, 3, 2}},
		{"process 2", p2, want{true, 3, 1}},
		{"process 1 again", p1, want{true, 3, 0}},
		{"process 2 denied", p2, want{false, 3, 0}},
		{"process 1 denied", p1, want{false, 3, 0}},
	}
	for _, s := range steps {
		d, err := s.l.Take(ctx, "a", "w")
		check(t, s.name, d, err, s.want, time.Minute)
	}
}

// 50 concurrent requests against a budget of 10: exactly 10 pass, also when they come
// through two processes.
func TestTakeConcurrent(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			cfg := Config{PerCredential: 10, PerWorkspace: 100}
			b.configure(t)(&cfg)
			ls := []*Limiter{newLimiter(t, cfg)}
			if b.name == "redis" {
				ls = append(ls, newLimiter(t, cfg))
			}
			var (
				wg      sync.WaitGroup
				mu      sync.Mutex
				allowed int
			)
			start := make(chan struct{})
			for i := range 50 {
				wg.Go(func() {
					<-start
					d, err := ls[i%len(ls)].Take(context.Background(), "a", "w")
					if err != nil || d.Degraded {
						t.Errorf("Take: %+v, %v", d, err)
					}
					if d.Allowed {
						mu.Lock()
						allowed++
						mu.Unlock()
					}
				})
			}
			close(start)
			wg.Wait()
			if allowed != 10 {
				t.Errorf("%d of 50 allowed, want 10", allowed)
			}
		})
	}
}

// With Redis unreachable the failure policy decides, every failure is counted, and a
// burst of failures is logged once.
func TestRedisDown(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failOpen bool
		policy   string
	}{
		{"fail open allows", true, "open"},
		{"fail closed denies", false, "closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			var logs bytes.Buffer
			l := newLimiter(t, Config{
				RedisURL:   downRedisURL,
				FailOpen:   tc.failOpen,
				Logger:     slogJSON(&logs),
				Registerer: reg,
			})
			ctx := context.Background()
			start := time.Now()
			for range 4 {
				d, err := l.Take(ctx, "a", "w")
				if err != nil {
					t.Fatalf("Take: %v", err)
				}
				if d.Allowed != tc.failOpen || !d.Degraded || d.Remaining != 0 || d.Limit != 60 || !d.Reset.After(start) {
					t.Fatalf("Take = %+v, want allowed=%v degraded, limit 60, remaining 0", d, tc.failOpen)
				}
			}
			d, err := l.TakeIP(ctx, BucketRegister, netip.MustParseAddr("192.0.2.1"))
			if err != nil || d.Allowed != tc.failOpen || !d.Degraded || d.Limit != 20 {
				t.Fatalf("TakeIP = %+v, %v", d, err)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("5 failed takes took %v; a down Redis must fail fast", elapsed)
			}

			wantMetric := `
# HELP workspaced_ratelimit_store_errors_total Rate-limit store failures, by the failure policy that decided the request (open: allowed, closed: denied).
# TYPE workspaced_ratelimit_store_errors_total counter
workspaced_ratelimit_store_errors_total{policy="` + tc.policy + `"} 5
`
			if err := testutil.GatherAndCompare(reg, strings.NewReader(wantMetric), "workspaced_ratelimit_store_errors_total"); err != nil {
				t.Error(err)
			}
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], `"policy":"`+tc.policy+`"`) || !strings.Contains(lines[0], "connect") {
				t.Errorf("logged %d lines, want 1 naming the policy and the error:\n%s", len(lines), logs.String())
			}
		})
	}
}

// Limiters sharing a registry share the counter rather than failing to register.
func TestSharedRegisterer(t *testing.T) {
	reg := prometheus.NewRegistry()
	newLimiter(t, Config{Registerer: reg})
	newLimiter(t, Config{Registerer: reg, FailOpen: true})
	n, err := testutil.GatherAndCount(reg, "workspaced_ratelimit_store_errors_total")
	if err != nil || n != 2 {
		t.Errorf("GatherAndCount = %d, %v; want both policies' series at 0", n, err)
	}
}

func TestErrorGate(t *testing.T) {
	var g errorGate
	t0 := time.Unix(1_700_000_000, 0)
	steps := []struct {
		at             time.Duration
		wantLog        bool
		wantSuppressed int
	}{
		{0, true, 0},                 // a burst starts: log
		{time.Second, false, 0},      // same burst
		{20 * time.Second, false, 0}, // same burst
		{45 * time.Second, false, 0}, // gaps under 30 s keep it one burst
		{61 * time.Second, true, 3},  // a minute since the last line: log with the count
		{62 * time.Second, false, 0},
		{2 * time.Minute, true, 1}, // 58 s quiet: a new burst
	}
	for _, s := range steps {
		log, suppressed := g.note(t0.Add(s.at))
		if log != s.wantLog || (log && suppressed != s.wantSuppressed) {
			t.Errorf("at %v: note = %v, %d; want %v, %d", s.at, log, suppressed, s.wantLog, s.wantSuppressed)
		}
	}
}

// backend is a store the Limiter tests run against.
type backend struct {
	name string
	// configure points cfg at the backend; called once per Limiter, with the same
	// prefix for every Limiter of one test so they share counts.
	configure func(tb testing.TB) func(cfg *Config)
}

func backends() []backend {
	return []backend{
		{"memory", func(testing.TB) func(*Config) { return func(*Config) {} }},
		{"redis", func(tb testing.TB) func(*Config) {
			prefix := redisPrefix(tb)
			return func(cfg *Config) {
				cfg.RedisURL = testRedisURL()
				cfg.KeyPrefix = prefix
			}
		}},
	}
}

func newLimiter(tb testing.TB, cfg Config) *Limiter {
	tb.Helper()
	l, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := l.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return l
}

func slogJSON(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, nil))
}

// hungRedis is a listener that accepts connections and never answers, as a Redis that
// hangs does (stopped, or stuck behind a full network path): unlike a refused connection,
// only a deadline ends the wait.
func hungRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, unread
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "redis://" + ln.Addr().String() + "/0"
}

// With Redis hung, every take, the first ones included, fails within about the reply
// timeout (500 ms, README's REDIS_URL) into the failure policy, alone or many at once.
func TestRedisHung(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stopped  bool // a redis-server that answered, then stopped; else a listener that never answers
		failOpen bool
	}{
		{"listener, fail closed", false, false},
		{"listener, fail open", false, true},
		{"stopped redis-server, fail closed", true, false},
		{"stopped redis-server, fail open", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failOpen := tc.failOpen
			url, stop := "", func() {}
			if tc.stopped {
				url, stop = stoppedRedis(t)
			} else {
				url = hungRedis(t)
			}
			l := newLimiter(t, Config{RedisURL: url, FailOpen: failOpen, Registerer: prometheus.NewRegistry()})
			if tc.stopped { // connected and answering first
				if d, err := l.Take(context.Background(), "before", "w"); err != nil || d.Degraded || !d.Allowed {
					t.Fatalf("take before the stop: %+v, %v", d, err)
				}
			}
			stop()
			const bound = 1500 * time.Millisecond // the 500 ms timeout, with generous slack
			take := func(i int) {
				start := time.Now()
				d, err := l.Take(context.Background(), fmt.Sprint("cred", i), "w")
				took := time.Since(start)
				if err != nil || d.Allowed != failOpen || !d.Degraded {
					t.Errorf("take %d: %+v, %v; want the failure policy (allowed=%v) to decide", i, d, err, failOpen)
				}
				if took > bound {
					t.Errorf("take %d took %v with Redis hung; want under %v", i, took, bound)
				}
			}
			var wg sync.WaitGroup
			for i := range 8 { // the first requests, at once
				wg.Go(func() { take(i) })
			}
			wg.Wait()
			for i := range 3 { // and one after another
				take(8 + i)
			}
			start := time.Now()
			d, err := l.TakeIP(context.Background(), BucketRegister, netip.MustParseAddr("192.0.2.1"))
			if err != nil || d.Allowed != failOpen || !d.Degraded || time.Since(start) > bound {
				t.Errorf("TakeIP with Redis hung: %+v, %v after %v", d, err, time.Since(start))
			}
		})
	}
}

// stoppedRedis starts a redis-server of the test's own and returns its URL and a function
// that stops it with SIGSTOP (SIGCONT at the end of the test): connections it had stay
// open, new ones are accepted by the kernel, and nothing answers.
func stoppedRedis(t *testing.T) (string, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGCONT); cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server never listened on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "redis://" + addr + "/0", func() {
		if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
}
