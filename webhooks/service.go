package webhooks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/store"
)

// Schedule is the wait before each retry of a failed delivery (docs/webhooks.md): after the
// first attempt fails, 5 s; then 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. A delivery is
// attempted len(Schedule)+1 times in all, over about 28 hours.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// DisableAfter is how long an endpoint may fail every attempt before it is disabled.
const DisableAfter = 72 * time.Hour

// RotationOverlap is how long the previous secret still signs after a rotation.
const RotationOverlap = 24 * time.Hour

// Attempt bounds (docs/webhooks.md): a 2xx within Timeout is success; of the response, at
// most BodyLimit bytes are read and kept.
const (
	Timeout   = 10 * time.Second
	BodyLimit = 4 << 10
)

const queue = "webhooks"

// Config is what the delivery service needs; cmd builds it.
type Config struct {
	Store *store.Store
	// URLs judges endpoint URLs at every delivery, and its guard every connection.
	URLs URLPolicy
	// Now is the clock retries and disabling are computed with; nil means time.Now.
	Now func() time.Time
	// Columns names the fields a record of a resource shows (the catalogue's), so an event's
	// record carries exactly what GET returns; nil keeps the stored row whole.
	Columns func(resource string) []string
	Logger  *slog.Logger
	// Registerer receives the metrics; nil registers none.
	Registerer prometheus.Registerer
	// Workers bounds concurrent deliveries per process (default 32); PerEndpoint bounds them
	// per endpoint (default 16) across every process sharing the database, so one slow
	// receiver cannot take every worker, nor get more requests as replicas are added.
	Workers, PerEndpoint int
	// Poll is how often the dispatcher looks for new events, and River for due retries
	// (default 100 ms; River is also woken at once by its own inserts).
	Poll time.Duration
	// Timeout bounds each attempt; 0 means Timeout.
	Timeout time.Duration
	// RetrySpeedup divides every wait of Schedule (an operator's drill, tests); 0 or 1
	// keeps the schedule as documented. DisableAfter is not divided.
	RetrySpeedup int
	// Retention is how long deliveries and events are kept (retention.go); 0 means
	// DefaultRetention.
	Retention time.Duration
	// MoreWork adds other background work's workers to the River client and returns its
	// queues (imports/). A process has one River client: River's elected leader rescues
	// the stuck jobs of every kind, and discards those of kinds its own client lacks.
	MoreWork []func(*river.Workers) map[string]river.QueueConfig
}

// Service dispatches outbox events to deliveries and works them on River.
type Service struct {
	cfg   Config
	river *river.Client[pgx.Tx]
	http  *http.Client
	m     metrics
	// holder marks the rows of webhook_slots this process holds (slots.go).
	holder   string
	mu       sync.Mutex
	holdings map[string]*holding // per endpoint
	slots    sync.Map            // endpoints whose shared slots (webhook_slots) exist
	stop     context.CancelFunc
	done     chan struct{}
	// hook, when set (export_test.go), runs at the start of each round of dispatch,
	// upkeep and delivery, named by where, inside the recovery of survive.
	hook func(where string)
}

type metrics struct {
	attempts   *prometheus.CounterVec
	dispatched prometheus.Counter
	// dispatchFailed counts outbox events set aside because they could not be dispatched.
	dispatchFailed prometheus.Counter
	disabled       prometheus.Counter
	lag            prometheus.Gauge
	panics         *prometheus.CounterVec
}

