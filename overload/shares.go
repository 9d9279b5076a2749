package overload

import (
	"context"
	"sync"
	"time"
)

// Shares bounds the requests in flight of one class (Capacity) and, within it, what each
// holder may take: every request names its holders, one key per level (a workspace, then
// a credential), and no key holds more than its level's share, whoever else waits. A
// request that finds its class full, or one of its keys at its share, waits in a queue;
// when a request ends, its place goes to the waiting request whose first key holds the
// fewest places (the earliest among equals) and whose keys are all under their shares. So
// a holder that floods waits behind itself, and a quiet one is served next.
//
// A request waits at most Wait, and a key has at most its share of requests waiting:
// beyond that it is refused (a *Refusal saying whether its own keys were at their shares).
type Shares struct {
	capacity int
	shares   []int
	wait     time.Duration

	mu       sync.Mutex
	inFlight int
	held     map[string]int
	waiting  map[string]int
	queue    []*waiter
}

// SharesConfig configures Shares.
type SharesConfig struct {
	Capacity int           // requests in flight; < 1 admits everything
	Shares   []int         // the most one key of each level may hold; < 1: Capacity
	Wait     time.Duration // the longest a request waits for a place
}

type waiter struct {
	keys    []string
	ready   chan struct{}
	granted bool
}

// Refusal is the error of a request Shares did not admit. Own reports whether one of its
// keys held its share (the holder's own requests are what it waited behind: rate-limit
// it); otherwise the class was full of others' requests (the service is overloaded).
type Refusal struct {
	Own   bool
	Share int // the share of the key that was full, when Own
}

func (r *Refusal) Error() string {
	if r.Own {
		return "overload: a holder's share of requests in flight is taken"
	}
	return "overload: the class's requests in flight are at capacity"
}

// NewShares returns Shares for c.
func NewShares(c SharesConfig) *Shares {
	s := &Shares{capacity: c.Capacity, wait: c.Wait, held: map[string]int{}, waiting: map[string]int{}}
	for _, n := range c.Shares {
		if n < 1 || (c.Capacity >= 1 && n > c.Capacity) {
			n = c.Capacity
		}
		s.shares = append(s.shares, n)
	}
	return s
}

// Capacity is the bound on requests in flight.
func (s *Shares) Capacity() int { return s.capacity }

// InFlight is the number of requests admitted and not yet ended.
func (s *Shares) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

// Held is the number of places key holds.
func (s *Shares) Held(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[key]
}

// Acquire admits a request whose holders are keys (one per level, in the levels' order;
// an empty key is not counted), waiting for a place if need be. It returns the function
// that ends the request, which must be called once, or a *Refusal, or ctx's error if ctx
// ended first.
func (s *Shares) Acquire(ctx context.Context, keys ...string) (release func(), err error) {
	if s.capacity < 1 {
		return func() {}, nil
	}
	s.mu.Lock()
	if s.inFlight < s.capacity && s.underShares(keys) {
		s.take(keys)
		s.mu.Unlock()
		return s.releaser(keys), nil
	}
	if full := s.queueFull(keys); full > 0 {
		s.mu.Unlock()
		return nil, &Refusal{Own: true, Share: full}
	}
	w := &waiter{keys: keys, ready: make(chan struct{})}
	s.queue = append(s.queue, w)
	s.count(s.waiting, keys, 1)
	s.mu.Unlock()

	timer := time.NewTimer(s.wait)
	defer timer.Stop()
	var cause error
	select {
	case <-w.ready:
		return s.releaser(keys), nil
	case <-timer.C:
	case <-ctx.Done():
		cause = ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted { // granted while the timer fired
		return s.releaser(keys), nil
	}
	s.dequeue(w)
	if cause != nil {
		return nil, cause
	}
	if share := s.fullShare(keys); share > 0 {
		return nil, &Refusal{Own: true, Share: share}
	}
	return nil, &Refusal{}
}

// underShares reports whether every key holds less than its share.
func (s *Shares) underShares(keys []string) bool { return s.fullShare(keys) == 0 }

// fullShare is the share of the first key holding all of it, or 0.
func (s *Shares) fullShare(keys []string) int {
	for i, k := range keys {
		if k != "" && i < len(s.shares) && s.held[k] >= s.shares[i] {
			return s.shares[i]
		}
	}
	return 0
}

// queueFull is the share of the first key with its share of requests already waiting, or 0.
func (s *Shares) queueFull(keys []string) int {
	for i, k := range keys {
		if k != "" && i < len(s.shares) && s.waiting[k] >= s.shares[i] {
			return s.shares[i]
		}
	}
	return 0
}

func (s *Shares) count(m map[string]int, keys []string, d int) {
	for _, k := range keys {
		if k == "" {
			continue
		}
		if m[k] += d; m[k] == 0 {
			delete(m, k)
		}
	}
}

func (s *Shares) take(keys []string) {
	s.inFlight++
	s.count(s.held, keys, 1)
}

func (s *Shares) dequeue(w *waiter) {
	for i, q := range s.queue {
		if q == w {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			s.count(s.waiting, w.keys, -1)
			return
		}
	}
}

// releaser ends a request once, then hands free places to the waiting.
func (s *Shares) releaser(keys []string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.inFlight--
			s.count(s.held, keys, -1)
			s.dispatch()
		})
	}
}

// dispatch admits waiting requests while there is room: each time the one whose first key
// holds the fewest places, the earliest among equals, among those whose keys are all under
// their shares.
func (s *Shares) dispatch() {
	for s.inFlight < s.capacity {
		best := -1
		for i, w := range s.queue {
			if !s.underShares(w.keys) {
				continue
			}
			if best < 0 || s.held[first(w.keys)] < s.held[first(s.queue[best].keys)] {
				best = i
			}
		}
		if best < 0 {
			return
		}
		w := s.queue[best]
		s.dequeue(w)
		s.take(w.keys)
		w.granted = true
		close(w.ready)
	}
}

func first(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}
