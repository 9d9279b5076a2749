package main

import (
	"cmp"
	"context"
	"errors"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/overload"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// guard is what stands between the router and the surfaces on a bad day
// (docs/operations.md, "Drain on restart" and "Overload and a frozen database"):
//   - while draining after SIGTERM, every HTTP/1 response says Connection: close, so
//     clients move to another replica while this one still serves what reaches it;
//   - a bound on the token endpoint's requests in flight refuses the excess at once with
//     503 temporarily_unavailable and Retry-After: 1, instead of letting it queue for a
//     database connection until its deadline; the API's and MCP's operations are bounded
//     after authentication instead, by the fair shares of capacities (workspace/capacity.go,
//     sized by workspace.ClassShares from the settings), since a bound shared by every workspace before
//     authentication lets one workspace's flood refuse the others;
//   - while the circuit breaker is open (the database timed out repeatedly and has not
//     answered since), requests that need the database are refused at once with the same
//     503 a database timeout gives.
//
// Routes that need no database (/healthz, /metrics, discovery documents, static pages) are
// not bounded, so liveness checks keep answering under any load.
type guard struct {
	draining   atomic.Bool
	token      *overload.Bound
	capacities workspace.Capacities
	classes    map[workspace.Class]*overload.Shares
	breaker    *overload.Breaker
	refused    *prometheus.CounterVec
}

// newGuard builds the guard; probe asks the database whether it answers (the breaker's
// probe while it is open).
func newGuard(c shedConfig, maxConns int, log *slog.Logger, reg prometheus.Registerer, probe func(context.Context) error) *guard {
	// The token endpoint's bound, like the classes', is the pool's size unless set
	// (workspace.ClassShares says why).
	g := &guard{token: overload.NewBound(cmp.Or(c.Token, maxConns)),
		classes: workspace.ClassShares(c.CapacityConfig, maxConns),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workspaced_requests_refused_total",
			Help: "Requests refused: reason overloaded (the class full of others' requests), share (the workspace's or credential's share taken: 429) or breaker_open (database not answering)."},
			[]string{"class", "reason"})}
	g.capacities = workspace.Capacities{Read: g.classes[workspace.ClassRead], Search: g.classes[workspace.ClassSearch],
		Write: g.classes[workspace.ClassWrite], SearchTimeout: c.SearchTimeout,
		Refused: func(class workspace.Class, own bool) {
			reason := "overloaded"
			if own {
				reason = "share"
			}
			g.refused.WithLabelValues(string(class), reason).Inc()
		}}
	open := prometheus.NewGauge(prometheus.GaugeOpts{Name: "workspaced_db_breaker_open",
		Help: "1 while the database circuit breaker is open (requests needing the database are refused at once)."})
	g.breaker = overload.NewBreaker(overload.BreakerConfig{Threshold: c.BreakerTimeouts,
		Probe: probe, OnChange: func(isOpen bool) {
			if isOpen {
				open.Set(1)
				log.Error("database timed out repeatedly: refusing requests that need it until it answers", "timeouts_in_a_row", c.BreakerTimeouts)
				return
			}
			open.Set(0)
			log.Warn("database answers again: serving")
		}})
	reg.MustRegister(g.refused, open)
	inFlight := func(class string, n func() int) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "workspaced_requests_in_flight",
			Help: "Requests admitted and not yet answered, by class (bounded by MAX_IN_FLIGHT_*).", ConstLabels: prometheus.Labels{"class": class}},
			func() float64 { return float64(n()) }))
	}
	for class, s := range g.classes {
		inFlight(string(class), s.InFlight)
	}
	inFlight(string(workspace.ClassToken), g.token.InFlight)
	return g
}

// closeWhileDraining asks HTTP/1 clients to close their connection after each response
// once the drain has begun; HTTP/2 has GOAWAY for this, which Shutdown sends.
func (g *guard) closeWhileDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.draining.Load() && r.ProtoMajor == 1 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// shed refuses at once what the breaker does not admit, and token endpoint requests over
// their bound; classOf is the class the adapter behind it names for a request
// (restapi.RouteClass, mcp.RouteClass, oauth.RouteClass), "" for a route that needs no
// database.
func (g *guard) shed(classOf func(*http.Request) workspace.Class) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			class := classOf(r)
			if class == "" {
				next.ServeHTTP(w, r)
				return
			}
			if g.breaker.Open() {
				g.refused.WithLabelValues(string(class), "breaker_open").Inc()
				refuse(w, r, class, store.Unavailable(errBreakerOpen))
				return
			}
			if class != workspace.ClassToken {
				next.ServeHTTP(w, r)
				return
			}
			if !g.token.Enter() {
				g.refused.WithLabelValues(string(class), "overloaded").Inc()
				refuse(w, r, class, workspace.ErrOverloaded)
				return
			}
			defer g.token.Leave()
			next.ServeHTTP(w, r)
		})
	}
}

var errBreakerOpen = errors.New("database circuit breaker open: refused without asking the database")

// refuse writes e in the envelope of the request's surface: OAuth's for the token endpoint
// (RFC 6749 section 5.2, temporarily_unavailable as its endpoints answer an outage), the
// API's otherwise. Nothing is logged here: the access line counts it, sampled.
func refuse(w http.ResponseWriter, r *http.Request, class workspace.Class, e *apierr.Error) {
	if class != workspace.ClassToken {
		httpx.WriteError(w, r, nil, e)
		return
	}
	oauth.WriteUnavailable(w, httpx.Status(e), e.RetryAfter, e.Message)
}

// drain is the start of a stop (docs/operations.md, "Drain on restart"): /readyz answers
// 503 at once and every response says Connection: close, while the server keeps serving
// for d, so a balancer takes the replica out and clients' kept-alive connections move away
// before anything is closed.
func (g *guard) drain(d time.Duration, log *slog.Logger) {
	g.draining.Store(true)
	if d > 0 {
		log.Info("draining: /readyz answers 503 and responses close their connections", "drain", d)
		time.Sleep(d)
	}
}

// serverErrorLog is the HTTP server's own error log (failed TLS handshakes, bad requests
// it answers itself, panics it recovers) through the JSON logger and its sampling: one
// record kind per message, the client's address an attribute, so 250 bad handshakes from
// 250 ports are one line a second with a suppressed count, not 250 raw lines.
func serverErrorLog(l *slog.Logger) *log.Logger { return log.New(serverLogWriter{l}, "", 0) }

type serverLogWriter struct{ l *slog.Logger }

// Write takes one line of net/http's error log (log.Logger writes each in one call).
func (w serverLogWriter) Write(p []byte) (int, error) {
	logServerError(w.l, strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// logServerError writes one line of net/http's error log as a warning: "http: <what> from
// <addr>: <detail>" becomes the message "http server: <what>" with remote and err; any
// other line is "http server error" with the line as err.
func logServerError(l *slog.Logger, line string) {
	if what, rest, ok := strings.Cut(line, " from "); ok && strings.HasPrefix(what, "http: ") {
		remote, detail, _ := strings.Cut(rest, ": ")
		l.Warn("http server: "+strings.TrimPrefix(what, "http: "), "remote", remote, "err", detail)
		return
	}
	l.Warn("http server error", "err", line)
}