// New builds the service; Start runs it.
func New(cfg Config) (*Service, error) {
	cfg.Logger = cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Workers = cmp.Or(cfg.Workers, 32)
	cfg.PerEndpoint = cmp.Or(cfg.PerEndpoint, 16)
	cfg.Poll = cmp.Or(cfg.Poll, 100*time.Millisecond)
	cfg.Timeout = cmp.Or(cfg.Timeout, Timeout)
	cfg.RetrySpeedup = max(cfg.RetrySpeedup, 1)
	cfg.Retention = cmp.Or(cfg.Retention, DefaultRetention)
	s := &Service{cfg: cfg, holder: uuid.NewString(), holdings: map[string]*holding{}}
	s.http = &http.Client{
		Transport: cfg.URLs.guard().Transport(nil),
		Timeout:   cfg.Timeout,
		// Redirects are not followed (docs/webhooks.md): a 3xx is a failed attempt.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	s.m = metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workspaced_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome (succeeded, failed)."}, []string{"outcome"}),
		dispatched: prometheus.NewCounter(prometheus.CounterOpts{Name: "workspaced_webhook_deliveries_created_total",
			Help: "Deliveries made from outbox events (one per event and matching endpoint)."}),
		dispatchFailed: prometheus.NewCounter(prometheus.CounterOpts{Name: "workspaced_webhook_dispatch_failures_total",
			Help: "Outbox events set aside because the database refused their deliveries (see webhook_events.dispatch_error)."}),
		disabled: prometheus.NewCounter(prometheus.CounterOpts{Name: "workspaced_webhook_endpoints_disabled_total",
			Help: "Endpoints disabled after failing for 3 days."}),
		lag: prometheus.NewGauge(prometheus.GaugeOpts{Name: "workspaced_webhook_lag_seconds",
			Help: "Seconds from an event's commit to its latest successful delivery."}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workspaced_webhook_panics_total",
			Help: "Panics recovered in webhook work, by where (dispatch, delivery, upkeep); the work went on."}, []string{"in"}),
	}
	if cfg.Registerer != nil {
		for _, c := range []prometheus.Collector{s.m.attempts, s.m.dispatched, s.m.dispatchFailed, s.m.disabled, s.m.lag, s.m.panics} {
			if err := cfg.Registerer.Register(c); err != nil {
				return nil, err
			}
		}
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker{s: s})
	queues := map[string]river.QueueConfig{queue: {MaxWorkers: cfg.Workers}}
	for _, more := range cfg.MoreWork {
		maps.Copy(queues, more(workers))
	}
	client, err := river.NewClient(cfg.Store.RiverDriver(), &river.Config{
		Queues:            queues,
		Workers:           workers,
		Logger:            cfg.Logger,
		FetchCooldown:     5 * time.Millisecond,
		FetchPollInterval: cfg.Poll,
		// A job still "running" well past its timeout belongs to a process that died
		// (SIGKILL, a lost host), and River's rescuer makes it available again: a crash
		// delays a delivery by about a minute instead of River's default hour.
		JobTimeout:           s.jobTimeout(),
		RescueStuckJobsAfter: cfg.Timeout + 20*time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("webhooks: river: %w", err)
	}
	s.river = client
	return s, nil
}

// River is the River client, which queues the jobs of MoreWork too.
func (s *Service) River() *river.Client[pgx.Tx] { return s.river }

// Start runs River's workers and the dispatcher until Stop.
func (s *Service) Start(ctx context.Context) error {
	if err := s.river.Start(ctx); err != nil {
		return err
	}
	ctx, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	s.done = make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { s.dispatchLoop(ctx) })
	wg.Go(func() { s.upkeepLoop(ctx) })
	go func() { wg.Wait(); close(s.done) }()
	return nil
}

// Stop stops dispatching and waits for running deliveries (up to ctx's deadline); a
// delivery cut short is retried by another process or the next start. Once none runs, the
// slots this process holds are released; should one still run, they are left to expire.
func (s *Service) Stop(ctx context.Context) error {
	if s.stop == nil {
		return nil
	}
	s.stop()
	<-s.done
	if err := s.river.Stop(ctx); err != nil {
		return err
	}
	return s.releaseAll(ctx)
}

