package webhooks

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Retention (docs/webhooks.md, "Retention"): deliveries and dispatched events older than
// Config.Retention are deleted by Prune, which cmd/workspaced runs as a periodic task
// (store.ClaimRun: one process per RetentionEvery, whatever the number of replicas), as it
// does the other sweeps.

// DefaultRetention is how long deliveries and events are kept when Config.Retention is 0.
const DefaultRetention = 30 * 24 * time.Hour

// RetentionEvery is how often Prune should run.
const RetentionEvery = time.Hour

// pruneBatch bounds the rows one DELETE removes, so each statement is short and holds few
// locks; Prune repeats it until a batch comes back short.
const pruneBatch = 1000

// Prune deletes, in batches of pruneBatch, the deliveries created more than Retention ago
// that are no longer pending, then the dispatched events older than that which no delivery
// refers to any more (a pending delivery keeps its event, so a retry always finds it). It
// returns how many of each it deleted.
func (s *Service) Prune(ctx context.Context) (deliveries, events int64, err error) {
	cutoff := s.cfg.Now().Add(-s.cfg.Retention)
	deliveries, err = s.pruneBatches(ctx, `DELETE FROM webhook_deliveries WHERE id IN (
		SELECT id FROM webhook_deliveries WHERE created_at < $1 AND status <> 'pending' LIMIT $2)`, cutoff)
	if err != nil {
		return deliveries, 0, err
	}
	events, err = s.pruneBatches(ctx, `DELETE FROM webhook_events WHERE id IN (
		SELECT e.id FROM webhook_events e WHERE e.created_at < $1 AND e.dispatched_at IS NOT NULL
		   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id) LIMIT $2)`, cutoff)
	if deliveries+events > 0 || err != nil {
		s.cfg.Logger.Info("webhook retention", "deliveries_deleted", deliveries, "events_deleted", events,
			"older_than", cutoff.UTC().Format(time.RFC3339), "err", err)
	}
	return deliveries, events, err
}

// pruneBatches runs sql (a DELETE of at most $2 rows older than $1), each batch its own
// transaction, until a batch deletes fewer than pruneBatch rows.
func (s *Service) pruneBatches(ctx context.Context, sql string, cutoff time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.cfg.Store.ServiceTx(ctx, "", func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, sql, cutoff, pruneBatch)
			n = tag.RowsAffected()
			return err
		})
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}
