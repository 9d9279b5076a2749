package webhooks

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/queue"
	"github.com/agencyos/workspaced/store"
)

// Schedule is the wait before each retry of a failed delivery (docs/webhooks.md): after the
// first attempt fails, 5 s; then 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. A delivery is
// attempted len(Schedule)+1 times in all, over about 28 hours.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// DisableAfter is how long an endpoint may fail every attempt before it is disabled.
const DisableAfter = 72 * time.Hour

// Attempt bounds (docs/webhooks.md): a 2xx within Timeout is success; of the response, at
// most BodyLimit bytes are read and kept.
const (
	Timeout   = 10 * time.Second
	BodyLimit = 4 << 10
)

// queueName is the River queue deliveries run on.
const queueName = "webhooks"

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
	queues := map[string]river.QueueConfig{queueName: {MaxWorkers: cfg.Workers}}
	for _, more := range cfg.MoreWork {
		maps.Copy(queues, more(workers))
	}
	client, err := river.NewClient(queue.Driver(cfg.Store), &river.Config{
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
