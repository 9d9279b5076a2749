package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	adminops "github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/internal/gctune"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/queue"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/wellknown"
	"github.com/agencyos/workspaced/workspace"
)

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(newSampler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})))
}

func migrate(ctx context.Context, args []string) int {
	cfg, err := parseConfig(flag.NewFlagSet("migrate", flag.ContinueOnError), args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	log := newLogger(os.Stderr, cfg.LogLevel)
	_, closeDB, err := openDatabase(ctx, cfg, log, nil)
	if err != nil {
		log.Error("migrate", "err", err)
		return 1
	}
	defer closeDB()
	fmt.Println(`{"migrated": true}`)
	return 0
}

// openDatabase connects to DATABASE_URL, or starts the private PostgreSQL under the data
// folder, and migrates. The returned func closes the pool and stops a private server.
// observe, when not nil, is told the outcome of every statement (store.Options.Observe).
func openDatabase(ctx context.Context, cfg config, log *slog.Logger, observe func(error)) (*store.Store, func(), error) {
	dsn, stopPG := cfg.DatabaseURL, func() {}
	if dsn == "" {
		var err error
		dsn, stopPG, err = startPrivatePostgres(ctx, cfg.DataDir, log)
		if err != nil {
			return nil, nil, err
		}
	}
	s, err := connect(ctx, dsn, cfg.DB, log, observe)
	if err != nil {
		stopPG()
		return nil, nil, err
	}
	if err := s.Migrate(ctx, log, queue.Migrate); err != nil {
		s.Close()
		stopPG()
		return nil, nil, err
	}
	return s, func() { closePool(s, 3*time.Second, log); stopPG() }, nil
}

// server is the whole process: every surface on one router.
type server struct {
	cfg     config
	log     *slog.Logger
	store   *store.Store
	apiKey  string
	metrics *httpMetrics
	reg     *prometheus.Registry
	guard   *guard
	mail    *adminops.Ops // the console's operations, whose emails shutdown awaits
}

func serve(ctx context.Context, args []string) int {
	cfg, err := parseConfig(flag.NewFlagSet("serve", flag.ContinueOnError), args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	out := newBatchedLog(os.Stderr, 100*time.Millisecond)
	defer out.Close()
	log := newLogger(out, cfg.LogLevel)
	gctune.Apply(os.Getenv("GOGC"), os.Getenv("GOMEMLIMIT"))
	if err := runServer(ctx, cfg, log, os.Stdout); err != nil {
		log.Error("server stopped", "err", err)
		return 1
	}
	return 0
}

// batchedLog gathers log lines and writes them together at most every interval (or when
// its buffer fills): the access log writes a line per request, and one write system call
// per line was a tenth of a GET's server CPU. A crash loses at most the last interval's
// lines; Close writes what is pending.
type batchedLog struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

func newBatchedLog(w io.Writer, interval time.Duration) *batchedLog {
	l := &batchedLog{buf: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				l.flush()
			case <-l.stop:
				l.flush()
				return
			}
		}
	}()
	return l
}

// Write keeps one line (slog writes a record in one call, so lines never interleave).
func (l *batchedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *batchedLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.buf.Flush()
}

// Close writes the pending lines and stops the flusher.
func (l *batchedLog) Close() {
	close(l.stop)
	<-l.done
}

