package main

import (
	"context"
	"time"

	"github.com/agencyos/workspaced/store"
)

// sweepIdempotencyKeys deletes the Idempotency-Keys older than 24 hours, every minute.
func (srv *server) sweepIdempotencyKeys(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if _, err := store.SweepIdempotencyKeys(ctx, srv.store, now); err != nil {
				srv.log.Error("sweeping idempotency keys", "err", err)
			}
		}
	}
}