func (s *Service) dispatchLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		for {
			var n int
			err := s.survive("dispatch", func() (err error) {
				n, err = s.Dispatch(ctx)
				return err
			})
			if err != nil && ctx.Err() == nil && !errors.Is(err, errPanic) {
				s.cfg.Logger.Warn("webhook dispatch failed", "err", err)
			}
			if n < dispatchBatch || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

const dispatchBatch = 500

// Dispatch turns up to dispatchBatch outbox events into deliveries, one per event and
// endpoint subscribed to it at the write that is still enabled, and enqueues a River job
// for each, all in one transaction: rows locked with SKIP LOCKED, so concurrent processes
// split the work and every event is dispatched once. It returns how many events it took.
//
// An event the database refuses to dispatch (a constraint its deliveries would break) must
// not hold back the events after it: when the batch fails so, it is done again with each
// event in a savepoint of its own, and the events that fail are set aside (dispatched, with
// dispatch_error), logged and counted. The usual batch pays for no savepoint.
func (s *Service) Dispatch(ctx context.Context) (int, error) {
	n, err := s.dispatch(ctx, false)
	if _, _, ok := store.RowFault(err); ok {
		n, err = s.dispatch(ctx, true)
	}
	return n, err
}

// outboxEvent is an event as the dispatcher moves it out of the outbox: endpoint names a
// ping's one endpoint, endpoints those subscribed to the event at its write.
type outboxEvent struct {
	id, ws, typ, endpoint string
	endpoints             []string
}

// moveSQL takes up to $1 events from the outbox, the oldest first, skipping those another
// process holds, and moves them to the event log (webhook_events) as dispatched, each with
// its id (a ping brings its own): store/migrations/00034_webhook_outbox.sql.
const moveSQL = `WITH taken AS (
	DELETE FROM webhook_outbox WHERE seq IN (SELECT seq FROM webhook_outbox ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
	RETURNING *)
INSERT INTO webhook_events (seq, id, workspace_id, type, object, object_id, record, changed, endpoint_id, endpoint_ids,
	created_at, dispatched_at)
OVERRIDING SYSTEM VALUE
SELECT seq, coalesce(id, gen_random_uuid()), workspace_id, type, object, object_id, record, changed, endpoint_id,
	endpoint_ids, created_at, now()
  FROM taken ORDER BY seq
RETURNING id::text, workspace_id::text, type, coalesce(endpoint_id::text, ''), coalesce(endpoint_ids::text[], '{}')`

func (s *Service) dispatch(ctx context.Context, isolate bool) (int, error) {
	n := 0
	err := s.cfg.Store.ServiceTx(ctx, "", func(tx pgx.Tx) error {
		var events []outboxEvent
		rows, err := tx.Query(ctx, moveSQL, dispatchBatch)
		if err != nil {
			return err
		}
		if err := store.Scan(rows, func(rows pgx.Rows) error {
			for rows.Next() {
				var e outboxEvent
				if err := rows.Scan(&e.id, &e.ws, &e.typ, &e.endpoint, &e.endpoints); err != nil {
					return err
				}
				events = append(events, e)
			}
			return nil
		}); err != nil {
			return err
		}
		n = len(events)
		if n == 0 {
			return nil
		}
		enabled := map[string][]string{}
		var jobs []river.InsertManyParams
		for _, e := range events {
			if !isolate {
				made, err := s.deliveries(ctx, tx, e, enabled)
				if err != nil {
					return err
				}
				jobs = append(jobs, made...)
				continue
			}
			sp, err := tx.Begin(ctx) // a savepoint
			if err != nil {
				return err
			}
			made, err := s.deliveries(ctx, sp, e, enabled)
			if err == nil && len(made) > 0 {
				_, err = s.river.InsertManyTx(ctx, sp, made)
			}
			if err == nil {
				err = sp.Commit(ctx) // releases the savepoint
			}
			sqlstate, constraint, fault := store.RowFault(err)
			if err != nil && !fault {
				return err
			}
			if err != nil {
				if err := sp.Rollback(ctx); err != nil {
					return err
				}
				if err := s.setAside(ctx, tx, e, sqlstate, constraint); err != nil {
					return err
				}
				continue
			}
			s.m.dispatched.Add(float64(len(made)))
		}
		if len(jobs) > 0 {
			if _, err := s.river.InsertManyTx(ctx, tx, jobs); err != nil {
				return err
			}
		}
		s.m.dispatched.Add(float64(len(jobs)))
		return nil
	})
	return n, err
}

// deliveries makes the delivery rows of event e in tx and returns their River jobs;
// enabled caches each workspace's enabled endpoints for the batch.
func (s *Service) deliveries(ctx context.Context, tx pgx.Tx, e outboxEvent, enabled map[string][]string) ([]river.InsertManyParams, error) {
	if _, err := tx.Exec(ctx, `SELECT set_config('app.workspace_id', $1, true)`, e.ws); err != nil {
		return nil, err
	}
	ids, ok := enabled[e.ws]
	if !ok {
		// Filtered by workspace in the statement: the service's role may bypass RLS.
		rows, err := tx.Query(ctx, `SELECT id::text FROM webhook_endpoints WHERE workspace_id = $1::text::uuid AND enabled`, e.ws)
		if err != nil {
			return nil, err
		}
		if ids, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return nil, err
		}
		enabled[e.ws] = ids
	}
	// An event goes to the endpoints the outbox trigger found subscribed to it at the write
	// that are still enabled, so one created, widened or enabled since gets none of it
	// (docs/webhooks.md); a ping to its one endpoint.
	targets := []string{e.endpoint}
	if e.endpoint == "" {
		targets = slices.DeleteFunc(e.endpoints, func(id string) bool { return !slices.Contains(ids, id) })
	}
	var jobs []river.InsertManyParams
	for _, t := range targets {
		var id string
		err := tx.QueryRow(ctx, `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event_type)
			VALUES ($1::text::uuid, $2::text::uuid, $3::text::uuid, $4) ON CONFLICT DO NOTHING RETURNING id::text`,
			e.ws, t, e.id, e.typ).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, river.InsertManyParams{Args: deliveryArgs{DeliveryID: id, WorkspaceID: e.ws}})
	}
	return jobs, nil
}