// runServer serves until ctx ends, then shuts down gracefully.
func runServer(ctx context.Context, cfg config, log *slog.Logger, banner io.Writer) error {
	started := time.Now()
	reg := prometheus.NewRegistry()
	var s *store.Store
	g := newGuard(cfg.Shed, cfg.DB.MaxConns, log, reg, func(ctx context.Context) error { return s.Ping(ctx) })
	s, closeDB, err := openDatabase(ctx, cfg, log, g.breaker.Observe)
	if err != nil {
		return err
	}
	defer closeDB()
	bg := newLoops(ctx, log)
	bg.register(reg)
	// Deferred after closeDB, so it runs first: every loop has stopped before the pool closes.
	defer bg.Stop(3 * time.Second)
	apiKey := cfg.APIKey
	if apiKey == "" {
		if apiKey, err = s.Setting(ctx, "apikey", httpx.NewAPIKey); err != nil {
			return err
		}
	}
	srv := &server{cfg: cfg, log: log, store: s, apiKey: apiKey, reg: reg, guard: g}
	srv.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	srv.metrics = newHTTPMetrics(srv.reg)
	if err := srv.forgetStoredDemo(ctx); err != nil {
		return err
	}
	if sampled, ok := log.Handler().(*sampler); ok {
		srv.reg.MustRegister(sampled.collectors()...)
	}

	handler, background, err := srv.routes(ctx)
	if err != nil {
		return err
	}
	tlsConfig, reload, err := srv.tlsConfig()
	if err != nil {
		return err
	}
	background = append(background, loop{"SIGHUP", func(ctx context.Context) { onHangup(ctx, reload) }},
		loop{"database breaker probe", g.breaker.Run})
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return err
	}
	httpServer := &http.Server{Handler: handler, TLSConfig: tlsConfig, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: cfg.ReadTimeout, WriteTimeout: cfg.WriteTimeout, IdleTimeout: 120 * time.Second,
		ErrorLog: serverErrorLog(log)}
	stopMetrics, err := startMetricsListener(cfg, srv.metricsHandler(), log)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopMetrics()
	for _, l := range background {
		bg.Go(l)
	}
	if cfg.DatabaseURL == "" {
		if err := srv.printDemo(ctx, banner, started); err != nil {
			return err
		}
	}
	log.Info("listening", "addr", ln.Addr().String(), "public_url", cfg.PublicURL)
	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			errc <- httpServer.ServeTLS(ln, "", "") // certificates come from tlsConfig; HTTP/2 on
			return
		}
		errc <- httpServer.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	g.drain(cfg.ShutdownDrain, log)
	return shutdown(httpServer, srv.mail, cfg.ShutdownGrace, log)
}

// shutdown stops accepting, lets requests in flight finish for the grace period, then
// closes whatever connections are left: a stop asked for is a clean stop (exit 0), even
// when a client was still trickling a body. What is left of the grace goes to the emails
// those requests asked for ("Forgot password?" sends after answering), so a reset link
// asked for just before a restart still arrives.
func shutdown(httpServer *http.Server, mail *adminops.Ops, grace time.Duration, log *slog.Logger) error {
	log.Info("shutting down", "grace", grace)
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := httpServer.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("grace period over; closing the connections still open")
		err = httpServer.Close()
	} else if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if mail != nil && !mail.Wait(ctx) {
		log.Warn("grace period over; emails still being sent are dropped")
	}
	return err
}

