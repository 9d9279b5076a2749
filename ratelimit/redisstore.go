package ratelimit

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
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
//
// Each redis.call costs redis-server time on the machine the server's requests run on, so
// the request is pushed first, LPUSH giving the count, and popped again if a budget is over
// (the script is atomic, so no one sees that), rather than counted with LLEN and pushed
// after: two calls fewer a take (docs/performance.md, "Rate limits (load run)").
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
  used[i] = redis.call('LPUSH', key, now)
  if used[i] > tonumber(ARGV[2 * i - 1]) then ok = 0 end
end
local out = {ok}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i])
  if ok == 1 then
    redis.call('PEXPIRE', key, interval)
  else
    redis.call('LPOP', key)
    used[i] = used[i] - 1
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
	client rueidis.Client
	script *rueidis.Lua
	// reply bounds each take: rueidis applies ConnWriteTimeout to a connection's reads
	// through a periodic PING, so the first requests sent to a Redis that hung (stopped,
	// or unreachable without a reset) waited 1.8-2.4 s in the service before that PING
	// gave up on the connection; a deadline on the take itself fails them in time
	// (TestDrillRedisHung in cmd/workspaced).
	reply time.Duration
}

// newRedisCounter builds a client for url and does not need Redis up: a service whose
// Redis is down starts and applies its failure policy.
//
// rueidis pipelines automatically: the takes of concurrent requests share one socket
// write and one read, where a client with a connection pool pays a write and a read
// syscall per take (docs/performance.md, "Rate limits").
func newRedisCounter(rawURL string) (*redisCounter, error) {
	if err := checkRedisURLParameters(rawURL); err != nil {
		return nil, err
	}
	opt, err := rueidis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: REDIS_URL: %w", err)
	}
	// A rate limiter sits in front of every request: a slow or down Redis must fail fast
	// into the failure policy rather than stall requests for rueidis's defaults (5 s to
	// dial, 10 minutes for a reply). Values given in the URL (dial_timeout,
	// write_timeout) win.
	if opt.Dialer.Timeout == 0 {
		opt.Dialer.Timeout = time.Second
	}
	if opt.ConnWriteTimeout == 0 {
		opt.ConnWriteTimeout = 500 * time.Millisecond
	}
	// Without it rueidis fails construction when Redis is down (it dials to ask whether
	// Redis is a cluster); with it a failed first dial is retried on the next take. The
	// client is a plain one, as before: every key of a take shares one hash tag so that
	// one script can touch them all on a cluster.
	opt.ForceSingleClient = true
	// Client-side caching is unused; without this every connection turns on CLIENT
	// TRACKING, which an ACL-restricted Redis may refuse.
	opt.DisableCache = true
	client, err := rueidis.NewClient(opt)
	if client == nil {
		return nil, fmt.Errorf("ratelimit: redis client: %w", err)
	}
	// A non-nil err here is the failed first dial: Redis is down, which take reports.
	return &redisCounter{client: client, script: rueidis.NewLuaScript(takeScript), reply: opt.ConnWriteTimeout}, nil
}

// redisURLParameters are the query parameters REDIS_URL takes (README): those
// rueidis.ParseURL reads for a single Redis. It ignores any other, and reads addr and
// master_set as a cluster or Sentinel, which this client is not (ForceSingleClient), so a
// setting that would not take effect is refused at start instead.
var redisURLParameters = []string{"db", "dial_timeout", "write_timeout", "client_name"}

func checkRedisURLParameters(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("ratelimit: REDIS_URL: %w", err)
	}
	for name := range u.Query() {
		switch {
		case slices.Contains(redisURLParameters, name):
		case name == "skip_verify" && u.Scheme == "rediss":
		default:
			return fmt.Errorf("ratelimit: REDIS_URL: parameter %q is not one this service reads (%s; skip_verify with rediss://)",
				name, strings.Join(redisURLParameters, ", "))
		}
	}
	return nil
}

func (r *redisCounter) take(ctx context.Context, cs []charge) ([]usage, bool, error) {
	keys := make([]string, len(cs))
	args := make([]string, 0, 2*len(cs))
	for i, c := range cs {
		keys[i] = c.key
		args = append(args, strconv.FormatUint(c.budget.Tokens, 10), strconv.FormatInt(c.budget.Interval.Milliseconds(), 10))
	}
	ctx, cancel := context.WithTimeout(ctx, r.reply)
	defer cancel()
	vals, err := r.script.Exec(ctx, r.client, keys, args).AsIntSlice()
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
func (r *redisCounter) close() error {
	r.client.Close()
	return nil
}
