package ratelimit

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// windowClock is how a window test lets time pass. The memory store reads the Limiter's
// clock, which the test steps: no sleeping, and no stalled runner can move a take across
// a window. Redis reads its own server's clock (TIME, so processes with skewed clocks
// share one window), which no test can step: there time really passes.
type windowClock struct {
	fake  atomic.Int64 // Unix nanoseconds; unused for Redis
	redis bool
}

// newWindowClock gives l (of backend b) a clock the test steps, or the wall clock for Redis.
func newWindowClock(l *Limiter, b backend) *windowClock {
	c := &windowClock{redis: b.name == "redis"}
	if !c.redis {
		c.fake.Store(time.Now().UnixNano())
		l.now = c.now
	}
	return c
}

func (c *windowClock) now() time.Time {
	if c.redis {
		return time.Now()
	}
	return time.Unix(0, c.fake.Load())
}

func (c *windowClock) sleep(d time.Duration) {
	if c.redis {
		time.Sleep(d)
		return
	}
	c.fake.Add(int64(d))
}

// The window slides: no interval-long span holds more allowed takes than the budget. A
// fixed window fails this at its boundary: a take late in one window and a full budget
// early in the next. The client takes once, waits three quarters of
// the interval, then takes every 10 ms. Each allowed take happened (on the store's clock)
// between the moment it was sent and the moment it returned, so three allowed takes
// prove a breach when the third returned less than an interval after the first was sent
// (less 5 ms for millisecond clocks).
func TestTakeSlidingWindow(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			const interval = 400 * time.Millisecond
			cfg := Config{PerCredential: 2, PerWorkspace: 100, Interval: interval}
			b.configure(t)(&cfg)
			l := newLimiter(t, cfg)
			clock := newWindowClock(l, b)
			ctx := context.Background()
			start := clock.now()
			type span struct{ sent, returned time.Time }
			var allowed []span
			for i := 0; clock.now().Sub(start) < 9*interval/4; i++ {
				sent := clock.now()
				d, err := l.Take(ctx, "a", "w")
				if err != nil || d.Degraded {
					t.Fatalf("take: %+v, %v", d, err)
				}
				if d.Allowed {
					allowed = append(allowed, span{sent, clock.now()})
				}
				if i == 0 {
					clock.sleep(3 * interval / 4)
				}
				clock.sleep(10 * time.Millisecond)
			}
			var at []time.Duration
			for _, a := range allowed {
				at = append(at, a.sent.Sub(start).Round(time.Millisecond))
			}
			for i := 0; i+2 < len(allowed); i++ {
				if gap := allowed[i+2].returned.Sub(allowed[i].sent); gap < interval-5*time.Millisecond {
					t.Fatalf("3 takes allowed within %v (sent at %v); the budget is 2 per %v", gap, at, interval)
				}
			}
			if len(allowed) < 4 {
				t.Fatalf("only %d takes allowed in %v (sent at %v); the budget of 2 per %v allows 5", len(allowed),
					9*interval/4, at, interval)
			}
		})
	}
}

// A request the workspace budget denies costs its credential nothing, and one the
// credential denies costs the workspace nothing: both budgets are charged together or
// not at all.
func TestTakeChargesBothOrNeither(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			cfg := Config{PerCredential: 2, PerWorkspace: 3}
			b.configure(t)(&cfg)
			l := newLimiter(t, cfg)
			ctx := context.Background()
			for _, cred := range []string{"a", "b", "b"} {
				if d, err := l.Take(ctx, cred, "w"); err != nil || !d.Allowed {
					t.Fatalf("take %s: %+v, %v", cred, d, err)
				}
			}
			for range 3 {
				d, err := l.Take(ctx, "a", "w")
				if err != nil || d.Allowed || d.Budget != "workspace" || d.Limit != 3 {
					t.Fatalf("a with the workspace spent: %+v, %v; want denied by the workspace budget of 3", d, err)
				}
			}
			if n := logLen(t, l, l.prefix+":c:{w}:"+hashKey("a")); n != 1 {
				t.Errorf("a's budget holds %d requests; want 1 (the workspace's denials charge nothing)", n)
			}
			for _, want := range []bool{true, true, false, false, false} {
				d, err := l.Take(ctx, "c", "w2")
				if err != nil || d.Allowed != want || !want && (d.Budget != "credential" || d.Limit != 2) {
					t.Fatalf("c in w2: %+v, %v; want allowed=%v, denials by the credential budget of 2", d, err, want)
				}
			}
			if n := logLen(t, l, l.prefix+":w:{w2}"); n != 2 {
				t.Errorf("w2's budget holds %d requests; want 2 (the credential's denials charge nothing)", n)
			}
		})
	}
}

