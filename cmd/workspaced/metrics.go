package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsHandler serves the process's Prometheus registry.
func (srv *server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(srv.reg, promhttp.HandlerOpts{})
}

// bearerOnly lets through requests carrying token as their bearer credential: /metrics on
// the public port, for an operator who set METRICS_TOKEN. Anyone else gets 404, as if the
// route did not exist.
func bearerOnly(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// serveMetrics serves /metrics on its own listener at addr (METRICS_ADDR, loopback by
// default: metrics name routes and volumes, which are not for the world). It returns the
// listener's address and a function that stops it.
func serveMetrics(addr string, h http.Handler, log *slog.Logger) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("METRICS_ADDR %s: %w (set METRICS_ADDR to another address, or to off)", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	s := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
	return ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	}, nil
}

// startMetricsListener serves /metrics on METRICS_ADDR unless it is off, and returns what
// stops it. When the address was not set and its default port is taken (a second server on
// this machine, or Prometheus itself on 9090), the start goes on without the listener,
// saying so in the log; an address set explicitly that cannot be had fails the start.
func startMetricsListener(cfg config, h http.Handler, log *slog.Logger) (stop func(), err error) {
	if cfg.MetricsAddr == "off" {
		return func() {}, nil
	}
	addr, stop, err := serveMetrics(cfg.MetricsAddr, h, log)
	switch {
	case err != nil && cfg.MetricsAddrSet:
		return nil, err
	case err != nil:
		log.Warn("metrics listener not started; set METRICS_ADDR to serve /metrics elsewhere", "err", err)
		return func() {}, nil
	}
	log.Info("metrics", "addr", addr)
	return stop, nil
}

// knownMethods are the method label's values; anything else is "other", so a client
// cannot add series at will (curl -X XMETH123).
var knownMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true, http.MethodConnect: true, http.MethodTrace: true}

func methodLabel(m string) string {
	if knownMethods[m] {
		return m
	}
	return "other"
}
