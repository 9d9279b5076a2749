package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sethvargo/go-limiter"
)

var _ limiter.Store = (*RedisStore)(nil)

// overrideTTL is how long a per-key limit written by Set outlives the key's last Take. It
// matches memorystore's default SweepMinTTL, after which that store forgets a bucket too.
const overrideTTL = 12 * time.Hour

// The scripts keep a fixed window per key in one hash, KEYS[1] = {w: window start in
// Unix milliseconds, n: tokens used in that window}, expiring at the window's end. KEYS[2]
// holds an optional per-key override {t: tokens, i: interval in ms} written by Set. The
// window comes from the Redis server's clock (TIME), not the caller's, so processes with
// skewed clocks still agree on one window and one budget. Every script names the keys it
// touches in KEYS, and both keys of a bucket share a hash tag, so the scripts also run on
// Redis Cluster.
//
// Times leave the scripts in milliseconds: Lua numbers are doubles, and Unix nanoseconds
// (about 1.8e18) do not fit in their 53 bits; the Go side multiplies.

// scriptPrelude reads the bucket's limit and the current window into locals.
const scriptPrelude = `
local tokens = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local cfg = redis.call('HMGET', KEYS[2], 't', 'i')
if cfg[1] and cfg[2] then
  tokens = tonumber(cfg[1])
  interval = tonumber(cfg[2])
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = now - (now % interval)
local reset = window + interval
local cur = redis.call('HMGET', KEYS[1], 'w', 'n')
local used = 0
if cur[1] and tonumber(cur[1]) == window then
  used = tonumber(cur[2])
end
`

// takeScript returns {tokens, remaining, reset ms, ok}. A denied take writes nothing, so a
// client hammering an exhausted bucket costs reads only.
const takeScript = scriptPrelude + `
if used >= tokens then
  return {tokens, 0, reset, 0}
end
used = used + 1
redis.call('HSET', KEYS[1], 'w', window, 'n', used)
redis.call('PEXPIREAT', KEYS[1], reset)
if cfg[1] then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return {tokens, tokens - used, reset, 1}
`

// getScript returns {tokens, remaining} without changing anything.
const getScript = scriptPrelude + `
local remaining = tokens - used
if remaining < 0 then remaining = 0 end
return {tokens, remaining}
`

// burstScript lowers the current window's use by ARGV[4], which may take it below zero
// (remaining above the limit) until the window ends, like memorystore's Burst.
const burstScript = scriptPrelude + `
used = used - tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'w', window, 'n', used)
redis.call('PEXPIREAT', KEYS[1], reset)
return 1
`