// A take after a burst has left the window drops all of it at once and counts what is
// left. A take halfway keeps the key alive (each allowed take extends a Redis log's expiry
// to one interval) and stays in the window, so the burst must be pruned, not expired.
func TestTakePrunesExpiredBurst(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			const interval = time.Second // wide enough that a stalled runner does not move a take across the window
			cfg := Config{PerCredential: 11, PerWorkspace: 100, Interval: interval}
			b.configure(t)(&cfg)
			l := newLimiter(t, cfg)
			clock := newWindowClock(l, b)
			ctx := context.Background()
			for i := range 10 {
				if d, err := l.Take(ctx, "a", "w"); err != nil || !d.Allowed || d.Remaining != uint64(10-i) {
					t.Fatalf("burst take %d: %+v, %v; want allowed, %d remaining", i, d, err, 10-i)
				}
			}
			clock.sleep(interval / 2)
			if d, err := l.Take(ctx, "a", "w"); err != nil || !d.Allowed || d.Remaining != 0 {
				t.Fatalf("take halfway: %+v, %v; want allowed, 0 remaining", d, err)
			}
			clock.sleep(interval/2 + 100*time.Millisecond)
			if d, err := l.Take(ctx, "a", "w"); err != nil || !d.Allowed || d.Remaining != 9 {
				t.Fatalf("take after the burst left the window: %+v, %v; want allowed, 9 remaining (halfway's and its own)", d, err)
			}
			for _, key := range []string{l.prefix + ":c:{w}:" + hashKey("a"), l.prefix + ":w:{w}"} {
				if n := logLen(t, l, key); n != 2 {
					t.Errorf("%s holds %d requests; want 2 (the burst has left the window)", key, n)
				}
			}
		})
	}
}

// logLen reads how many requests a budget's log holds, from the store itself.
func logLen(tb testing.TB, l *Limiter, key string) int {
	tb.Helper()
	switch c := l.counts.(type) {
	case *memoryCounter:
		c.mu.Lock()
		defer c.mu.Unlock()
		if lg := c.logs[key]; lg != nil {
			return lg.len()
		}
		return 0
	case *redisCounter:
		n, err := c.client.Do(context.Background(), c.client.B().Llen().Key(key).Build()).AsInt64()
		if err != nil {
			tb.Fatal(err)
		}
		return int(n)
	}
	tb.Fatalf("unknown counter %T", l.counts)
	return 0
}

// The memory counter forgets credentials and addresses whose requests have all left the
// window, so idle keys do not accumulate in the process.
func TestMemoryForgetsIdleLogs(t *testing.T) {
	l := newLimiter(t, Config{PerCredential: 5, PerWorkspace: 10})
	now := time.Now()
	l.now = func() time.Time { return now }
	ctx := context.Background()
	if _, err := l.Take(ctx, "a", "w"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := l.Take(ctx, "b", "w2"); err != nil {
		t.Fatal(err)
	}
	m := l.counts.(*memoryCounter)
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.logs) != 2 {
		t.Errorf("%d logs kept after a's requests left the window; want b's 2", len(m.logs))
	}
}
