package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/webhooks"
)

// Webhook endpoints (docs/webhooks.md) are a catalogue resource with three additions: the
// URL passes the SSRF policy and the event patterns name real events on create and update,
// create answers the signing secret once, and three actions sit beside the generic routes.

const webhookEndpoints = "webhook_endpoints"

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

// checkEndpoint runs the checks of a webhook endpoint body beyond its field types.
func (o *Ops) checkEndpoint(ctx context.Context, r *Resource, set []assignment) error {
	var bad []store.FieldError
	for _, a := range set {
		switch a.field.Name {
		case "url":
			if err := o.webhookURLs.Check(ctx, a.value.(string)); err != nil {
				bad = append(bad, store.FieldError{Field: "url", Problem: strings.TrimPrefix(err.Error(), webhooks.ErrRefusedURL.Error()+": ")})
			}
		case "events":
			if p := webhooks.CheckPatterns(a.value.([]string), resourceNames()); p != "" {
				bad = append(bad, store.FieldError{Field: "events", Problem: p})
			}
		}
	}
	if len(bad) > 0 {
		return validationError(r, bad)
	}
	return nil
}

func resourceNames() []string {
	names := make([]string, 0, len(catalog))
	for _, r := range catalog {
		names = append(names, r.Name)
	}
	return names
}

// endpointSecret makes the secret of a new endpoint and the statement part that stores it
// beside the insert (x is the insert's CTE); the secret is $n of args.
func endpointSecret(args *[]any) (with, secret string) {
	secret = webhooks.NewSecret()
	*args = append(*args, secret)
	return `, s AS (INSERT INTO webhook_secrets (endpoint_id, secret) SELECT id, $` + strconv.Itoa(len(*args)) + ` FROM x)`, secret
}

// withSecret puts secret into a record whose secret field is null (row_to_json's spelling).
func withSecret(rec json.RawMessage, secret string) json.RawMessage {
	s, _ := json.Marshal(secret)
	return json.RawMessage(strings.Replace(string(rec), `,"secret":null`, `,"secret":`+string(s), 1))
}

// webhookRoutes adds the endpoint and delivery actions.
func (a *API) webhookRoutes(r chi.Router) {
	r.Post("/webhook_endpoints/{id}/test", a.handle(a.webhookAction(webhookEndpoints, func(ctx context.Context, p *store.Principal, id string) (json.RawMessage, int, error) {
		eventID, err := a.cfg.Webhooks.Ping(ctx, p, id)
		data, _ := json.Marshal(map[string]string{"event_id": eventID, "type": webhooks.PingType})
		return data, http.StatusAccepted, err
	})))
	r.Post("/webhook_endpoints/{id}/rotate_secret", a.handle(a.webhookAction(webhookEndpoints, func(ctx context.Context, p *store.Principal, id string) (json.RawMessage, int, error) {
		secret, err := a.cfg.Webhooks.Rotate(ctx, p, id)
		if err != nil {
			return nil, 0, err
		}
		rec, err := a.ops.Get(ctx, p, webhookEndpoints, id)
		return withSecret(rec, secret), http.StatusOK, err
	})))
	r.Post("/webhook_deliveries/{id}/retry", a.handle(a.webhookAction("webhook_deliveries", func(ctx context.Context, p *store.Principal, id string) (json.RawMessage, int, error) {
		if err := a.cfg.Webhooks.Retry(ctx, p, id); err != nil {
			return nil, 0, err
		}
		rec, err := a.ops.Get(ctx, p, "webhook_deliveries", id)
		return rec, http.StatusAccepted, err
	})))
}

// webhookAction gates an action like a write of resource (its write scope, the admin role),
// refuses a malformed id as not_found, and writes the action's data.
func (a *API) webhookAction(resource string, act func(ctx context.Context, p *store.Principal, id string) (json.RawMessage, int, error)) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, id := PrincipalFrom(r.Context()), chi.URLParam(r, "id")
		res := Lookup(resource)
		if p == nil {
			return store.Unauthorized("no credential")
		}
		if err := checkScope(p, res, OpCreate); err != nil {
			return err
		}
		if !p.IsAdmin() {
			return store.Errorf(http.StatusForbidden, "insufficient_permission", "%s is for workspace admins only; ask a workspace admin", res.Name)
		}
		if !isUUID(id) {
			return notFound(res, id)
		}
		if a.cfg.Webhooks == nil {
			return store.Errorf(http.StatusServiceUnavailable, "internal_error", "webhook delivery is not running on this server")
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
