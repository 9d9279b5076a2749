package store

import (
	"context"
	"time"
)

// ClaimRun reports whether the caller should run the periodic task name now: true for the
// first caller once 90% of every has passed since the task's last claimed run (or when it
// never ran), false for every other caller, in whichever process. So replicas that each
// tick every interval run the task about once per interval between them, not once each,
// and the runs go on while any of them is up. Times are the database's clock.
func (s *Store) ClaimRun(ctx context.Context, name string, every time.Duration) (bool, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO periodic_runs (name, ran_at) VALUES ($1, now())
		ON CONFLICT (name) DO UPDATE SET ran_at = now()
		WHERE periodic_runs.ran_at <= now() - $2::bigint * interval '1 microsecond'`,
		name, (every - every/10).Microseconds())
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}
