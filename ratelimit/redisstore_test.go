package ratelimit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sethvargo/go-limiter"
)

func newRedisStore(tb testing.TB, tokens uint64, interval time.Duration) *RedisStore {
	tb.Helper()
	opt, err := redis.ParseURL(testRedisURL())
	if err != nil {
		tb.Fatal(err)
	}
	c := redis.NewClient(opt)
	tb.Cleanup(func() { c.Close() })
	s, err := NewRedisStore(RedisStoreConfig{Client: c, Tokens: tokens, Interval: interval, Prefix: redisPrefix(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// RedisStore keeps limiter.Store's contract: limit, remaining, reset in Unix nanoseconds
// at the window's end, ok.
func TestRedisStoreTake(t *testing.T) {
	const interval = time.Minute
	s := newRedisStore(t, 3, interval)
	ctx := context.Background()
	var firstReset uint64
	for i, want := range []struct {
		remaining uint64
		ok        bool
	}{{2, true}, {1, true}, {0, true}, {0, false}, {0, false}} {
		before := uint64(time.Now().UnixNano())
		tokens, remaining, reset, ok, err := s.Take(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		if tokens != 3 || remaining != want.remaining || ok != want.ok {
			t.Fatalf("take %d = %d, %d, %v; want 3, %d, %v", i+1, tokens, remaining, ok, want.remaining, want.ok)
		}
		if reset <= before || reset > before+uint64(interval) || reset%uint64(time.Millisecond) != 0 {
			t.Fatalf("take %d: reset %d not a window end within %v of %d", i+1, reset, interval, before)
		}
		if i == 0 {
			firstReset = reset
		} else if reset != firstReset && reset != firstReset+uint64(interval) {
			t.Fatalf("take %d: reset %d moved from %d", i+1, reset, firstReset)
		}
	}
	if tokens, remaining, err := s.Get(ctx, "k"); err != nil || tokens != 3 || remaining != 0 {
		t.Errorf("Get(k) = %d, %d, %v; want 3, 0", tokens, remaining, err)
	}
	if tokens, remaining, err := s.Get(ctx, "unseen"); err != nil || tokens != 3 || remaining != 3 {
		t.Errorf("Get(unseen) = %d, %d, %v; want 3, 3", tokens, remaining, err)
	}
	// Keys are separate buckets, including ones that look like the store's suffixes.
	for _, k := range []string{"k:n", "k}:c", "{k}"} {
		if _, remaining, _, ok, err := s.Take(ctx, k); err != nil || !ok || remaining != 2 {
			t.Errorf("Take(%q) = %d, %v, %v; want a fresh bucket", k, remaining, ok, err)
		}
	}
}

func TestRedisStoreSetAndBurst(t *testing.T) {
	s := newRedisStore(t, 3, time.Minute)
	ctx := context.Background()
	if _, _, _, ok, err := s.Take(ctx, "k"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	// Set overrides the limit and refills the bucket.
	if err := s.Set(ctx, "k", 5, time.Hour); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	tokens, remaining, reset, ok, err := s.Take(ctx, "k")
	if err != nil || tokens != 5 || remaining != 4 || !ok {
		t.Fatalf("Take after Set = %d, %d, %v, %v; want 5, 4, true", tokens, remaining, ok, err)
	}
	if r := time.Unix(0, int64(reset)); r.Before(before) || r.After(before.Add(time.Hour)) {
		t.Errorf("reset %v not within the hour window", r)
	}
	// Burst adds to the current window, above the limit if need be.
	if err := s.Burst(ctx, "k", 3); err != nil {
		t.Fatal(err)
	}
	if tokens, remaining, err := s.Get(ctx, "k"); err != nil || tokens != 5 || remaining != 7 {
		t.Errorf("Get after Burst = %d, %d, %v; want 5, 7", tokens, remaining, err)
	}
	if err := s.Burst(ctx, "fresh", 2); err != nil {
		t.Fatal(err)
	}
	if _, remaining, _, ok, err := s.Take(ctx, "fresh"); err != nil || !ok || remaining != 4 {
		t.Errorf("Take after Burst on a fresh key = %d, %v, %v; want 4 left", remaining, ok, err)
	}
	if err := s.Set(ctx, "k", 1, time.Microsecond); err == nil {
		t.Error("Set with a sub-millisecond interval: no error")
	}
}

func TestRedisStoreClose(t *testing.T) {
	s := newRedisStore(t, 3, time.Minute)
	ctx := context.Background()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok, err := s.Take(ctx, "k"); !errors.Is(err, limiter.ErrStopped) || ok {
		t.Errorf("Take after Close = %v, %v; want ErrStopped", ok, err)
	}
	if _, _, err := s.Get(ctx, "k"); !errors.Is(err, limiter.ErrStopped) {
		t.Errorf("Get after Close: %v", err)
	}
	if err := s.Set(ctx, "k", 1, time.Second); !errors.Is(err, limiter.ErrStopped) {
		t.Errorf("Set after Close: %v", err)
	}
	if err := s.Burst(ctx, "k", 1); !errors.Is(err, limiter.ErrStopped) {
		t.Errorf("Burst after Close: %v", err)
	}
}

func TestNewRedisStoreErrors(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, cfg := range []RedisStoreConfig{
		{Tokens: 1, Interval: time.Second, Prefix: "p"},
		{Client: c, Tokens: 1, Interval: time.Microsecond, Prefix: "p"},
		{Client: c, Tokens: 1, Interval: time.Second},
	} {
		if _, err := NewRedisStore(cfg); err == nil {
			t.Errorf("NewRedisStore(%+v): no error", cfg)
		}
	}
}

// A Redis error reaches the caller as an error with ok false, never as a silent allow.
func TestRedisStoreDown(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer c.Close()
	s, err := NewRedisStore(RedisStoreConfig{Client: c, Tokens: 1, Interval: time.Second, Prefix: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok, err := s.Take(context.Background(), "k"); err == nil || ok {
		t.Errorf("Take with Redis down = %v, %v; want an error and not ok", ok, err)
	}
}
