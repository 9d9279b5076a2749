// Package overload keeps a replica answering on a bad day: bounds on the requests in flight
// that refuse the excess at once instead of queueing it (Bound), bounds that also keep each
// holder (a workspace, a credential) within its share and serve the quietest waiting
// holder first (Shares), and a circuit breaker that answers at once while the database
// does not (Breaker). It holds the mechanisms; which requests they guard, and how a
// refusal is written, is the caller's (workspace/capacity.go, cmd/workspaced).
// docs/operations.md ("Overload and a frozen database") says what an operator sees.
package overload

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Bound counts the requests in flight of one class and refuses those beyond its limit.
type Bound struct {
	limit    int64
	inFlight atomic.Int64
}

// NewBound returns a bound of limit requests in flight; limit < 1 admits everything.
func NewBound(limit int) *Bound { return &Bound{limit: int64(limit)} }

// Limit is the bound.
func (b *Bound) Limit() int { return int(b.limit) }

// Enter reports whether one more request may run; if so, the caller must call Leave when
// it ends.
func (b *Bound) Enter() bool {
	if b.limit < 1 {
		return true
	}
	if b.inFlight.Add(1) > b.limit {
		b.inFlight.Add(-1)
		return false
	}
	return true
}

// Leave ends a request Enter admitted.
func (b *Bound) Leave() {
	if b.limit >= 1 {
		b.inFlight.Add(-1)
	}
}

// InFlight is the number of requests admitted and not yet ended.
func (b *Bound) InFlight() int { return int(b.inFlight.Load()) }

// Breaker opens after Threshold database timeouts in a row (no success between them), and
// closes on the first success: of any statement the process runs, or of its own probe,
// which pings the database every ProbeEvery while it is open. While it is open, requests
// that need the database are refused at once (Open) instead of each waiting out its
// deadlines: a frozen database then costs a replica nothing.
type Breaker struct {
	threshold  int64
	probeEvery time.Duration
	probe      func(ctx context.Context) error
	onChange   func(open bool)

	timeouts atomic.Int64
	open     atomic.Bool
	tripped  chan struct{}
}

// DefaultProbeEvery is the pause between a Breaker's probes while it is open, unless its
// configuration names another.
const DefaultProbeEvery = 250 * time.Millisecond

// BreakerConfig configures a Breaker.
type BreakerConfig struct {
	Threshold  int                             // timeouts in a row that open it; < 1 never opens
	ProbeEvery time.Duration                   // pause between probes while open; 0: DefaultProbeEvery
	Probe      func(ctx context.Context) error // one check that the database answers, bounded by ctx
	OnChange   func(open bool)                 // called when it opens or closes (logging, metrics)
}

// NewBreaker returns a closed breaker; Run probes while it is open.
func NewBreaker(c BreakerConfig) *Breaker {
	if c.OnChange == nil {
		c.OnChange = func(bool) {}
	}
	if c.ProbeEvery <= 0 {
		c.ProbeEvery = DefaultProbeEvery
	}
	return &Breaker{threshold: int64(c.Threshold), probeEvery: c.ProbeEvery, probe: c.Probe, onChange: c.OnChange,
		tripped: make(chan struct{}, 1)}
}

// Open reports whether the breaker is open: the database is taken as not answering.
func (b *Breaker) Open() bool { return b.open.Load() }

// Observe records the outcome of one database operation (a statement, a batch, waiting
// for a connection): nil closes the breaker and clears the count, a timeout counts, and
// anything else (a refused statement, a client that went away) says nothing about whether
// the database answers.
func (b *Breaker) Observe(err error) {
	switch {
	case err == nil:
		if b.timeouts.Load() != 0 {
			b.timeouts.Store(0)
		}
		if b.open.Load() && b.open.CompareAndSwap(true, false) {
			b.onChange(false)
		}
	case IsTimeout(err):
		if b.threshold >= 1 && b.timeouts.Add(1) >= b.threshold && b.open.CompareAndSwap(false, true) {
			b.onChange(true)
			select {
			case b.tripped <- struct{}{}:
			default:
			}
		}
	}
}

// IsTimeout reports whether err is a database operation that ran out of time: its
// deadline passed (the client's own cancellation is not one) or the server cancelled the
// statement for its statement_timeout (SQLSTATE 57014).
func IsTimeout(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "57014"
	}
	return errors.Is(err, context.DeadlineExceeded) || (pgconn.Timeout(err) && !errors.Is(err, context.Canceled))
}

// probeTimeout is how long one probe may take: a fresh connection on a busy machine can
// take a few hundred milliseconds, and a probe that is waiting when the database thaws is
// answered at once.
const probeTimeout = time.Second

// Run probes the database while the breaker is open, until ctx ends: a probe at most
// ProbeEvery after the previous one ended, so the first answer after a thaw is seen within
// about ProbeEvery plus a connection's set-up.
func (b *Breaker) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.tripped:
		}
		for b.Open() && ctx.Err() == nil {
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			err := b.probe(pctx)
			cancel()
			if err == nil {
				b.Observe(nil)
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(b.probeEvery):
			}
		}
	}
}
