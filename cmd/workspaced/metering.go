package main

import (
	"context"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/workspace"
)

// limiter builds the rate limits REST and MCP share: Redis when REDIS_URL is set, so
// several processes count together, else memory.
func (srv *server) limiter() (*ratelimit.Limiter, error) {
	return ratelimit.New(ratelimit.Config{RedisURL: srv.cfg.RedisURL, FailOpen: srv.cfg.RateLimitFailOpen,
		PerCredential: srv.cfg.PerCredential, PerWorkspace: srv.cfg.PerWorkspace,
		Logger: srv.log, Registerer: srv.reg})
}

// enricher builds POST /enrich: the commercial firmographics API when configured, else the
// built-in reader of the company's own site behind the production SSRF guard.
func (srv *server) enricher() (workspace.Enricher, error) {
	var provider enrich.Provider = enrich.NewSiteProvider(enrich.SiteConfig{})
	if srv.cfg.FirmographicsURL != "" {
		p, err := enrich.NewFirmographicsProvider(enrich.FirmographicsConfig{BaseURL: srv.cfg.FirmographicsURL,
			APIKey: srv.cfg.FirmographicsKey})
		if err != nil {
			return nil, err
		}
		provider = p
	}
	svc := enrich.NewService(enrich.ServiceConfig{Store: srv.store, Provider: provider, Cost: int64(srv.cfg.EnrichCost),
		Logger: srv.log})
	e := workspace.EnricherFunc(func(ctx context.Context, p *auth.Principal, domain string) (any, error) {
		res, err := svc.Enrich(ctx, p, domain)
		if err != nil {
			return nil, err
		}
		return res, nil
	})
	return e, nil
}
