package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

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

// webhookAction is one action: POST /<resource>/{id}/<name>, gated like a write of resource.
// webhookActions routes them (webhookRoutes) and describes them in the OpenAPI document
// (actionPaths), so neither can have an action the other lacks.
type webhookAction struct {
	resource, name string
	summary, doc   string
	status         int
	result         string // what the success response carries
	// answers names the resource whose whole record is the action's data; "" when data
	// (its schema) describes it instead.
	answers string
	data    func() obj
	act     func(a *API, ctx context.Context, p *store.Principal, id string) (json.RawMessage, error)
}

var webhookActions = []webhookAction{
	{resource: "webhook_endpoints", name: webhooks.ActionTest, status: http.StatusAccepted,
		summary: "Send a ping event to a webhook endpoint", result: "The ping is queued: its event id.",
		doc: "Queues a ping event to this endpoint alone, whatever its events; the delivery log shows its attempts. Admin only.",
		data: func() obj {
			return obj{"type": "object", "required": []string{"event_id", "type"}, "additionalProperties": false,
				"properties": obj{"event_id": workspace.UUID.Schema(workspace.OpenAPIDialect),
					"type": obj{"const": webhooks.PingType, "description": "the event's type"}}}
		},
		act: func(a *API, ctx context.Context, p *store.Principal, id string) (json.RawMessage, error) {
			eventID, err := a.cfg.Webhooks.Ping(ctx, p, id)
			data, _ := json.Marshal(map[string]string{"event_id": eventID, "type": webhooks.PingType})
			return data, err
		}},
	{resource: "webhook_endpoints", name: webhooks.ActionRotateSecret, status: http.StatusOK, answers: "webhook_endpoints",
		summary: "Rotate a webhook endpoint's signing secret", result: "The endpoint, with its new secret.",
		doc: "Makes a new whsec_ secret and answers the endpoint with it (the only response that shows it); " +
			"for " + workspace.InWords(webhooks.RotationOverlap) + " deliveries are signed with the new and the previous secret. Admin only.",
		act: func(a *API, ctx context.Context, p *store.Principal, id string) (json.RawMessage, error) {
			secret, err := a.cfg.Webhooks.Rotate(ctx, p, id)
			if err != nil {
				return nil, err
			}
			rec, err := a.ops.Get(ctx, p, workspace.Lookup("webhook_endpoints"), id)
			return workspace.WithSecret(rec, secret), err
		}},
	{resource: "webhook_deliveries", name: webhooks.ActionRetry, status: http.StatusAccepted, answers: "webhook_deliveries",
		summary: "Retry a webhook delivery now", result: "The delivery, pending again.",
		doc: "Queues another attempt of this delivery now, whatever its status; its attempt count goes on. Admin only.",
		act: func(a *API, ctx context.Context, p *store.Principal, id string) (json.RawMessage, error) {
			if err := a.cfg.Webhooks.Retry(ctx, p, id); err != nil {
				return nil, err
			}
			return a.ops.Get(ctx, p, workspace.Lookup("webhook_deliveries"), id)
		}},
}

func (act *webhookAction) path() string { return "/" + act.resource + "/{id}/" + act.name }

// webhookRoutes adds the endpoint and delivery actions.
func (a *API) webhookRoutes(r chi.Router) {
	for i := range webhookActions {
		r.Post(webhookActions[i].path(), a.handle(a.webhookAction(&webhookActions[i])))
	}
}

// actionNotAllowed is the 405 of another method than POST on the path of action name of
// resource, or nil when resource has no such action.
func actionNotAllowed(method, resource, name string) *store.Error {
	for i := range webhookActions {
		if act := &webhookActions[i]; act.resource == resource && act.name == name {
			return &store.Error{Code: store.CodeMethodNotAllowed, Allow: []string{http.MethodPost},
				Message: method + " " + act.path() + " is not supported; allowed: POST"}
		}
	}
	return nil
}

// webhookAction serves an action over REST (WebhookAction).
func (a *API) webhookAction(act *webhookAction) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		data, err := a.runWebhookAction(r.Context(), httpx.PrincipalFrom(r.Context()), act, chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		return writeData(w, act.status, data, nil)
	}
}

// WebhookAction runs action name (test, rotate_secret, retry) on record id of resource for
// p, exactly as POST /<resource>/{id}/<name> does; the console's webhooks page calls it
// (console/webhooks.go). An unknown action is not_found.
func (a *API) WebhookAction(ctx context.Context, p *store.Principal, resource, name, id string) (json.RawMessage, error) {
	for i := range webhookActions {
		if act := &webhookActions[i]; act.resource == resource && act.name == name {
			return a.runWebhookAction(ctx, p, act, id)
		}
	}
	return nil, store.Errorf(store.CodeNotFound, "no action %s on %s", name, resource)
}

// runWebhookAction gates an action like a write of its resource (the write scope, the
// admin role), refuses a malformed id as not_found, and returns the action's data.
func (a *API) runWebhookAction(ctx context.Context, p *store.Principal, act *webhookAction, id string) (json.RawMessage, error) {
	if err := workspace.PermitWebhookAction(p, act.resource, id); err != nil {
		return nil, err
	}
	if a.cfg.Webhooks == nil {
		return nil, &store.Error{Code: store.CodeInternal, Unavailable: true, Message: "webhook delivery is not running on this server"}
	}
	data, err := act.act(a, ctx, p, id)
	if err != nil {
		var e *store.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, store.Internal(err)
	}
	return data, nil
}

// actionPaths describes the actions in the OpenAPI document, adding to schemas the whole
// records they answer.
func actionPaths(paths, schemas, idParam obj) {
	for i := range webhookActions {
		act := &webhookActions[i]
		var data any
		if act.answers != "" {
			schemas[act.answers] = recordSchema(workspace.Lookup(act.answers))
			data = ref("schemas", act.answers)
		} else {
			data = act.data()
		}
		paths[act.path()] = obj{"post": obj{"operationId": act.name + "_" + act.resource, "summary": act.summary,
			"description": act.doc, "tags": []string{workspace.Lookup(act.resource).Toolset()}, "parameters": []any{idParam},
			"responses": errorResponses(obj{strconv.Itoa(act.status): dataResponse(act.result, data)},
				"401", "403", "404", "405", "429", "500")}}
	}
}
