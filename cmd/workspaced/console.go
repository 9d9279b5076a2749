package main

import (
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"

	adminops "github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/console"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// newAdminOps builds the administration operations the console and the admin CLI share.
func newAdminOps(cfg config, s *store.Store, log *slog.Logger) (*adminops.Ops, error) {
	acfg := adminops.Config{Store: s, PublicURL: cfg.PublicURL, ServiceName: cfg.ServiceName,
		HashPassword: oauth.HashPassword, Logger: log}
	if cfg.SMTPURL != "" {
		m, err := adminops.NewSMTPMailer(cfg.SMTPURL, adminops.DefaultFrom(cfg.PublicURL))
		if err != nil {
			return nil, err
		}
		acfg.Mailer = m
	}
	return adminops.New(acfg), nil
}

// mountConsole mounts the console at /console and sends / there; its webhooks, fields and
// import pages run the domain's operations and the import service, the ones REST and MCP
// run.
func (srv *server) mountConsole(r chi.Router, provider *oauth.Server, records *workspace.Ops, importer console.Importer) error {
	ops, err := newAdminOps(srv.cfg, srv.store, srv.log)
	if err != nil {
		return err
	}
	srv.mail = ops
	c, err := console.New(console.Config{Sessions: provider, Admin: ops, Workspaces: srv.store,
		ServiceName: srv.cfg.ServiceName, DescribeScope: workspace.DescribeScope, Records: records, Imports: importer,
		PublicURL: srv.cfg.PublicURL, Logger: srv.log})
	if err != nil {
		return err
	}
	h := c.Handler()
	r.Handle(console.Path, h)
	r.Handle(console.Path+"/*", h)
	r.Get("/", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, console.Path, http.StatusFound) })
	return nil
}
