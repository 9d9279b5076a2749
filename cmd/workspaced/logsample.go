package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// sampler keeps an outage from flooding the log: of the records that repeat during one
// (warnings and errors, and access lines of 5xx answers), the first of each kind in a
// second is written and the rest counted, the count riding on the next one written as
// "suppressed". Every record, written or not, is counted in /metrics, so the rate of
// failures stays visible. A kind is the message with the record's code, route and status.
type sampler struct {
	next  slog.Handler
	state *sampleState
}

type sampleState struct {
	mu     sync.Mutex
	kinds  map[string]*kind
	every  time.Duration
	errors prometheus.Counter // warnings and errors seen
	quiet  prometheus.Counter // records suppressed
}

type kind struct {
	last       time.Time
	suppressed int
}

func newSampler(next slog.Handler) *sampler {
	return &sampler{next: next, state: &sampleState{kinds: map[string]*kind{}, every: time.Second,
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: "workspaced_log_errors_total",
			Help: "Warnings and errors the process logged or would have logged, sampling aside."}),
		quiet: prometheus.NewCounter(prometheus.CounterOpts{Name: "workspaced_log_suppressed_total",
			Help: "Repeated log records left out by sampling (counted in the next record of their kind)."}),
	}}
}

// collectors are the sampler's counters, for the process registry.
func (s *sampler) collectors() []prometheus.Collector {
	return []prometheus.Collector{s.state.errors, s.state.quiet}
}

func (s *sampler) Enabled(ctx context.Context, l slog.Level) bool { return s.next.Enabled(ctx, l) }

func (s *sampler) Handle(ctx context.Context, r slog.Record) error {
	key, sampled := sampleKey(r)
	if r.Level >= slog.LevelWarn {
		s.state.errors.Inc()
	}
	if !sampled {
		return s.next.Handle(ctx, r)
	}
	st := s.state
	st.mu.Lock()
	k := st.kinds[key]
	if k == nil {
		if len(st.kinds) > 10_000 {
			st.kinds = map[string]*kind{} // bound memory against unbounded kinds
		}
		k = &kind{}
		st.kinds[key] = k
	}
	now := r.Time
	if now.IsZero() {
		now = time.Now()
	}
	if now.Sub(k.last) < st.every {
		k.suppressed++
		st.mu.Unlock()
		st.quiet.Inc()
		return nil
	}
	k.last = now
	n := k.suppressed
	k.suppressed = 0
	st.mu.Unlock()
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("suppressed", n))
	}
	return s.next.Handle(ctx, r)
}

// sampleKey names a record's kind, and reports whether records of it are sampled.
func sampleKey(r slog.Record) (string, bool) {
	sampled := r.Level >= slog.LevelWarn
	key := r.Message
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "status":
			if a.Value.Kind() == slog.KindInt64 && a.Value.Int64() >= 500 {
				sampled = true
			}
			key += "|" + a.Value.String()
		case "code", "route":
			key += "|" + a.Value.String()
		}
		return true
	})
	return key, sampled
}

func (s *sampler) WithAttrs(as []slog.Attr) slog.Handler {
	return &sampler{next: s.next.WithAttrs(as), state: s.state}
}

func (s *sampler) WithGroup(name string) slog.Handler {
	return &sampler{next: s.next.WithGroup(name), state: s.state}
}