// routes mounts every surface and returns the background loops to run.
func (srv *server) routes(ctx context.Context) (http.Handler, []loop, error) {
	if srv.guard == nil { // tests build the server around a store of their own, unobserved
		srv.guard = newGuard(srv.cfg.Shed, cmp.Or(srv.cfg.DB.MaxConns, store.DefaultMaxConns), srv.log, srv.reg, srv.store.Ping)
	}
	scopes := workspace.Scopes()
	agentKeys := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		return auth.Resolved(srv.store.AgentKeyIdentity(ctx, bearer, scopes))
	})
	limiter, err := srv.limiter()
	if err != nil {
		return nil, nil, err
	}
	trusted, err := ratelimit.ParsePrefixes(srv.cfg.TrustedProxies)
	if err != nil {
		return nil, nil, fmt.Errorf("TRUSTED_PROXIES: %w", err)
	}
	// The cache needs the provider's verifier, and the provider flushes the cache on a
	// revocation before answering it (the notification reaches the other processes).
	var cache *workspace.Cache
	provider, err := srv.newOAuth(ctx, scopes, limiter, trusted, func(payload string) { cache.Flush(payload) })
	if err != nil {
		return nil, nil, err
	}
	cache = workspace.NewCache(workspace.Prefixed{store.PrefixAgentKey: agentKeys,
		store.PrefixAccessToken: provider.Verifier()}, workspace.CacheTTL)
	enricher, err := srv.enricher()
	if err != nil {
		return nil, nil, err
	}
	background := []loop{
		{"revocation listener", func(ctx context.Context) { srv.store.ListenRevocations(ctx, cache.Flush, cache.SetListening) }},
		srv.periodic("token purge", oauth.PurgeEvery, func(ctx context.Context, _ time.Time) error { return provider.PurgeLogged(ctx) }),
		srv.periodic("credit-hold sweep", enrich.SweepEvery, func(ctx context.Context, now time.Time) error {
			return enrich.SweepHolds(ctx, srv.store, now, srv.log)
		}),
		// Idempotency-Keys past their lifetime (store.IdempotencyTTL).
		srv.periodic("idempotency-key sweep", store.IdempotencySweepEvery, func(ctx context.Context, now time.Time) error {
			_, err := store.SweepIdempotencyKeys(ctx, srv.store, now)
			return err
		}),
	}
	importer := srv.imports()
	hooks, hookURLs, deliver, err := srv.webhooks(importer.Register)
	if err != nil {
		return nil, nil, err
	}
	importer.Use(hooks.River())
	background = append(background, loop{"webhook delivery", deliver},
		srv.periodic("webhook retention", webhooks.RetentionEvery, func(ctx context.Context, _ time.Time) error {
			_, _, err := hooks.Prune(ctx)
			return err
		}))
	// Every authenticated request is counted for its credential (the console's usage),
	// in memory, and written every workspace.UsageFlushEvery and at shutdown.
	usage := workspace.NewUsage(srv.store, srv.log, nil)
	counted := usage.Counted(cache)
	background = append(background, loop{"usage flush", func(ctx context.Context) { usage.Run(ctx, workspace.UsageFlushEvery) }})
	// The domain, built once and handed to every adapter: REST, MCP and the console.
	ops := workspace.NewOps(workspace.Config{Store: srv.store, Enricher: enricher, WebhookURLs: hookURLs,
		Webhooks: hooks, Capacities: srv.guard.capacities})
	apiCfg := restapi.Config{Ops: ops, Auth: counted, APIKey: srv.apiKey, Logger: srv.log,
		Limiter: limiter, TrustedProxies: trusted, PublicURL: srv.cfg.PublicURL}
	if srv.cfg.RateLimitsOff {
		srv.log.Warn("rate limits are off (RATE_LIMITS=false): only for load-test baselines")
		apiCfg.Limiter = nil
	}
	api := restapi.New(apiCfg)
	importer.UseOps(ops)
	api.ServeImports(importer)
	stateKey, err := srv.mcpStateKey(ctx)
	if err != nil {
		return nil, nil, err
	}
	tools, err := mcp.New(mcp.Config{PublicURL: srv.cfg.PublicURL, Auth: counted, Ops: ops,
		Limiter: apiCfg.Limiter, TrustedProxies: trusted, Logger: srv.log, AllowedOrigins: splitList(srv.cfg.MCPAllowedOrigins),
		StateKey: stateKey, ConformanceFixtures: srv.cfg.MCPConformanceFixtures})
	if err != nil {
		return nil, nil, err
	}
	var metadata []wellknown.Document
	for _, d := range tools.MetadataDocuments() {
		metadata = append(metadata, wellknown.Document{Path: d.Path, Body: d.Body})
	}
	wellKnown, err := srv.wellKnown(scopes, metadata...)
	if err != nil {
		return nil, nil, err
	}

	r := chi.NewRouter()
	// Recover inside the access log, so a panic's 500 (and a hang-up's 499) is what the
	// log line and the metrics record, on every route: REST, OAuth, MCP, health.
	r.Use(httpx.RequestID, srv.accessLog, httpx.Recover(srv.log), srv.guard.closeWhileDraining)
	if strings.HasPrefix(srv.cfg.PublicURL, "https://") {
		r.Use(hsts)
	}
	// /healthz is the balancer's check (docs/operations.md, "Health checks"): it fails only
	// while this process drains, never for a database outage, which every replica shares
	// and which the service answers itself with 503 and Retry-After.
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if srv.guard.draining.Load() {
			httpx.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
			return
		}
		httpx.WriteJSON(w, 200, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case srv.guard.draining.Load():
			httpx.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
			return
		case srv.guard.breaker.Open():
			httpx.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "database unreachable"})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := srv.store.Ping(ctx); err != nil {
			httpx.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "database unreachable"})
			return
		}
		httpx.WriteJSON(w, 200, map[string]string{"status": "ready"})
	})
	if srv.cfg.MetricsToken != "" {
		r.Handle("/metrics", bearerOnly(srv.cfg.MetricsToken, srv.metricsHandler()))
	}
	// The routes that need the database, each behind the guard with its adapter's classes.
	r.With(srv.guard.shed(restapi.RouteClass)).Mount(restapi.Path, api.Handler())
	r.With(srv.guard.shed(oauth.RouteClass)).Mount("/oauth", provider.Handler())
	if err := srv.mountConsole(r, provider, ops, importer); err != nil {
		return nil, nil, err
	}
	r.Handle("/.well-known/oauth-authorization-server", wellKnown)
	r.Handle(mcp.RootMetadataPath, wellKnown)
	r.Handle(mcp.RootMetadataPath+mcp.Path, wellKnown)
	r.Handle(mcp.RootMetadataPath+mcp.Path+"/*", wellKnown)
	mcpGuarded := r.With(srv.guard.shed(mcp.RouteClass))
	mcpGuarded.Handle(mcp.Path, tools.Handler())
	mcpGuarded.Handle(mcp.Path+"/*", tools.Handler())
	return r, background, nil
}

