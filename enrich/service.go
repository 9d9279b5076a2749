package enrich

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// Result is the body of POST /enrich (docs/decisions.md 6), the domain's type.
type Result = workspace.EnrichResult

// Ledger is what metered enrichment needs from the database; *store.Store implements it
// (asserted in service_test.go). Every method but SweepCreditHolds runs as the actor,
// under row-level security; any error not named here is a database failure.
type Ledger interface {
	// CachedEnrichment returns the workspace's lookup of domain (JSON of a Company) fetched
	// within maxAge, nil when there is none, and the workspace's credit balance.
	CachedEnrichment(ctx context.Context, a store.Actor, domain string, maxAge time.Duration) ([]byte, int64, error)
	// ReserveCredits takes cost off the balance and records a hold that lives holdFor,
	// returning its id; store.ErrInsufficientCredits when the balance is below cost,
	// store.ErrEnrichmentInFlight when the workspace already holds credits for domain.
	ReserveCredits(ctx context.Context, a store.Actor, cost int64, domain string, holdFor time.Duration) (string, error)
	// SettleEnrichment turns the hold into a charge of cost atomically with storing result
	// and the ledger and activity rows, and returns the balance left; store.ErrHoldExpired
	// when the hold is gone (the sweeper refunded it).
	SettleEnrichment(ctx context.Context, a store.Actor, holdID, domain string, result []byte, cost int64) (int64, error)
	// RefundCreditHold gives a hold back; a hold already gone is no error.
	RefundCreditHold(ctx context.Context, a store.Actor, holdID string) error
}

// ServiceConfig configures metered enrichment.
type ServiceConfig struct {
	Store    Ledger
	Provider Provider
	Cost     int64         // credits a fresh lookup costs (default 1)
	CacheFor time.Duration // how long a workspace's lookup is served free (default 30 days)
	HoldFor  time.Duration // how long a reservation outlives a stuck request (default HoldFor)
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
		cfg.HoldFor = HoldFor
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg}
}

// Errors of Enrich, as the spec names them (docs/contract.md section 7).
var (
	errNoCredits = func() error {
		return apierr.Errorf(apierr.CodeInsufficientCredits,
			"the workspace's credit balance is too low for a fresh lookup; an admin can add credits (workspaced admin grant-credits)")
	}
	errUpstream = func(err error) error {
		return &apierr.Error{Code: apierr.CodeUpstream,
			Message: "the enrichment provider failed; nothing was charged; retry later", Err: err}
	}
	errUnbilled = func(err error) error {
		return &apierr.Error{Code: apierr.CodeEnrichUnbilled,
			Message: "the lookup could not be billed, so its result is withheld; nothing was charged; retry", Err: err}
	}
)

var _ workspace.Enricher = (*Service)(nil)

// Enrich looks a company up for the principal's workspace. It returns a validation_error
// for a bad domain, insufficient_credits before any lookup when the balance is below the
// cost, upstream_error when the provider fails (nothing charged), and enrich_unbilled when
// the charge cannot be settled after the lookup (result withheld, nothing charged).
func (s *Service) Enrich(ctx context.Context, p *auth.Principal, rawDomain string) (*Result, error) {
	domain, err := NormalizeDomain(rawDomain)
	if err != nil {
		return nil, &apierr.Error{Code: apierr.CodeValidation,
			Message: "domain must be a company's host name, like example.com (no IP addresses)",
			Fields:  []apierr.FieldError{{Field: "domain", Problem: "not a valid host name"}}}
	}
	var holdID string
	for {
		if res, err := s.cached(ctx, p, domain); err != nil || res != nil {
			return res, err
		}
		holdID, err = s.reserve(ctx, p, domain)
		if !errors.Is(err, store.ErrEnrichmentInFlight) {
			break
		}
		// Another request of this workspace is enriching the domain: wait for its result
		// (served from the cache, free) rather than fetch and charge twice; if it fails,
		// its hold goes and this request reserves its own.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(inFlightPoll):
		}
	}
	if err != nil {
		return nil, err
	}
	// The request whose hold this one waited on may have settled (its hold gone, its
	// result cached, in one transaction) between this request's look at the cache and its
	// reservation: look again before fetching and charging a second time.
	if res, err := s.cached(ctx, p, domain); err != nil || res != nil {
		s.refund(p, holdID)
		if res != nil {
			res.CreditsRemaining += s.cfg.Cost // the refund just made
		}
		return res, err
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
	return &Result{EnrichCompany: company, CreditsSpent: s.cfg.Cost, CreditsRemaining: remaining}, nil
}

// inFlightPoll is how often a request waiting for another's enrichment of the same domain
// looks for its result.
const inFlightPoll = 50 * time.Millisecond

// cached returns the workspace's fresh cached lookup, or nil. One round trip.
func (s *Service) cached(ctx context.Context, p *auth.Principal, domain string) (*Result, error) {
	raw, balance, err := s.cfg.Store.CachedEnrichment(ctx, p.Actor(), domain, s.cfg.CacheFor)
	if err != nil || raw == nil {
		return nil, err
	}
	res := &Result{Cached: true, CreditsRemaining: balance}
	return res, json.Unmarshal(raw, &res.EnrichCompany)
}

// reserve takes the cost off the balance and records a hold.
func (s *Service) reserve(ctx context.Context, p *auth.Principal, domain string) (string, error) {
	holdID, err := s.cfg.Store.ReserveCredits(ctx, p.Actor(), s.cfg.Cost, domain, s.cfg.HoldFor)
	if errors.Is(err, store.ErrInsufficientCredits) {
		return "", errNoCredits()
	}
	return holdID, err
}

// settle turns the hold into a charge in the same transaction that stores the result, the
// ledger row and the activity row. A hold already gone (refunded by the sweeper) means the
// charge cannot be made.
func (s *Service) settle(ctx context.Context, p *auth.Principal, holdID string, c Company) (int64, error) {
	result, _ := json.Marshal(c)
	return s.cfg.Store.SettleEnrichment(ctx, p.Actor(), holdID, c.Domain, result, s.cfg.Cost)
}

// refund gives a hold back, if it still exists. It runs even when the request's context
// has ended, so a cancelled request never keeps its credit.
func (s *Service) refund(p *auth.Principal, holdID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.cfg.Store.RefundCreditHold(ctx, p.Actor(), holdID); err != nil {
		s.cfg.Logger.Error("enrich: refund failed; the sweeper will return the hold", "hold", holdID, "err", err)
	}
}
