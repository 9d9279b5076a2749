package webhooks

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Slots (docs/webhooks.md, "Delivery"): at most PerEndpoint attempts run at once to one
// endpoint across every process sharing the database, because each runs on one of the
// endpoint's PerEndpoint rows of webhook_slots (store/migrations/00027_webhooks_cost_slots.sql)
// and a row serves one process at a time. A process leases rows in batches, not per
// attempt: per endpoint it keeps a holding, rows marked with its holder id
// (00028_webhook_slot_holdings.sql) and leased until the database's now() + leaseFor. The
// holding grows on demand, is renewed every renewEvery while in use, shrinks to the demand
// it saw over the last interval and is released once idle for one, so other processes can
// take the rows; an attempt only takes one of the holding's rows in memory. A process
// that dies leaves its rows to expire after leaseFor.
//
// Safety: an attempt starts only while the holding's lease, counted on this process's
// monotonic clock from just before the statement that set it was sent (so never later than
// the database's held_until), outlasts now + jobTimeout, the longest a job, and so its
// attempt, can run. When renewals fail, the lease runs out here before it does in the
// database, and attempts stop starting. Times of the lease are the database's: the
// processes' clocks need not agree.

// holding is this process's rows of one endpoint.
type holding struct {
	endpoint string
	mu       sync.Mutex
	slots    []int32   // the rows held (their slot numbers)
	until    time.Time // the lease's end on the monotonic clock
	inUse    int       // attempts running on the holding's rows
	waiting  int       // deliveries in acquire
	peak     int       // most of inUse+waiting since the last upkeep: the demand to keep rows for
	busy     bool      // a statement on the holding's rows is under way (one at a time, so a release cannot cross a renewal)
	dryAt    time.Time // when a grow last found fewer free rows than it wanted
	changed  chan struct{}
}

// broadcast wakes the deliveries waiting on h; h.mu is held.
func (h *holding) broadcast() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// errNoSlot: other processes hold every row of the endpoint, none held here.
var errNoSlot = errors.New("webhooks: every slot of the endpoint is held by other processes")

// holdingOf returns the endpoint's holding, made empty on first use.
func (s *Service) holdingOf(endpoint string) *holding {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.holdings[endpoint]
	if !ok {
		h = &holding{endpoint: endpoint, changed: make(chan struct{})}
		s.holdings[endpoint] = h
	}
	return h
}

// acquire takes one of the endpoint's rows held here for an attempt, growing or renewing
// the holding when needed, and returns the function that gives it back. It waits while
// every row held here is in use (trying to grow again every slotWait), and returns
// errNoSlot when none is held and none is free.
func (s *Service) acquire(ctx context.Context, endpoint string) (func(), error) {
	if err := s.ensureSlots(ctx, endpoint); err != nil {
		return nil, err
	}
	h := s.holdingOf(endpoint)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.waiting++
	defer func() { h.waiting-- }()
	for {
		h.peak = max(h.peak, h.inUse+h.waiting)
		now := time.Now()
		usable := now.Add(s.jobTimeout()).Before(h.until)
		if usable && h.inUse < len(h.slots) {
			h.inUse++
			return func() { s.giveBack(h) }, nil
		}
		if !h.busy {
			want := min(s.cfg.PerEndpoint, h.inUse+h.waiting) - len(h.slots)
			grow := want > 0 && now.Sub(h.dryAt) >= slotWait
			if grow || (!usable && len(h.slots) > 0) {
				n := 0 // a renewal only
				if grow {
					n = want
				}
				if err := s.refresh(ctx, h, n, nil); err != nil {
					return nil, err
				}
				continue
			}
			if len(h.slots) == 0 {
				return nil, errNoSlot
			}
		}
		// Wait for a row to come back, a statement's answer, or the time to grow again.
		ch := h.changed
		h.mu.Unlock()
		t := time.NewTimer(slotWait)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		h.mu.Lock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// giveBack ends an attempt's use of its row.
func (s *Service) giveBack(h *holding) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inUse--
	h.broadcast()
}

// refreshSQL, in one statement on one endpoint's rows: releases the holder's rows listed
// in $5, renews its other rows whose lease still runs, and takes up to $4 free rows
// (held_until passed, whoever held them, this holder too, but not those it releases)
// among slots 0 .. $6-1, skipping rows another statement has locked. It returns the rows
// now held, and whether each was just taken. A row whose lease lapsed is not renewed: it
// is free, and a holding that lost it grows again when its deliveries need it.
const refreshSQL = `WITH released AS (
		UPDATE webhook_slots SET holder = NULL, held_until = '-infinity'
		WHERE endpoint_id = $1::text::uuid AND holder = $2::uuid AND slot = ANY($5::int[])),
	kept AS (
		UPDATE webhook_slots SET held_until = now() + $3::bigint * interval '1 millisecond'
		WHERE endpoint_id = $1::text::uuid AND holder = $2::uuid AND slot <> ALL($5::int[]) AND held_until > now()
		RETURNING slot),
	free AS (
		SELECT slot FROM webhook_slots WHERE endpoint_id = $1::text::uuid AND slot < $6
			AND held_until <= now() AND slot <> ALL($5::int[]) LIMIT $4 FOR UPDATE SKIP LOCKED),
	taken AS (
		UPDATE webhook_slots w SET holder = $2::uuid, held_until = now() + $3::bigint * interval '1 millisecond'
		FROM free WHERE w.endpoint_id = $1::text::uuid AND w.slot = free.slot RETURNING w.slot)
	SELECT slot, false FROM kept UNION ALL SELECT slot, true FROM taken`

// refresh runs refreshSQL for h: h.mu is held on entry and on return, released while the
// statement runs (h.busy set meanwhile). The rows it returns become the holding, with a
// lease counted from just before the statement was sent; on an error the holding keeps its
// rows and its lease's old end.
func (s *Service) refresh(ctx context.Context, h *holding, want int, release []int32) error {
	h.busy = true
	h.mu.Unlock()
	if release == nil {
		release = []int32{} // not NULL: "slot <> ALL(NULL)" would keep no row
	}
	sent := time.Now()
	var held []int32
	taken := 0
	err := s.cfg.Store.ServiceQuery(ctx, "", refreshSQL,
		[]any{h.endpoint, s.holder, s.leaseFor().Milliseconds(), want, release, s.cfg.PerEndpoint},
		func(rows pgx.Rows) error {
			for rows.Next() {
				var slot int32
				var isNew bool
				if err := rows.Scan(&slot, &isNew); err != nil {
					return err
				}
				held = append(held, slot)
				if isNew {
					taken++
				}
			}
			return rows.Err()
		})
	h.mu.Lock()
	h.busy = false
	defer h.broadcast()
	if err != nil {
		return err
	}
	h.slots, h.until = held, sent.Add(s.leaseFor())
	if taken < want {
		h.dryAt = time.Now()
	}
	return nil
}

// renewEvery is how often the holdings are kept up (upkeep): a quarter of what a lease
// lasts beyond jobTimeout, so renewals may fail or be late three times running before
// attempts stop starting.
func (s *Service) renewEvery() time.Duration { return (s.leaseFor() - s.jobTimeout()) / 4 }

// upkeepLoop keeps the holdings up every renewEvery until ctx ends.
func (s *Service) upkeepLoop(ctx context.Context) {
	t := time.NewTicker(s.renewEvery())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_ = s.survive("upkeep", func() error {
			s.mu.Lock()
			holdings := make([]*holding, 0, len(s.holdings))
			for _, h := range s.holdings {
				holdings = append(holdings, h)
			}
			s.mu.Unlock()
			for _, h := range holdings {
				if err := s.keepUp(ctx, h); err != nil && ctx.Err() == nil {
					s.cfg.Logger.Warn("webhook slots not renewed", "endpoint_id", h.endpoint, "err", err)
				}
			}
			return nil
		})
	}
}