// accessLog logs one line per request with its id, never the query string (it may hold
// the apikey) nor any header, and feeds the request metrics. It runs on every request, so
// it uses typed attributes (no boxing) and skips the line when info is not logged.
func (srv *server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &statusWriter{ResponseWriter: w, status: 200}
		next.ServeHTTP(rw, r)
		took := time.Since(start)
		route := chi.RouteContext(r.Context()).RoutePattern()
		if route == "" {
			route = "unmatched"
		}
		srv.metrics.observe(route, r.Method, rw.status, took)
		if !srv.log.Enabled(r.Context(), slog.LevelInfo) {
			return
		}
		srv.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", httpx.RequestIDFrom(r.Context())), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.String("route", route), slog.Int("status", rw.status),
			slog.Int64("duration_ms", took.Milliseconds()))
	})
}

// statusWriter remembers the status; Unwrap keeps http.ResponseController (flush for
// streaming MCP responses) working through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int)        { w.status = code; w.ResponseWriter.WriteHeader(code) }
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// httpMetrics are request counts and latency by route and status. The series of one
// route, method and status are looked up once and kept: resolving label values hashes
// them, on every request.
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	series   sync.Map // seriesKey -> series
}

type seriesKey struct {
	route, method string
	status        int
}

type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workspaced_http_requests_total",
			Help: "HTTP requests by route, method and status."}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workspaced_http_request_duration_seconds",
			Help: "HTTP request latency by route and status.", Buckets: prometheus.DefBuckets}, []string{"route", "status"}),
	}
	reg.MustRegister(m.requests, m.latency)
	return m
}

