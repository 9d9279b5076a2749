package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// The worker: River runs one job a delivery attempt; it loads the delivery, shapes the
// event, takes a delivery slot (slots.go), attempts (attempt.go) and records (record.go).

// deliveryArgs are a River job's arguments: which delivery and its workspace (so the
// worker can read it under the isolation policy). Jobs queued before slots were held in
// batches also name the endpoint (endpoint_id), which the worker now reads with the
// delivery instead.
type deliveryArgs struct {
	DeliveryID  string `json:"delivery_id"`
	WorkspaceID string `json:"workspace_id"`
}

// Kind names the job kind in River's tables.
func (deliveryArgs) Kind() string { return "webhook_delivery" }

// InsertOpts puts deliveries on their own queue with one attempt per Schedule entry plus the first.
func (deliveryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueName, MaxAttempts: len(Schedule) + 1}
}

type worker struct {
	river.WorkerDefaults[deliveryArgs]
	s *Service
}

// NextRetry follows Schedule on the service's clock, not River's default backoff.
func (w *worker) NextRetry(job *river.Job[deliveryArgs]) time.Time {
	return w.s.cfg.Now().Add(w.s.retryDelay(job.Attempt))
}

// retryDelay is the wait after attempt (1-based) failed: Schedule's, divided by RetrySpeedup.
func (s *Service) retryDelay(attempt int) time.Duration {
	return Schedule[min(max(attempt, 1), len(Schedule))-1] / time.Duration(s.cfg.RetrySpeedup)
}

// Work makes one attempt. A panic in it is a failed attempt (survive): River retries the
// delivery on the schedule.
func (w *worker) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	return w.s.survive("delivery", func() error { return w.s.deliver(ctx, job.Args, job.Attempt, job.MaxAttempts) })
}

// errPanic is wrapped by the error survive returns for a panic, already logged.
var errPanic = errors.New("webhooks: panic")

// survive runs f, one round of background work (a dispatch, an attempt, an upkeep), and
// turns a panic in it into an error wrapping errPanic, logged once with its stack and
// counted in workspaced_webhook_panics_total: one bad event or delivery neither takes the
// process down nor stops the loops, which go on with their next round.
func (s *Service) survive(where string, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.m.panics.WithLabelValues(where).Inc()
			s.cfg.Logger.Error("webhook work panicked; going on", "in", where, "panic", fmt.Sprint(v),
				"stack", string(debug.Stack()))
			err = fmt.Errorf("%w in %s: %v", errPanic, where, v)
		}
	}()
	if s.hook != nil {
		s.hook(where)
	}
	return f()
}

// ErrAttemptFailed is wrapped by the error a failed attempt returns to River, which then
// schedules the next one.
var ErrAttemptFailed = errors.New("webhooks: attempt failed")

// target is what one attempt needs.
type target struct {
	endpointID, url, status string
	enabled                 bool
	failingSince            *time.Time
	secrets                 []string
	ev                      Event
}

func (s *Service) load(ctx context.Context, a deliveryArgs) (*target, error) {
	var t target
	var previous *string
	var previousUntil *time.Time
	var record []byte
	var current string
	found := false
	err := s.cfg.Store.ServiceQuery(ctx, a.WorkspaceID, `SELECT d.status, e.id::text, e.url, e.enabled, e.failing_since, k.secret,
				k.previous_secret, k.previous_expires_at, ev.id::text, ev.type, ev.object, coalesce(ev.object_id::text, ''),
				ev.record, coalesce(ev.changed, '{}'), ev.created_at, ev.seq, ev.workspace_id::text
			FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
			JOIN webhook_secrets k ON k.endpoint_id = e.id JOIN webhook_events ev ON ev.id = d.event_id
			WHERE d.id = $1::text::uuid`, []any{a.DeliveryID}, func(rows pgx.Rows) error {
		if !rows.Next() {
			return nil
		}
		err := rows.Scan(&t.status, &t.endpointID, &t.url, &t.enabled, &t.failingSince,
			&current, &previous, &previousUntil, &t.ev.ID, &t.ev.Type, &t.ev.Object, &t.ev.ObjectID, &record,
			&t.ev.Changed, &t.ev.CreatedAt, &t.ev.Sequence, &t.ev.WorkspaceID)
		if err != nil {
			return err
		}
		found = true
		t.secrets = []string{current}
		if previous != nil && previousUntil != nil && s.cfg.Now().Before(*previousUntil) {
			t.secrets = append(t.secrets, *previous)
		}
		return nil
	})
	if err != nil || !found {
		return nil, err
	}
	t.ev.Record = s.shape(t.ev.Object, record, &t.ev.Changed)
	return &t, nil
}

// shape keeps of a stored row the fields the catalogue shows for its resource.
func (s *Service) shape(object string, record []byte, changed *[]string) json.RawMessage {
	if record == nil {
		return nil
	}
	if s.cfg.Columns == nil {
		return record
	}
	cols := s.cfg.Columns(object)
	var all map[string]json.RawMessage
	if cols == nil || json.Unmarshal(record, &all) != nil {
		return record
	}
	keep := make(map[string]json.RawMessage, len(cols))
	show := map[string]bool{}
	for _, c := range cols {
		if v, ok := all[c]; ok {
			keep[c] = v
		}
		show[c] = true
	}
	kept := (*changed)[:0]
	for _, c := range *changed {
		if show[c] {
			kept = append(kept, c)
		}
	}
	*changed = kept
	b, _ := json.Marshal(keep)
	return b
}

// deliver makes one attempt of a delivery and records it. It returns an error wrapping
// ErrAttemptFailed when River should retry.
func (s *Service) deliver(ctx context.Context, a deliveryArgs, attempt, maxAttempts int) error {
	t, err := s.load(ctx, a)
	if err != nil {
		return err
	}
	if t == nil || t.status == "succeeded" {
		return nil // a re-run after a crash that followed the success, or a vanished row
	}
	if !t.enabled {
		return s.record(ctx, a, t, result{status: "cancelled", err: "the endpoint is disabled"}, attempt, maxAttempts)
	}
	// One of the endpoint's slots (slots.go) for the POST only: loading and logging the
	// delivery send the endpoint nothing. The wait for it ends while the job still has
	// time for a whole attempt and its record: an attempt started later would be cut off
	// by the job's timeout, spent and sent again.
	wait, cancel := s.slotWaitContext(ctx)
	defer cancel()
	done, err := s.acquire(wait, t.endpointID)
	if errors.Is(err, errNoSlot) || (ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded)) {
		// Every slot held by other processes, or by this one for too long: back on the
		// queue, no attempt spent.
		return river.JobSnooze(slotWait + rand.N(slotWait))
	}
	if err != nil {
		return err
	}
	res := func() result { defer done(); return s.attempt(ctx, t) }()
	return s.record(ctx, a, t, res, attempt, maxAttempts)
}