// setScript writes the override and starts the bucket full, as limiter.Store's Set says.
const setScript = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 't', ARGV[1], 'i', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`

// RedisStoreConfig configures a RedisStore.
type RedisStoreConfig struct {
	// Client runs the scripts. The store does not own it: closing the store leaves the
	// client open, because a service usually shares one client between several stores.
	Client redis.Scripter

	// Tokens is the number of takes allowed per key and interval.
	Tokens uint64

	// Interval is the length of the fixed window. It is counted in whole milliseconds
	// and must be at least one.
	Interval time.Duration

	// Prefix starts every Redis key of this store, so that stores with different
	// budgets, and tests, never share keys.
	Prefix string
}

// RedisStore is a limiter.Store over Redis: a fixed window per key, counted by one
// atomic Lua script per operation, so every process that points at the same Redis and
// Prefix draws from one budget. It returns backend errors as they are; deciding what a
// failed Take means is the caller's policy (see Config.FailOpen).
type RedisStore struct {
	client     redis.Scripter
	tokens     uint64
	intervalMS int64
	prefix     string

	take, get, burst, set *redis.Script

	stopped atomic.Bool
}

// NewRedisStore returns a RedisStore for cfg. It does not contact Redis, so a service can
// start, and apply its failure policy, while Redis is down.
func NewRedisStore(cfg RedisStoreConfig) (*RedisStore, error) {
	if cfg.Client == nil {
		return nil, errors.New("ratelimit: RedisStoreConfig.Client is nil")
	}
	if cfg.Interval < time.Millisecond {
		return nil, fmt.Errorf("ratelimit: interval %v is shorter than a millisecond", cfg.Interval)
	}
	if cfg.Prefix == "" {
		return nil, errors.New("ratelimit: RedisStoreConfig.Prefix is empty")
	}
	return &RedisStore{
		client:     cfg.Client,
		tokens:     cfg.Tokens,
		intervalMS: cfg.Interval.Milliseconds(),
		prefix:     cfg.Prefix,
		take:       redis.NewScript(takeScript),
		get:        redis.NewScript(getScript),
		burst:      redis.NewScript(burstScript),
		set:        redis.NewScript(setScript),
	}, nil
}

// keys returns the window and override keys of key. The braces make both one Redis
// Cluster hash slot; the distinct last characters keep one key's window from ever being
// another key's override.
func (s *RedisStore) keys(key string) []string {
	base := s.prefix + ":{" + key + "}"
	return []string{base + ":n", base + ":c"}
}

func (s *RedisStore) args(extra ...any) []any {
	return append([]any{s.tokens, s.intervalMS, overrideTTL.Milliseconds()}, extra...)
}

// Take takes one token from key's current window. It returns the key's limit, the tokens
// left, the window's end in Unix nanoseconds, and whether the take succeeded; err is set
// only when Redis could not be asked (or the store is closed: limiter.ErrStopped), in
// which case ok is false.
func (s *RedisStore) Take(ctx context.Context, key string) (tokens, remaining, reset uint64, ok bool, err error) {
	if s.stopped.Load() {
		return 0, 0, 0, false, limiter.ErrStopped
	}
	vals, err := s.take.Run(ctx, s.client, s.keys(key), s.args()...).Int64Slice()
	if err != nil {
		return 0, 0, 0, false, fmt.Errorf("ratelimit: redis take: %w", err)
	}
	if len(vals) != 4 {
		return 0, 0, 0, false, fmt.Errorf("ratelimit: redis take: %d values, want 4", len(vals))
	}
	return uint64(vals[0]), uint64(max(vals[1], 0)), uint64(vals[2]) * uint64(time.Millisecond), vals[3] == 1, nil
}

// Get returns key's limit and the tokens left in its current window without taking
// one. Unlike memorystore, which reports 0, 0 for a key it has never seen, an unseen key
// reports a full bucket: that is what its next Take will find.
func (s *RedisStore) Get(ctx context.Context, key string) (tokens, remaining uint64, err error) {
	if s.stopped.Load() {
		return 0, 0, limiter.ErrStopped
	}
	vals, err := s.get.Run(ctx, s.client, s.keys(key), s.args()...).Int64Slice()
	if err != nil {
		return 0, 0, fmt.Errorf("ratelimit: redis get: %w", err)
	}
	if len(vals) != 2 {
		return 0, 0, fmt.Errorf("ratelimit: redis get: %d values, want 2", len(vals))
	}
	return uint64(vals[0]), uint64(vals[1]), nil
}

// Set gives key its own limit of tokens per interval, overriding the store's, and starts
// its bucket full. The override lasts until 12 hours after the key's last Take.
func (s *RedisStore) Set(ctx context.Context, key string, tokens uint64, interval time.Duration) error {
	if s.stopped.Load() {
		return limiter.ErrStopped
	}
	if interval < time.Millisecond {
		return fmt.Errorf("ratelimit: interval %v is shorter than a millisecond", interval)
	}
	args := []any{tokens, interval.Milliseconds(), overrideTTL.Milliseconds()}
	if err := s.set.Run(ctx, s.client, s.keys(key), args...).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis set: %w", err)
	}
	return nil
}

// Burst adds tokens to key's current window only; the next window starts at the limit
// again.
func (s *RedisStore) Burst(ctx context.Context, key string, tokens uint64) error {
	if s.stopped.Load() {
		return limiter.ErrStopped
	}
	if err := s.burst.Run(ctx, s.client, s.keys(key), s.args(tokens)...).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis burst: %w", err)
	}
	return nil
}

// Close stops the store: later calls return limiter.ErrStopped. It leaves the client and
// the counts in Redis alone, since other processes share them.
func (s *RedisStore) Close(ctx context.Context) error {
	s.stopped.Store(true)
	return nil
}
