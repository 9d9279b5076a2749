package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Recording an attempt: the delivery's status, the endpoint's health, the next try.

// record stores an attempt's outcome on the delivery and the endpoint, and says whether
// River should retry: an endpoint failing for DisableAfter is disabled with its reason.
func (s *Service) record(ctx context.Context, a deliveryArgs, t *target, r result, attempt, maxAttempts int) error {
	now := s.cfg.Now()
	retry := r.status == "failed" && attempt < maxAttempts
	var next *time.Time
	if retry {
		n := now.Add(s.retryDelay(attempt))
		next = &n
	}
	status := r.status
	if retry {
		status = "pending"
	}
	// What the attempt changes on the endpoint: a success ends a run of failures; a failure
	// starts one, or disables the endpoint once it has lasted DisableAfter.
	var endpointSQL string
	var endpointArgs []any
	disabled := false
	switch r.status {
	case "succeeded":
		if t.failingSince != nil {
			endpointSQL, endpointArgs = `UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1::text::uuid`, []any{t.endpointID}
		}
	case "failed":
		since := now
		if t.failingSince != nil {
			since = *t.failingSince
		}
		switch {
		case now.Sub(since) >= DisableAfter:
			disabled = true
			reason := fmt.Sprintf("disabled at %s: every delivery failed since %s (last: %s)",
				now.UTC().Format(time.RFC3339), since.UTC().Format(time.RFC3339), r.err)
			endpointSQL, endpointArgs = `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2 WHERE id = $1::text::uuid`,
				[]any{t.endpointID, reason}
		case t.failingSince == nil:
			endpointSQL, endpointArgs = `UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1::text::uuid AND failing_since IS NULL`,
				[]any{t.endpointID, now}
		}
	}
	const deliverySQL = `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1,
			last_attempt_at = $3, latency_ms = $4, response_status = nullif($5, 0), response_body = nullif($6, ''),
			error = nullif($7, ''), next_attempt_at = $8, updated_at = now()
		WHERE id = $1::text::uuid`
	deliveryArgs := []any{a.DeliveryID, status, now, int(r.latency / time.Millisecond), r.code, toValidUTF8(r.body), r.err, next}
	var err error
	if endpointSQL == "" { // the usual success: one statement, one round trip
		err = s.cfg.Store.ServiceQuery(ctx, a.WorkspaceID, deliverySQL, deliveryArgs, func(pgx.Rows) error { return nil })
	} else {
		err = s.cfg.Store.ServiceTx(ctx, a.WorkspaceID, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, deliverySQL, deliveryArgs...); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, endpointSQL, endpointArgs...)
			return err
		})
	}
	if err != nil {
		return err
	}
	s.m.attempts.WithLabelValues(r.status).Inc()
	log := s.cfg.Logger.With("delivery_id", a.DeliveryID, "endpoint_id", t.endpointID, "event_type", t.ev.Type,
		"attempt", attempt, "status", r.status, "response_status", r.code, "latency_ms", r.latency.Milliseconds())
	switch {
	case r.status == "succeeded":
		s.m.lag.Set(r.acceptedAt.Sub(t.ev.CreatedAt).Seconds())
		log.Debug("webhook delivered")
	case disabled:
		s.m.disabled.Inc()
		log.Warn("webhook endpoint disabled after failing for 3 days", "err", r.err)
	case retry:
		log.Info("webhook attempt failed; retrying", "err", r.err, "next_attempt_at", next)
		return fmt.Errorf("%w: %s", ErrAttemptFailed, r.err)
	default:
		log.Warn("webhook delivery failed for good", "err", r.err)
	}
	return nil
}
