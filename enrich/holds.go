package enrich

import (
	"context"
	"log/slog"
	"time"
)

// The credit holds' timings. A hold is how long a credit reservation outlives its request:
// a lookup is bounded at 10s (the providers' timeouts) and each statement by the
// database's statement timeout, so 20s lets every live request settle, while the holds
// of a process that crashed come back within HoldFor plus one SweepEvery, well inside 30s
// of the next start (or sooner, by any other replica's sweeper).
const (
	HoldFor    = 20 * time.Second
	SweepEvery = 5 * time.Second
)

// HoldSweeper refunds expired credit holds; *store.Store implements it. It runs outside
// row-level security, over every workspace, and returns how many workspaces it refunded.
type HoldSweeper interface {
	SweepCreditHolds(ctx context.Context, now time.Time) (int64, error)
}

// SweepHolds refunds the credit holds of requests that died, expired at now; cmd runs it
// at start and then every SweepEvery, in one replica per interval.
func SweepHolds(ctx context.Context, s HoldSweeper, now time.Time, log *slog.Logger) error {
	n, err := s.SweepCreditHolds(ctx, now)
	if n > 0 {
		log.Warn("refunded expired credit holds", "workspaces", n)
	}
	return err
}
