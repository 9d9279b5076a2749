package main

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"
)

// loops owns the process's background loops (credit-hold and idempotency sweeps, the
// revocation listener, the token purge, SIGHUP, the circuit breaker's probe, the usage
// counter's flush): it starts each under its name with one context, and at shutdown
// cancels that context and waits
// for every loop to return, so none is still using the database pool when it closes
// (docs/operations.md, "Bad days"). A loop that does not return within the wait is named in
// the log and left to the process's exit.
type loops struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	wg     sync.WaitGroup

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
	return &loops{ctx: ctx, cancel: cancel, log: log, running: map[string]int{}}
}

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
		l.run(ls.ctx)
	}()
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
