package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The SQL of metered enrichment (package enrich, docs/decisions.md 6): a per-workspace cache of
// lookups, and credits reserved before a lookup and settled after it. Every statement but
// the sweep runs as the actor, under row-level security. package enrich declares the
// interface these methods satisfy (enrich.Ledger) and documents its contract.

// ErrInsufficientCredits is ReserveCredits' answer when the balance is below the cost.
var ErrInsufficientCredits = errors.New("store: insufficient credits")

// ErrEnrichmentInFlight is ReserveCredits' answer when the workspace already holds credits
// for the domain: another request is enriching it.
var ErrEnrichmentInFlight = errors.New("store: an enrichment of this domain is in flight")

// ErrHoldExpired is SettleEnrichment's answer when the hold is gone (the sweeper refunded it).
var ErrHoldExpired = errors.New("credit hold expired before the lookup finished")

// CachedEnrichment returns the workspace's lookup of domain fetched within maxAge (nil when
// there is none) and its credit balance, in one round trip.
func (s *Store) CachedEnrichment(ctx context.Context, a Actor, domain string, maxAge time.Duration) ([]byte, int64, error) {
	var result []byte
	var balance int64
	err := s.Query(ctx, a, `SELECT c.result, b.balance FROM credit_balances b
		LEFT JOIN enrichment_cache c ON c.domain = $1 AND c.fetched_at > now() - $2::interval
		LIMIT 1`, []any{domain, interval(maxAge)},
		func(rows pgx.Rows) error {
			if !rows.Next() {
				return nil
			}
			return rows.Scan(&result, &balance)
		})
	return result, balance, err
}

// ReserveCredits takes cost off the balance atomically and records a hold for domain that
// outlives a stuck request by holdFor, returning the hold's id; ErrInsufficientCredits when
// the balance is below cost (docs/decisions.md 6: UPDATE ... WHERE balance >= cost).
func (s *Store) ReserveCredits(ctx context.Context, a Actor, cost int64, domain string, holdFor time.Duration) (string, error) {
	var holdID string
	err := s.InTx(ctx, a, func(tx pgx.Tx) error {
		// The hold first: one per workspace and domain (00020), so a concurrent enrichment
		// of the same domain waits here for the first to commit, then finds it.
		err := tx.QueryRow(ctx, `INSERT INTO credit_holds (amount, domain, expires_at) VALUES ($1, $2, now() + $3::interval)
			ON CONFLICT (workspace_id, domain) DO NOTHING RETURNING id::text`, cost, domain, interval(holdFor)).Scan(&holdID)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrEnrichmentInFlight
		}
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE credit_balances SET balance = balance - $1 WHERE balance >= $1`, cost)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrInsufficientCredits
		}
		return nil
	})
	return holdID, err
}

// SettleEnrichment turns a hold into a charge of cost in the same transaction that stores
// the result (JSON) for domain, the ledger row and the activity row, and returns the
// balance left; ErrHoldExpired when the hold is gone.
func (s *Store) SettleEnrichment(ctx context.Context, a Actor, holdID, domain string, result []byte, cost int64) (int64, error) {
	var remaining int64
	err := s.InTx(ctx, a, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM credit_holds WHERE id = $1`, holdID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrHoldExpired
		}
		if _, err := tx.Exec(ctx, `INSERT INTO enrichment_cache (domain, result) VALUES ($1, $2)
			ON CONFLICT (workspace_id, domain) DO UPDATE SET result = excluded.result, fetched_at = now(), updated_at = now()`,
			domain, result); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO credit_ledger (delta, reason, domain) VALUES ($1, 'enrich', $2)`,
			-cost, domain); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO activity (entity_type, action, actor_id, changes)
			VALUES ('enrich', 'enriched', app_user_id(), jsonb_build_object('domain', $1::text, 'credits_spent', $2::bigint))`,
			domain, cost); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT balance FROM credit_balances`).Scan(&remaining)
	})
	return remaining, err
}

// RefundCreditHold gives a hold back, if it still exists.
func (s *Store) RefundCreditHold(ctx context.Context, a Actor, holdID string) error {
	return s.InTx(ctx, a, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `WITH h AS (DELETE FROM credit_holds WHERE id = $1 RETURNING amount)
			UPDATE credit_balances SET balance = balance + h.amount FROM h`, holdID)
		return err
	})
}

// SweepCreditHolds refunds holds that expired before now (their requests died) and returns
// how many balances it credited. It runs as the service, across workspaces.
func (s *Store) SweepCreditHolds(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `WITH h AS (DELETE FROM credit_holds WHERE expires_at < $1 RETURNING workspace_id, amount),
			s AS (SELECT workspace_id, sum(amount) AS amount FROM h GROUP BY workspace_id)
			UPDATE credit_balances b SET balance = b.balance + s.amount FROM s WHERE b.workspace_id = s.workspace_id`, now)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

// interval renders d as a PostgreSQL interval in whole seconds.
func interval(d time.Duration) string { return fmt.Sprintf("%d seconds", int64(d.Seconds())) }
