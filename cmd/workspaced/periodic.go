package main

import (
	"context"
	"time"
)

// periodic is the loop of a periodic task (the credit-hold, idempotency-key and token
// sweeps, webhook retention): it ticks at once and then every interval, and runs the task
// only when store.ClaimRun gives this process the interval, so several replicas run it
// about once per interval between them rather than once each, and it goes on while any one
// of them is up.
func (srv *server) periodic(name string, every time.Duration, run func(ctx context.Context, now time.Time) error) loop {
	return loop{name, func(ctx context.Context) {
		t := time.NewTicker(every)
		defer t.Stop()
		for now := time.Now(); ; {
			mine, err := srv.store.ClaimRun(ctx, name, every)
			if err == nil && mine {
				err = run(ctx, now)
			}
			if err != nil && ctx.Err() == nil {
				srv.log.Error("periodic task failed", "task", name, "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case now = <-t.C:
			}
		}
	}}
}
