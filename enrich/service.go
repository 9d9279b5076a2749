package enrich

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
)

// Result is the body of POST /enrich (decisions.md 6).
type Result struct {
	Company
	Cached           bool  `json:"cached"`
	CreditsSpent     int64 `json:"credits_spent"`
	CreditsRemaining int64 `json:"credits_remaining"`
}

// ServiceConfig configures metered enrichment.
type ServiceConfig struct {
	Store    *store.Store
	Provider Provider
	Cost     int64         // credits a fresh lookup costs (default 1)
	CacheFor time.Duration // how long a workspace's lookup is served free (default 30 days)
	HoldFor  time.Duration // how long a reservation outlives a stuck request (default 2 min)
	Logger   *slog.Logger
}

// Service is the metered enrichment operation: per-workspace cache, credit reservation,
// provider lookup, and settlement atomic with storing the result.
type Service struct {
	cfg ServiceConfig
}

// NewService builds the service.
func NewService(cfg ServiceConfig) *Service {
	if cfg.Cost <= 0 {
		cfg.Cost = 1
	}
	if cfg.CacheFor <= 0 {
		cfg.CacheFor = 30 * 24 * time.Hour
	}
	if cfg.HoldFor <= 0 {
		cfg.HoldFor = 2 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg}
}

// Errors of Enrich, as the spec names them (service-spec.md 7).
var (
	errNoCredits = func() error {
		return store.Errorf(http.StatusPaymentRequired, "insufficient_credits",
			"the workspace's credit balance is too low for a fresh lookup; an admin can add credits (workspaced admin grant-credits)")
	}
	errUpstream = func(err error) error {
		return &store.Error{Status: http.StatusBadGateway, Code: "upstream_error",
			Message: "the enrichment provider failed; nothing was charged; retry later", Err: err}
	}
	errUnbilled = func(err error) error {
		return &store.Error{Status: http.StatusBadGateway, Code: "enrich_unbilled",
			Message: "the lookup could not be billed, so its result is withheld; nothing was charged; retry", Err: err}
	}
)

// Enrich looks a company up for the principal's workspace. It returns a validation_error
// for a bad domain, insufficient_credits before any lookup when the balance is below the
// cost, upstream_error when the provider fails (nothing charged), and enrich_unbilled when
// the charge cannot be settled after the lookup (result withheld, nothing charged).
func (s *Service) Enrich(ctx context.Context, p *store.Principal, rawDomain string) (*Result, error) {
	domain, err := NormalizeDomain(rawDomain)
	if err != nil {
		return nil, &store.Error{Status: http.StatusUnprocessableEntity, Code: "validation_error",
			Message: "domain must be a company's host name, like example.com (no IP addresses)",
			Fields:  []store.FieldError{{Field: "domain", Problem: "not a valid host name"}}}
	}
	if res, err := s.cached(ctx, p, domain); err != nil || res != nil {
		return res, err
	}
	holdID, err := s.reserve(ctx, p, domain)
	if err != nil {
		return nil, err
	}
	company, lookupErr := s.cfg.Provider.Lookup(ctx, domain)
	if lookupErr != nil {
		s.refund(p, holdID)
		return nil, errUpstream(lookupErr)
	}
	company.Domain = domain
	remaining, err := s.settle(ctx, p, holdID, company)
	if err != nil {
		s.refund(p, holdID)
		return nil, errUnbilled(err)
	}
	return &Result{Company: company, CreditsSpent: s.cfg.Cost, CreditsRemaining: remaining}, nil
}

// cached returns the workspace's fresh cached lookup, or nil. One round trip.
func (s *Service) cached(ctx context.Context, p *store.Principal, domain string) (*Result, error) {
	var res *Result
	err := s.cfg.Store.Query(ctx, p, `SELECT c.result, b.balance FROM credit_balances b
		LEFT JOIN enrichment_cache c ON c.domain = $1 AND c.fetched_at > now() - $2::interval
		LIMIT 1`, []any{domain, fmt.Sprintf("%d seconds", int64(s.cfg.CacheFor.Seconds()))},
		func(rows pgx.Rows) error {
			if !rows.Next() {
				return nil
			}
			var raw []byte
			var balance int64
			if err := rows.Scan(&raw, &balance); err != nil || raw == nil {
				return err
			}
			res = &Result{Cached: true, CreditsRemaining: balance}
			return json.Unmarshal(raw, &res.Company)
		})
	return res, err
}

// reserve takes the cost off the balance atomically and records a hold; no row means the
// balance is too low (decisions.md 6: UPDATE ... WHERE balance >= cost).
func (s *Service) reserve(ctx context.Context, p *store.Principal, domain string) (string, error) {
	var holdID string
	err := s.cfg.Store.InTx(ctx, p, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE credit_balances SET balance = balance - $1 WHERE balance >= $1`, s.cfg.Cost)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errNoCredits()
		}
		return tx.QueryRow(ctx, `INSERT INTO credit_holds (amount, domain, expires_at) VALUES ($1, $2, now() + $3::interval)
			RETURNING id::text`, s.cfg.Cost, domain, fmt.Sprintf("%d seconds", int64(s.cfg.HoldFor.Seconds()))).Scan(&holdID)
	})
	return holdID, err
}

// settle turns the hold into a charge in the same transaction that stores the result, the
// ledger row and the activity row. A hold already gone (refunded by the sweeper) means the
// charge cannot be made.
func (s *Service) settle(ctx context.Context, p *store.Principal, holdID string, c Company) (int64, error) {
	result, _ := json.Marshal(c)
	var remaining int64
	err := s.cfg.Store.InTx(ctx, p, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM credit_holds WHERE id = $1`, holdID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errors.New("credit hold expired before the lookup finished")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO enrichment_cache (domain, result) VALUES ($1, $2)
			ON CONFLICT (workspace_id, domain) DO UPDATE SET result = excluded.result, fetched_at = now(), updated_at = now()`,
			c.Domain, result); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO credit_ledger (delta, reason, domain) VALUES ($1, 'enrich', $2)`,
			-s.cfg.Cost, c.Domain); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO activity (entity_type, action, actor_id, changes)
			VALUES ('enrich', 'enriched', app_user_id(), jsonb_build_object('domain', $1::text, 'credits_spent', $2::bigint))`,
			c.Domain, s.cfg.Cost); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT balance FROM credit_balances`).Scan(&remaining)
	})
	return remaining, err
}

// refund gives a hold back, if it still exists. It runs even when the request's context
// has ended, so a cancelled request never keeps its credit.
func (s *Service) refund(p *store.Principal, holdID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.cfg.Store.InTx(ctx, p, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `WITH h AS (DELETE FROM credit_holds WHERE id = $1 RETURNING amount)
			UPDATE credit_balances SET balance = balance + h.amount FROM h`, holdID)
		return err
	})
	if err != nil {
		s.cfg.Logger.Error("enrich: refund failed; the sweeper will return the hold", "hold", holdID, "err", err)
	}
}

// SweepHolds refunds holds that expired (their requests died) and returns how many; cmd
// runs it every minute. It runs as the service, across workspaces.
func SweepHolds(ctx context.Context, s *store.Store, now time.Time) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `WITH h AS (DELETE FROM credit_holds WHERE expires_at < $1 RETURNING workspace_id, amount),
			s AS (SELECT workspace_id, sum(amount) AS amount FROM h GROUP BY workspace_id)
			UPDATE credit_balances b SET balance = b.balance + s.amount FROM s WHERE b.workspace_id = s.workspace_id`, now)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}
