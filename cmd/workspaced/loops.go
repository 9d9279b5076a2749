package main

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// loops owns the process's background loops (credit-hold and idempotency sweeps, the
// revocation listener, the token purge, SIGHUP, the circuit breaker's probe, the usage
// counter's flush): it starts each under its name with one context, and at shutdown
// cancels that context and waits
// for every loop to return, so none is still using the database pool when it closes
// (docs/operations.md, "Bad days"). A loop that does not return within the wait is named in
// the log and left to the process's exit.
//
// A loop that panics does not take the process down: the panic is logged once with its
// stack, counted in workspaced_background_panics_total{loop}, and the loop is started
// again after restartDelay, doubled for each panic in a row up to maxRestartDelay (a
// periodic task then waits for its next interval, store.ClaimRun having given this one
// away already).
type loops struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	wg     sync.WaitGroup
	panics *prometheus.CounterVec
	// restartDelay is the wait before the first restart of a loop that panicked.
	restartDelay time.Duration

	mu      sync.Mutex
	running map[string]int
}

// loop is one background loop: it runs until ctx ends.
type loop struct {
	name string
	run  func(ctx context.Context)
}

// newLoops returns an owner whose loops run until Stop; ctx's values are kept but not its
// cancellation, since loops outlive the signal that starts the shutdown.
func newLoops(ctx context.Context, log *slog.Logger) *loops {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &loops{ctx: ctx, cancel: cancel, log: log, running: map[string]int{}, restartDelay: time.Second,
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workspaced_background_panics_total",
			Help: "Panics recovered in background loops, by loop; each loop was started again."}, []string{"loop"})}
}

// maxRestartDelay bounds the wait before restarting a loop that keeps panicking.
const maxRestartDelay = time.Minute

// register adds the loops' metrics to reg.
func (ls *loops) register(reg prometheus.Registerer) { reg.MustRegister(ls.panics) }

// Go starts l.
func (ls *loops) Go(l loop) {
	ls.mu.Lock()
	ls.running[l.name]++
	ls.mu.Unlock()
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		defer func() {
			ls.mu.Lock()
			if ls.running[l.name]--; ls.running[l.name] == 0 {
				delete(ls.running, l.name)
			}
			ls.mu.Unlock()
		}()
		delay := ls.restartDelay
		for {
			began := time.Now()
			if !ls.runRecovered(l) || ls.ctx.Err() != nil {
				return
			}
			if time.Since(began) > maxRestartDelay {
				delay = ls.restartDelay // ran a good while: not a panic in a row
			}
			select {
			case <-ls.ctx.Done():
				return
			case <-time.After(delay):
			}
			delay = min(2*delay, maxRestartDelay)
		}
	}()
}

// runRecovered runs l until it returns and reports whether it panicked.
func (ls *loops) runRecovered(l loop) (panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			panicked = true
			ls.panics.WithLabelValues(l.name).Inc()
			ls.log.Error("background loop panicked; starting it again", "loop", l.name,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	l.run(ls.ctx)
	return false
}

// Stop cancels every loop and waits up to wait for them to return. It reports whether
// all did.
func (ls *loops) Stop(wait time.Duration) bool {
	ls.cancel()
	done := make(chan struct{})
	go func() { ls.wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(wait):
	}
	ls.mu.Lock()
	names := make([]string, 0, len(ls.running))
	for n := range ls.running {
		names = append(names, n)
	}
	ls.mu.Unlock()
	sort.Strings(names)
	ls.log.Warn("background loops did not stop in time; leaving them to the exit", "loops", names, "waited", wait)
	return false
}
