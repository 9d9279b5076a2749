package main

import (
	"context"
	"time"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/imports"
	"github.com/agencyos/workspaced/workspace"
)

// imports builds file imports (docs/rest.md, "Imports") and the background loop that runs
// their jobs.
func (srv *server) imports(ops *workspace.Ops) (*imports.Service, func(context.Context), error) {
	svc, err := imports.New(imports.Config{Store: srv.store, Ops: ops, Logger: srv.log, Status: httpx.Status,
		RescueAfter: time.Duration(srv.cfg.ImportRescueSeconds) * time.Second})
	if err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context) {
		if err := svc.Start(ctx); err != nil {
			srv.log.Error("imports did not start", "err", err)
			return
		}
		<-ctx.Done()
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := svc.Stop(stopCtx); err != nil {
			srv.log.Warn("imports stopped with a chunk still running; it resumes on the next start", "err", err)
		}
	}
	return svc, run, nil
}