// keepUp shrinks h to the most rows its deliveries used or waited for since the last
// upkeep (so a holding idle for a whole interval is released) and renews what is left.
func (s *Service) keepUp(ctx context.Context, h *holding) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.busy || len(h.slots) == 0 {
		return nil
	}
	keep := max(h.peak, h.inUse)
	h.peak = h.inUse + h.waiting
	var release []int32
	if keep < len(h.slots) {
		// Dropped here first, so no attempt starts on them from now on.
		release = append(release, h.slots[keep:]...)
		h.slots = h.slots[:keep]
	}
	return s.refresh(ctx, h, 0, release)
}

// releaseAll gives back every row this process holds, at Stop once no attempt runs.
func (s *Service) releaseAll(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var endpoints []string
	for e, h := range s.holdings {
		h.mu.Lock()
		h.slots = nil
		h.mu.Unlock()
		endpoints = append(endpoints, e)
	}
	if len(endpoints) == 0 {
		return nil
	}
	return s.cfg.Store.ServiceQuery(ctx, "", `UPDATE webhook_slots SET holder = NULL, held_until = '-infinity'
		WHERE endpoint_id = ANY($1::text[]::uuid[]) AND holder = $2::uuid`, []any{endpoints, s.holder},
		func(pgx.Rows) error { return nil })
}

// slotWaitContext is ctx, ending early enough that an attempt that takes a slot at its end
// still has Timeout and recordTime left before the job's deadline.
func (s *Service) slotWaitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, deadline.Add(-s.cfg.Timeout-recordTime))
}

// recordTime is the part of jobTimeout beyond Timeout kept for recording an attempt.
const recordTime = 2 * time.Second

// ensureSlots makes the endpoint's PerEndpoint shared slots, once per endpoint and process.
func (s *Service) ensureSlots(ctx context.Context, endpoint string) error {
	if _, ok := s.slots.Load(endpoint); ok {
		return nil
	}
	err := s.cfg.Store.ServiceQuery(ctx, "", `INSERT INTO webhook_slots (endpoint_id, slot)
		SELECT $1::text::uuid, g FROM generate_series(0, $2::int - 1) g ON CONFLICT DO NOTHING`,
		[]any{endpoint, s.cfg.PerEndpoint}, func(pgx.Rows) error { return nil })
	if err == nil {
		s.slots.Store(endpoint, true)
	}
	return err
}

// slotWait is about how long a delivery waits on the queue when every slot of its endpoint
// is held by other processes (jittered up to twice that, so waiting deliveries spread
// out), and how often a holding whose rows are all in use tries to grow.
const slotWait = 100 * time.Millisecond

// jobTimeout bounds one run of a delivery job: an attempt takes at most Timeout plus its
// two short transactions.
func (s *Service) jobTimeout() time.Duration { return s.cfg.Timeout + 5*time.Second }

// leaseFor is how long a lease of slots lasts from its last renewal (slots.go): attempts
// start only while it outlasts a job's timeout, past which River has cancelled the
// attempt, so a slot whose lease ran out belongs to no running attempt.
func (s *Service) leaseFor() time.Duration { return s.jobTimeout() + 5*time.Second }
