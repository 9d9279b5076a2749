package main

import (
	"context"
	"net/url"
	"time"

	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// webhooks builds webhook delivery (docs/webhooks.md) and the background loop that runs it.
// While PUBLIC_URL is loopback, endpoints may be http:// on loopback too, so a developer can
// run a receiver beside the service.
func (srv *server) webhooks(more ...func(*river.Workers) map[string]river.QueueConfig) (*webhooks.Service, *webhooks.URLPolicy, func(context.Context), error) {
	policy := &webhooks.URLPolicy{}
	if u, err := url.Parse(srv.cfg.PublicURL); err == nil && isLoopback(u.Hostname()) {
		policy.LoopbackHTTP = true
	}
	svc, err := webhooks.New(webhooks.Config{Store: srv.store, URLs: *policy, Logger: srv.log, Registerer: srv.reg,
		RetrySpeedup: srv.cfg.WebhookRetrySpeedup, Retention: time.Duration(srv.cfg.WebhookRetentionDays) * 24 * time.Hour,
		Columns: workspace.ColumnsOf, MoreWork: more})
	if err != nil {
		return nil, policy, nil, err
	}
	run := func(ctx context.Context) {
		if err := svc.Start(ctx); err != nil {
			srv.log.Error("webhook delivery did not start", "err", err)
			return
		}
		<-ctx.Done()
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), webhooks.Timeout+time.Second)
		defer cancel()
		if err := svc.Stop(stopCtx); err != nil {
			srv.log.Warn("webhook delivery stopped with deliveries still running", "err", err)
		}
	}
	return svc, policy, run, nil
}
