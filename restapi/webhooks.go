package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// The webhook actions of docs/webhooks.md beside the generic routes: test (ping), secret
// rotation, and retrying a delivery.

// WebhookActions are the admin actions delivery offers; webhooks.Service implements them.
type WebhookActions interface {
	// Ping queues a ping to the endpoint and returns its event id.
	Ping(ctx context.Context, p *store.Principal, endpointID string) (string, error)
	// Retry queues the delivery again now.
	Retry(ctx context.Context, p *store.Principal, deliveryID string) error
	// Rotate replaces the endpoint's secret and returns the new one.
	Rotate(ctx context.Context, p *store.Principal, endpointID string) (string, error)
}

var _ WebhookActions = (*webhooks.Service)(nil)

// webhookRoutes adds the endpoint and delivery actions.
func (a *API) webhookRoutes(r chi.Router) {
	r.Post("/webhook_endpoints/{id}/test", a.handle(a.webhookAction("webhook_endpoints", func(ctx context.Context, p *store.Principal, id string) (json.RawMessage, int, error) {
		eventID, err := a.cfg.Webhooks.Ping(ctx, p, id)
		data, _ := json.Marshal(map[string]string{"event_id": eventID, "type": webhooks.PingType})
		return data, http.StatusAccepted, err
	})))
	r.Post("/webhook_endpoints/{id}/rotate_secret", a.handle(a.webhookAction("webhook_endpoints", func(ctx context.Context, p *store.Principal, id string) (json.RawMessage, int, error) {
		secret, err := a.cfg.Webhooks.Rotate(ctx, p, id)
		if err != nil {
			return nil, 0, err
		}
		rec, err := a.ops.Get(ctx, p, workspace.Lookup("webhook_endpoints"), id)
		return workspace.WithSecret(rec, secret), http.StatusOK, err
	})))
	r.Post("/webhook_deliveries/{id}/retry", a.handle(a.webhookAction("webhook_deliveries", func(ctx context.Context, p *store.Principal, id string) (json.RawMessage, int, error) {
		if err := a.cfg.Webhooks.Retry(ctx, p, id); err != nil {
			return nil, 0, err
		}
		rec, err := a.ops.Get(ctx, p, workspace.Lookup("webhook_deliveries"), id)
		return rec, http.StatusAccepted, err
	})))
}

// webhookAction gates an action like a write of resource (its write scope, the admin role),
// refuses a malformed id as not_found, and writes the action's data.
func (a *API) webhookAction(resource string, act func(ctx context.Context, p *store.Principal, id string) (json.RawMessage, int, error)) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, id := httpx.PrincipalFrom(r.Context()), chi.URLParam(r, "id")
		if err := workspace.PermitWebhookAction(p, resource, id); err != nil {
			return err
		}
		if a.cfg.Webhooks == nil {
			return &store.Error{Code: store.CodeInternal, Unavailable: true, Message: "webhook delivery is not running on this server"}
		}
		data, status, err := act(r.Context(), p, id)
		if err != nil {
			var e *store.Error
			if errors.As(err, &e) {
				return e
			}
			return store.Internal(err)
		}
		return writeData(w, status, data, nil)
	}
}
