package ratelimit

import (
	"context"
	"fmt"
	"sync"
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
//
// Takes are batched the natural way: a take waits for no timer; it goes to Redis at once
// when a sender is idle, and takes that arrive while every sender has a round trip in
// flight go together in the next one, as one pipeline. Under load this spends one round
// trip (two syscalls each side) on many requests instead of one each; alone, a take
// costs what an unbatched one does.
type redisCounter struct {
	client *redis.Client
	script *redis.Script
	queue  chan *pendingTake
	done   chan struct{}
	wg     sync.WaitGroup
}

// pendingTake is one take waiting for its batch's round trip.
type pendingTake struct {
	keys   []string
	args   []any
	result chan takeResult // buffered: the sender never blocks on a caller that gave up
}

type takeResult struct {
	vals []int64
	err  error
}

const (
	// redisSenders is the number of round trips in flight at once.
	redisSenders = 4
	// maxBatch bounds one pipeline.
	maxBatch = 64
)

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
	r := &redisCounter{client: redis.NewClient(opt), script: redis.NewScript(takeScript),
		queue: make(chan *pendingTake, maxBatch), done: make(chan struct{})}
	for range redisSenders {
		r.wg.Add(1)
		go r.send()
	}
	return r, nil
}

func (r *redisCounter) take(ctx context.Context, cs []charge) ([]usage, bool, error) {
	t := &pendingTake{keys: make([]string, len(cs)), args: make([]any, 0, 2*len(cs)), result: make(chan takeResult, 1)}
	for i, c := range cs {
		t.keys[i] = c.key
		t.args = append(t.args, c.budget.Tokens, c.budget.Interval.Milliseconds())
	}
	var res takeResult
	select {
	case r.queue <- t:
	case <-r.done:
		return nil, false, ErrClosed
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	select {
	case res = <-t.result:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	if res.err != nil {
		return nil, false, fmt.Errorf("ratelimit: redis take: %w", res.err)
	}
	vals := res.vals
	if len(vals) != 1+2*len(cs) {
		return nil, false, fmt.Errorf("ratelimit: redis take: %d values, want %d", len(vals), 1+2*len(cs))
	}
	use := make([]usage, len(cs))
	for i := range use {
		use[i] = usage{used: uint64(vals[1+2*i]), reset: time.UnixMilli(vals[2+2*i])}
	}
	return use, vals[0] == 1, nil
}

// send is one sender: it takes what is queued, up to maxBatch, and runs it as one
// pipeline, until close.
func (r *redisCounter) send() {
	defer r.wg.Done()
	batch := make([]*pendingTake, 0, maxBatch)
	for {
		batch = batch[:0]
		select {
		case t := <-r.queue:
			batch = append(batch, t)
		case <-r.done:
			return
		}
	more:
		for len(batch) < maxBatch {
			select {
			case t := <-r.queue:
				batch = append(batch, t)
			default:
				break more
			}
		}
		r.run(batch)
	}
}

// run sends a batch as one pipeline of EVALSHA; if Redis lost the script (restart,
// SCRIPT FLUSH), it loads it and sends the batch again, once.
func (r *redisCounter) run(batch []*pendingTake) {
	ctx := context.Background() // the client's read and write timeouts bound the round trip
	cmds := make([]*redis.Cmd, len(batch))
	exec := func() error {
		_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, t := range batch {
				cmds[i] = r.script.EvalSha(ctx, p, t.keys, t.args...)
			}
			return nil
		})
		return err
	}
	err := exec()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		if err = r.script.Load(ctx, r.client).Err(); err == nil {
			err = exec()
		}
	}
	for i, t := range batch {
		var res takeResult
		if cmds[i] != nil {
			res.vals, res.err = cmds[i].Int64Slice()
		}
		if res.err == nil && err != nil && cmds[i] == nil {
			res.err = err
		}
		t.result <- res
	}
}

// close stops the senders and closes the client. The counts in Redis stay: other
// processes share them.
func (r *redisCounter) close() error {
	close(r.done)
	r.wg.Wait()
	return r.client.Close()
}
