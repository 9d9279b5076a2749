package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// takeScript is the counter's rules (see counter) in Redis, for every budget of a request
// at once: one round trip, atomic across every process sharing the Redis.
//
// KEYS[i] is budget i's log, a list of request times in Unix milliseconds, newest first;
// ARGV[2i-1] and ARGV[2i] are its tokens and interval in milliseconds. It returns {ok,
// used 1, reset 1, used 2, reset 2, ...}, resets in Unix milliseconds. Times come from the
// Redis server's clock (TIME), not the callers', so processes with skewed clocks still
// count one window. Every key a request touches shares one hash tag (Limiter.Take), so
// the script also runs on Redis Cluster. Pruning pops from the old end, each entry once:
// a take costs O(1) amortised whatever the budget.
const takeScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ok = 1
local used, oldest = {}, {}
for i, key in ipairs(KEYS) do
  local cutoff = now - tonumber(ARGV[2 * i])
  while true do
    oldest[i] = tonumber(redis.call('LINDEX', key, -1))
    if not oldest[i] or oldest[i] > cutoff then break end
    redis.call('RPOP', key)
  end
  used[i] = redis.call('LLEN', key)
  if used[i] >= tonumber(ARGV[2 * i - 1]) then ok = 0 end
end
local out = {ok}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i])
  if ok == 1 then
    used[i] = redis.call('LPUSH', key, now)
    redis.call('PEXPIRE', key, interval)
  end
  out[#out + 1] = used[i]
  out[#out + 1] = (oldest[i] or now) + interval
end
return out
`

// redisCounter is the counter shared by every process using the same Redis and prefix.
// It returns Redis errors as they are; what a failed take means is the Limiter's policy
// (Config.FailOpen).
type redisCounter struct {
	client *redis.Client
	script *redis.Script
}

// newRedisCounter builds a client for url but does not contact Redis: a service whose
// Redis is down starts and applies its failure policy.
func newRedisCounter(url string) (*redisCounter, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: REDIS_URL: %w", err)
	}
	// A rate limiter sits in front of every request: a slow or down Redis must fail fast
	// into the failure policy rather than stall requests for go-redis's 5 s defaults.
	// Values given in the URL win.
	if opt.DialTimeout == 0 {
		opt.DialTimeout = time.Second
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = 500 * time.Millisecond
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = 500 * time.Millisecond
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = 1
	}
	// go-redis dials 5 times 100 ms apart by default, per command attempt: 0.8 s per
	// request with Redis down. One dial per attempt; the pool retries in the background.
	if opt.DialerRetries == 0 {
		opt.DialerRetries = 1
	}
	return &redisCounter{client: redis.NewClient(opt), script: redis.NewScript(takeScript)}, nil
}

func (r *redisCounter) take(ctx context.Context, cs []charge) ([]usage, bool, error) {
	keys := make([]string, len(cs))
	args := make([]any, 0, 2*len(cs))
	for i, c := range cs {
		keys[i] = c.key
		args = append(args, c.budget.Tokens, c.budget.Interval.Milliseconds())
	}
	vals, err := r.script.Run(ctx, r.client, keys, args...).Int64Slice()
	if err != nil {
		return nil, false, fmt.Errorf("ratelimit: redis take: %w", err)
	}
	if len(vals) != 1+2*len(cs) {
		return nil, false, fmt.Errorf("ratelimit: redis take: %d values, want %d", len(vals), 1+2*len(cs))
	}
	use := make([]usage, len(cs))
	for i := range use {
		use[i] = usage{used: uint64(vals[1+2*i]), reset: time.UnixMilli(vals[2+2*i])}
	}
	return use, vals[0] == 1, nil
}

// close closes the client. The counts in Redis stay: other processes share them.
func (r *redisCounter) close() error { return r.client.Close() }
