package ratelimit

import (
	"context"
	"sync"
	"time"
)

// counter keeps the budgets' request logs, in this process's memory (memoryCounter) or in
// Redis (redisCounter). Both keep the same sliding log and follow the same rules, and
// every Limiter test runs against both:
//
//   - a budget's log holds the times of the requests it allowed in the last Interval; a
//     request is allowed when the log holds fewer than Tokens, so no Interval-long span
//     ever holds more than Tokens allowed requests (a fixed window lets through twice the
//     budget across its boundary);
//   - a request charges every budget it counts against or none: one budget that is spent
//     costs the others nothing.
//
// The rules are written twice, in Go and in the Redis Lua script, because Redis must run
// them next to the data to keep one round trip and atomicity across processes.
// go-limiter's stores (fixed windows, one key per call, no refund) cannot express either
// rule, so this package no longer uses them.
type counter interface {
	// take charges one request, at the counter's current time, to every budget of cs if
	// each has room for it, and to none otherwise; ok reports which. use[i] is cs[i]'s
	// state: with ok, after the charge; without, as the request found it.
	take(ctx context.Context, cs []charge) (use []usage, ok bool, err error)
	close() error
}

// charge names one budget a request counts against.
type charge struct {
	key    string
	budget Budget
}

// usage is one budget's state after a take.
type usage struct {
	used  uint64    // requests in the window
	reset time.Time // when the oldest of them leaves the window (one interval from now if none)
}

// sweepEvery is how often the memory counter forgets logs with nothing left in their
// window, so idle credentials and addresses do not accumulate.
const sweepEvery = time.Minute

// memoryCounter is the counter of one process.
type memoryCounter struct {
	now func() time.Time

	mu        sync.Mutex
	logs      map[string]*requestLog
	lastSweep time.Time
}

// requestLog is one budget's allowed requests, oldest first, in Unix nanoseconds:
// times[head:]. Pruning advances head and compacts only once half the slice is dead, so a
// take costs O(1) amortised even for budgets of millions.
type requestLog struct {
	times    []int64
	head     int
	interval time.Duration
}

// len is the number of requests in the log.
func (lg *requestLog) len() int { return len(lg.times) - lg.head }

func newMemoryCounter(now func() time.Time) *memoryCounter {
	return &memoryCounter{now: now, logs: map[string]*requestLog{}, lastSweep: now()}
}

func (m *memoryCounter) take(_ context.Context, cs []charge) ([]usage, bool, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.lastSweep) >= sweepEvery {
		m.sweep(now.UnixNano())
		m.lastSweep = now
	}
	use := make([]usage, len(cs))
	logs := make([]*requestLog, len(cs))
	ok := true
	for i, c := range cs {
		lg := m.logs[c.key]
		if lg == nil {
			lg = &requestLog{interval: c.budget.Interval}
			m.logs[c.key] = lg
		}
		lg.interval = c.budget.Interval
		lg.prune(now.UnixNano())
		logs[i] = lg
		use[i].used = uint64(lg.len())
		if use[i].used >= c.budget.Tokens {
			ok = false
		}
	}
	for i, lg := range logs {
		if ok {
			lg.times = append(lg.times, now.UnixNano())
			use[i].used++
		}
		use[i].reset = now.Add(lg.interval)
		if lg.len() > 0 {
			use[i].reset = time.Unix(0, lg.times[lg.head]).Add(lg.interval)
		}
	}
	return use, ok, nil
}

// prune drops the times that have left the window ending at now.
func (lg *requestLog) prune(now int64) {
	cutoff := now - lg.interval.Nanoseconds()
	for lg.head < len(lg.times) && lg.times[lg.head] <= cutoff {
		lg.head++
	}
	if lg.head > 0 && 2*lg.head >= len(lg.times) {
		lg.times = lg.times[:copy(lg.times, lg.times[lg.head:])]
		lg.head = 0
	}
}

// sweep forgets the logs whose every request has left its window.
func (m *memoryCounter) sweep(now int64) {
	for k, lg := range m.logs {
		if n := len(lg.times); lg.len() == 0 || lg.times[n-1] <= now-lg.interval.Nanoseconds() {
			delete(m.logs, k)
		}
	}
}

func (m *memoryCounter) close() error { return nil }