func (m *httpMetrics) observe(route, method string, status int, d time.Duration) {
	k := seriesKey{route, method, status}
	v, ok := m.series.Load(k)
	if !ok {
		s := strconv.Itoa(status)
		v, _ = m.series.LoadOrStore(k, series{m.requests.WithLabelValues(route, methodLabel(method), s), m.latency.WithLabelValues(route, s)})
	}
	s := v.(series)
	s.requests.Inc()
	s.latency.Observe(d.Seconds())
}

// printDemo seeds the demo workspace on the first zero-config start and prints how to call
// the service; later starts print the same demo from the credentials file in DATA_DIR.
func (srv *server) printDemo(ctx context.Context, w io.Writer, started time.Time) error {
	demo, err := srv.demo(ctx)
	if err != nil {
		return err
	}
	u := srv.cfg.PublicURL
	fmt.Fprintf(w, `
workspaced is running (ready in %s) with a private PostgreSQL in %s

  URL            %s
  apikey         %s
  console        %s/console
  workspace id   %s
  demo admin     %s / %s
  demo agent key %s

  curl -H 'apikey: %s' -H 'Authorization: Bearer %s' %s/v1/me

%s
`, time.Since(started).Round(time.Millisecond), srv.cfg.DataDir, u, srv.apiKey, u, demo.WorkspaceID, demo.AdminEmail, demo.AdminPassword,
		demo.AgentKey, srv.apiKey, demo.AgentKey, u, mcpSnippets(u+mcp.Path, demo.AgentKey))
	return nil
}

// mcpSnippets are client configurations and commands that work as printed (README.md and
// docs/mcp.md repeat them; TestBannerSnippets runs the Inspector's command on the first,
// on the Node it names, and mcp-remote's). Without the Authorization header a client
// signs in with OAuth instead.
func mcpSnippets(mcpURL, agentKey string) string {
	return fmt.Sprintf(`  MCP clients (agent key; drop the Authorization header to sign in with OAuth instead):
  MCP Inspector --config, Claude Code .mcp.json, Cursor mcp.json:
  {"mcpServers": {"workspaced": {"type": "http", "url": "%[1]s", "headers": {"Authorization": "Bearer %[2]s"}}}}
  MCP Inspector (Node 22.19 or later), with the line above saved as mcp.json:
  %[3]s
  VS Code .vscode/mcp.json:
  {"servers": {"workspaced": {"type": "http", "url": "%[1]s", "headers": {"Authorization": "Bearer %[2]s"}}}}
  Claude Code:
  claude mcp add --transport http workspaced %[1]s --header "Authorization: Bearer %[2]s"
  stdio-only clients, through mcp-remote:
  npx -y mcp-remote@0.15.1 %[1]s --header "Authorization: Bearer %[2]s"
`, mcpURL, agentKey, inspectorCommand)
}

// inspectorCommand lists the tools with the MCP Inspector's CLI, pinned: npx without a
// version picks, on Node 20, the newest Inspector whose declared engines allow it (0.15.0),
// which cannot send the Authorization header and fails with "spawn undefined ENOENT".
// Inspector 2.x declares Node 22.19 or later, and the banner and docs say so.
const inspectorCommand = "npx -y @modelcontextprotocol/inspector@2.12.0 --cli --config mcp.json --server workspaced --method tools/list"

// mcpStateKey is MCP_STATE_KEY, or else the key generated on the first start and kept in
// the database, so every replica seals and opens MCP confirmations with the same key.
func (srv *server) mcpStateKey(ctx context.Context) ([]byte, error) {
	text := srv.cfg.MCPStateKey
	if text == "" {
		var err error
		text, err = srv.store.Setting(ctx, "mcp_state_key", func() string {
			k := make([]byte, mcp.StateKeySize)
			_, _ = rand.Read(k)
			return base64.RawURLEncoding.EncodeToString(k)
		})
		if err != nil {
			return nil, err
		}
	}
	return decodeStateKey(text)
}
