package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/agencyos/workspaced/store"
)

// connect opens the pool with every wait bounded (dbConfig). A database that refuses or
// never answers fails the start within DB_CONNECT_TIMEOUT with a message saying so; with
// DB_WAIT set, the start retries (logging each attempt) for that long first, for
// orchestrators that start the service and its database together.
func connect(ctx context.Context, dsn string, c dbConfig, log *slog.Logger, observe func(error)) (*store.Store, error) {
	opts := store.Options{ConnectTimeout: c.ConnectTimeout, AcquireTimeout: c.AcquireTimeout, StatementTimeout: c.StatementTimeout,
		MaxConns: c.MaxConns, Observe: observe}
	giveUp := time.Now().Add(c.Wait)
	pause := 500 * time.Millisecond
	for attempt := 1; ; attempt++ {
		s, err := store.OpenWith(ctx, dsn, opts)
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil || !time.Now().Add(pause).Before(giveUp) {
			return nil, fmt.Errorf("PostgreSQL did not answer (connect timeout %s, DB_CONNECT_TIMEOUT; DB_WAIT=%s): %w",
				c.ConnectTimeout, c.Wait, err)
		}
		log.Warn("PostgreSQL not answering yet; retrying (DB_WAIT)", "attempt", attempt, "err", err,
			"gives_up_in", time.Until(giveUp).Round(time.Second).String())
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// closePool closes the pool, waiting at most d: closing waits for every connection to be
// released and cleaned up, which a frozen database can hold up for 15s, and a stop asked
// for should not wait on it. What is left is released by the process's exit.
func closePool(s *store.Store, d time.Duration, log *slog.Logger) {
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		log.Warn("database connections did not close in time; leaving them to the exit", "waited", d)
	}
}
