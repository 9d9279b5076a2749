package main

import (
	"context"
	"time"

	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// limiter builds the rate limits REST and MCP share: Redis when REDIS_URL is set, so
// several processes count together, else memory.
func (srv *server) limiter() (*ratelimit.Limiter, error) {
	return ratelimit.New(ratelimit.Config{RedisURL: srv.cfg.RedisURL, FailOpen: srv.cfg.RateLimitFailOpen,
		PerCredential: srv.cfg.PerCredential, PerWorkspace: srv.cfg.PerWorkspace, IPBudgets: ipBudgets(),
		Logger: srv.log, Registerer: srv.reg})
}

// enricher builds POST /enrich: the commercial firmographics API when configured, else the
// built-in reader of the company's own site behind the production SSRF guard.
func (srv *server) enricher() (workspace.Enricher, func(context.Context), error) {
	var provider enrich.Provider = enrich.NewSiteProvider(enrich.SiteConfig{})
	if srv.cfg.FirmographicsURL != "" {
		p, err := enrich.NewFirmographicsProvider(enrich.FirmographicsConfig{BaseURL: srv.cfg.FirmographicsURL,
			APIKey: srv.cfg.FirmographicsKey})
		if err != nil {
			return nil, nil, err
		}
		provider = p
	}
	svc := enrich.NewService(enrich.ServiceConfig{Store: srv.store, Provider: provider, Cost: int64(srv.cfg.EnrichCost),
		HoldFor: holdFor, Logger: srv.log})
	e := workspace.EnricherFunc(func(ctx context.Context, p *store.Principal, domain string) (any, error) {
		res, err := svc.Enrich(ctx, p, domain)
		if err != nil {
			return nil, err
		}
		return res, nil
	})
	return e, srv.sweepHolds, nil
}

// holdFor is how long a credit reservation outlives its request. A lookup is bounded at
// 10s (the providers' timeouts) and each statement by DB_STATEMENT_TIMEOUT, so 20s lets
// every live request settle, while the holds of a process that crashed come back within
// holdFor plus one sweep interval, well inside 30s of the next start (or sooner, by any
// other replica's sweeper).
const (
	holdFor    = 20 * time.Second
	sweepEvery = 5 * time.Second
)

// sweepHolds refunds the credit holds of requests that died: once at start, then every
// sweepEvery.
func (srv *server) sweepHolds(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for now := time.Now(); ; {
		if n, err := srv.store.SweepCreditHolds(ctx, now); err != nil {
			srv.log.Error("sweeping credit holds", "err", err)
		} else if n > 0 {
			srv.log.Warn("refunded expired credit holds", "workspaces", n)
		}
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
	}
}