// setAside records on event e, moved to the log as dispatched, the reason it could not be,
// and logs and counts it. The reason and the log name the SQLSTATE and the constraint,
// never a value of the event (a driver error's message or detail may quote one).
func (s *Service) setAside(ctx context.Context, tx pgx.Tx, e outboxEvent, sqlstate, constraint string) error {
	reason := "SQLSTATE " + sqlstate
	if constraint != "" {
		reason += " (constraint " + constraint + ")"
	}
	if _, err := tx.Exec(ctx, `UPDATE webhook_events SET dispatch_error = $2 WHERE id = $1::text::uuid`,
		e.id, reason); err != nil {
		return err
	}
	s.m.dispatchFailed.Inc()
	s.cfg.Logger.Error("webhook event set aside: it cannot be dispatched", "event_id", e.id, "workspace_id", e.ws,
		"event_type", e.typ, "sqlstate", sqlstate, "constraint", constraint)
	return nil
}

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
	return river.InsertOpts{Queue: queue, MaxAttempts: len(Schedule) + 1}
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

// result is the outcome of one attempt.
type result struct {
	status     string // succeeded, failed, cancelled
	code       int
	body, err  string
	latency    time.Duration
	acceptedAt time.Time
}

// attempt POSTs the event to the endpoint: the URL checked again first, every connection
// through the guard, no redirects, at most BodyLimit bytes of the answer read.
func (s *Service) attempt(ctx context.Context, t *target) result {
	body, err := json.Marshal(t.ev)
	if err != nil {
		return result{status: "failed", err: "encoding the event: " + err.Error()}
	}
	if err := s.cfg.URLs.Check(ctx, t.url); err != nil {
		return result{status: "failed", err: err.Error()}
	}
	now := s.cfg.Now()
	sig, err := Sign(t.secrets, t.ev.ID, now, body)
	if err != nil {
		return result{status: "failed", err: err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytesReader(body))
	if err != nil {
		return result{status: "failed", err: "bad URL"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "workspaced-webhooks/1")
	req.Header.Set("webhook-id", t.ev.ID)
	req.Header.Set("webhook-timestamp", fmt.Sprint(now.Unix()))
	req.Header.Set("webhook-signature", sig)
	start := time.Now()
	resp, err := s.http.Do(req)
	latency := time.Since(start)
	if err != nil {
		return result{status: "failed", err: describeError(err), latency: latency}
	}
	defer resp.Body.Close()
	first := readAtMost(resp.Body, BodyLimit)
	r := result{code: resp.StatusCode, body: first, latency: latency, status: "failed"}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		r.status = "succeeded"
		r.acceptedAt = time.Now()
	} else {
		r.err = fmt.Sprintf("the endpoint answered %d", resp.StatusCode)
	}
	return r
}

// record stores an attempt's outcome on the delivery and the endpoint, and says whether
// River should retry: an endpoint failing for DisableAfter is disabled with its reason.
func (s *Service) record(ctx context.Context, a deliveryArgs, t *target, r result, attempt, maxAttempts int) error {
	now := s.cfg.Now()
	retry := r.status == "failed" && attempt < maxAttempts
	var next *time.Time
	if retry {
		n := now.Add(s.retryDelay(attempt))
		next = &n
	}
	status := r.status
	if retry {
		status = "pending"
	}
	// What the attempt changes on the endpoint: a success ends a run of failures; a failure
	// starts one, or disables the endpoint once it has lasted DisableAfter.
	var endpointSQL string
	var endpointArgs []any
	disabled := false
	switch r.status {
	case "succeeded":
		if t.failingSince != nil {
			endpointSQL, endpointArgs = `UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1::text::uuid`, []any{t.endpointID}
		}
	case "failed":
		since := now
		if t.failingSince != nil {
			since = *t.failingSince
		}
		switch {
		case now.Sub(since) >= DisableAfter:
			disabled = true
			reason := fmt.Sprintf("disabled at %s: every delivery failed since %s (last: %s)",
				now.UTC().Format(time.RFC3339), since.UTC().Format(time.RFC3339), r.err)
			endpointSQL, endpointArgs = `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2 WHERE id = $1::text::uuid`,
				[]any{t.endpointID, reason}
		case t.failingSince == nil:
			endpointSQL, endpointArgs = `UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1::text::uuid AND failing_since IS NULL`,
				[]any{t.endpointID, now}
		}
	}
	const deliverySQL = `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1,
			last_attempt_at = $3, latency_ms = $4, response_status = nullif($5, 0), response_body = nullif($6, ''),
			error = nullif($7, ''), next_attempt_at = $8, updated_at = now()
		WHERE id = $1::text::uuid`
	deliveryArgs := []any{a.DeliveryID, status, now, int(r.latency / time.Millisecond), r.code, toValidUTF8(r.body), r.err, next}
	var err error
	if endpointSQL == "" { // the usual success: one statement, one round trip
		err = s.cfg.Store.ServiceQuery(ctx, a.WorkspaceID, deliverySQL, deliveryArgs, func(pgx.Rows) error { return nil })
	} else {
		err = s.cfg.Store.ServiceTx(ctx, a.WorkspaceID, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, deliverySQL, deliveryArgs...); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, endpointSQL, endpointArgs...)
			return err
		})
	}
	if err != nil {
		return err
	}
	s.m.attempts.WithLabelValues(r.status).Inc()
	log := s.cfg.Logger.With("delivery_id", a.DeliveryID, "endpoint_id", t.endpointID, "event_type", t.ev.Type,
		"attempt", attempt, "status", r.status, "response_status", r.code, "latency_ms", r.latency.Milliseconds())
	switch {
	case r.status == "succeeded":
		s.m.lag.Set(r.acceptedAt.Sub(t.ev.CreatedAt).Seconds())
		log.Debug("webhook delivered")
	case disabled:
		s.m.disabled.Inc()
		log.Warn("webhook endpoint disabled after failing for 3 days", "err", r.err)
	case retry:
		log.Info("webhook attempt failed; retrying", "err", r.err, "next_attempt_at", next)
		return fmt.Errorf("%w: %s", ErrAttemptFailed, r.err)
	default:
		log.Warn("webhook delivery failed for good", "err", r.err)
	}
	return nil
}
