package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Webhook endpoints (docs/webhooks.md) are a catalogue resource with three additions: the
// URL passes the SSRF policy and the event patterns name real events on create and update,
// create answers the signing secret once, and three actions (Actions) sit beside the
// generic operations. Delivery itself lives outside the domain: it implements
// WebhookDelivery and WebhookURLs (package webhooks), and cmd hands them to NewOps.

const webhookEndpoints = "webhook_endpoints"

// WebhookURLs judges a webhook endpoint's URL on create and update; webhooks.URLPolicy
// implements it.
type WebhookURLs interface {
	// Refusal returns why raw may not be an endpoint, as a phrase safe to show, or "".
	Refusal(ctx context.Context, raw string) string
}

// WebhookDelivery is what the webhook actions ask of delivery; webhooks.Service implements
// it. Each first reads the record as p (RLS and the admin-only policy decide what p sees:
// another workspace's id is not_found), then acts and records the action in the audit log
// as p's, in one transaction. The gates (Act) have run before.
type WebhookDelivery interface {
	// Ping queues a ping to endpoint id alone and returns its event id.
	Ping(ctx context.Context, p *auth.Principal, id string) (string, error)
	// Retry queues delivery id again now, whatever its status.
	Retry(ctx context.Context, p *auth.Principal, id string) error
	// Rotate gives endpoint id the signing secret (NewSigningSecret) and keeps the
	// previous one signing for RotationOverlap.
	Rotate(ctx context.Context, p *auth.Principal, id, secret string) error
}

// The actions' names: POST /webhook_endpoints/{id}/<name> over REST, and the action of
// their audit-log records.
const (
	ActionTest         = "test"
	ActionRotateSecret = "rotate_secret"
	ActionRetry        = "retry"
)

// Action is an operation on one record beyond the generic ones, gated like a write of its
// resource (Act). REST serves it as POST /<Resource>/{id}/<Name>; the console's webhooks
// page runs it too.
type Action struct {
	Resource, Name string
	Summary, Doc   string
	Result         string // what the success answer carries, in words
	// Queued: the action's effect happens later (REST answers 202), not before the answer.
	Queued bool
	// Answers names the resource whose whole record is the action's data; "" when Data
	// describes it instead.
	Answers string
	Data    func(d Dialect) *jsonschema.Schema
}

// actions are the record actions, in the order the OpenAPI document lists them.
var actions = []*Action{
	{Resource: webhookEndpoints, Name: ActionTest, Queued: true,
		Summary: "Send a ping event to a webhook endpoint", Result: "The ping is queued: its event id.",
		Doc: "Queues a ping event to this endpoint alone, whatever its events; the delivery log shows its attempts. Admin only.",
		Data: func(d Dialect) *jsonschema.Schema {
			return &jsonschema.Schema{Type: "object", Required: []string{"event_id", "type"},
				AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, Properties: map[string]*jsonschema.Schema{
					"event_id": UUID.Schema(d),
					"type":     {Const: jsonschema.Ptr[any](EventPing), Description: "the event's type"}}}
		}},
	{Resource: webhookEndpoints, Name: ActionRotateSecret, Answers: webhookEndpoints,
		Summary: "Rotate a webhook endpoint's signing secret", Result: "The endpoint, with its new secret.",
		Doc: "Makes a new " + SigningSecretPrefix + " secret and answers the endpoint with it (the only response that shows it); " +
			"for " + InWords(RotationOverlap) + " deliveries are signed with the new and the previous secret. Admin only."},
	{Resource: "webhook_deliveries", Name: ActionRetry, Queued: true, Answers: "webhook_deliveries",
		Summary: "Retry a webhook delivery now", Result: "The delivery, pending again.",
		Doc: "Queues another attempt of this delivery now, whatever its status; its attempt count goes on. Admin only."},
}

// Actions lists the record actions.
func Actions() []*Action { return actions }

// LookupAction returns action name of resource, or nil.
func LookupAction(resource, name string) *Action {
	for _, a := range actions {
		if a.Resource == resource && a.Name == name {
			return a
		}
	}
	return nil
}

// actionsOf reports whether r has record actions (OpAction).
func actionsOf(r *Resource) bool {
	for _, a := range actions {
		if a.Resource == r.Name {
			return true
		}
	}
	return false
}

// Act runs action a on record id for p through the gates of every operation (admit, then
// checkMember: the resource's write scope and the admin role), refusing a malformed id as
// not_found, and returns the action's data. Errors: the gates', not_found, 503 while
// delivery is not running on this server.
func (o *Ops) Act(ctx context.Context, p *auth.Principal, a *Action, id string) (json.RawMessage, error) {
	r := Lookup(a.Resource)
	if err := admit(p, r, OpAction); err != nil {
		return nil, err
	}
	if err := checkMember(p, r, OpAction); err != nil {
		return nil, err
	}
	if !isUUID(id) {
		return nil, notFound(r, id)
	}
	if o.webhooks == nil {
		return nil, &apierr.Error{Code: apierr.CodeInternal, Unavailable: true, Message: "webhook delivery is not running on this server"}
	}
	done, err := o.admitClass(ctx, p, ClassWrite)
	if err != nil {
		return nil, err
	}
	defer done()
	data, err := o.runAction(ctx, p, a, id)
	if err != nil {
		var e *apierr.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, store.Internal(err)
	}
	return data, nil
}

// webhookURLRefusal is why raw may not be an endpoint's URL, or "": every URL is refused
// while no policy was configured (NewOps without WebhookURLs).
func (o *Ops) webhookURLRefusal(ctx context.Context, raw string) string {
	if o.webhookURLs == nil {
		return "webhook endpoints cannot be registered on this server"
	}
	return o.webhookURLs.Refusal(ctx, raw)
}

// runAction does what action a does, past its gates.
func (o *Ops) runAction(ctx context.Context, p *auth.Principal, a *Action, id string) (json.RawMessage, error) {
	switch a.Name {
	case ActionTest:
		eventID, err := o.webhooks.Ping(ctx, p, id)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"event_id": eventID, "type": EventPing})
	case ActionRotateSecret:
		secret := NewSigningSecret()
		if err := o.webhooks.Rotate(ctx, p, id, secret); err != nil {
			return nil, err
		}
		rec, err := o.Get(ctx, p, Lookup(a.Answers), id)
		return WithSecret(rec, secret), err
	case ActionRetry:
		if err := o.webhooks.Retry(ctx, p, id); err != nil {
			return nil, err
		}
		return o.Get(ctx, p, Lookup(a.Answers), id)
	}
	return nil, fmt.Errorf("workspace: action %s has no implementation", a.Name)
}

// checkEndpoint runs the checks of a webhook endpoint body beyond its field types.
func (o *Ops) checkEndpoint(ctx context.Context, r *Resource, set []assignment) error {
	var bad []apierr.FieldError
	for _, a := range set {
		switch a.field.Name {
		case "url":
			if problem := o.webhookURLRefusal(ctx, a.value.(string)); problem != "" {
				bad = append(bad, apierr.FieldError{Field: "url", Problem: problem})
			}
		case "events":
			if p := CheckEventPatterns(a.value.([]string), eventsSent()); p != "" {
				bad = append(bad, apierr.FieldError{Field: "events", Problem: p})
			}
		}
	}
	if len(bad) > 0 {
		return validationError(r, bad)
	}
	return nil
}

// eventsSent maps each resource whose writes leave events to their actions (Events).
func eventsSent() map[string][]string {
	sends := map[string][]string{}
	for _, r := range catalog {
		if actions := r.Events(); len(actions) > 0 {
			sends[r.Name] = actions
		}
	}
	return sends
}

// Events lists the actions of the webhook events a write of the resource through the API
// leaves (docs/webhooks.md): created for a create, updated for an update, detached for a
// detach, merged for a merge (merge.go); none for a resource that is no table (enrich). ws_protect gives the tables the
// API writes the outbox trigger, and workspace's TestDatabaseRulesFollowCatalogue holds
// each table's trigger to these actions.
func (r *Resource) Events() []string {
	if r.Access == WriteOnly {
		return nil
	}
	var actions []string
	if r.CanCreate() {
		actions = append(actions, EventCreated)
	}
	if r.CanUpdate() {
		actions = append(actions, EventUpdated)
	}
	if r.CanDetach() {
		actions = append(actions, EventDetached)
	}
	if r.Mergeable {
		actions = append(actions, EventMerged)
	}
	return actions
}

// endpointSecret makes the secret of a new endpoint and the statement part that stores it
// beside the insert (x is the insert's CTE); the secret is $n of args.
func endpointSecret(args *[]any) (with, secret string) {
	secret = NewSigningSecret()
	*args = append(*args, secret)
	return `, s AS (INSERT INTO webhook_secrets (endpoint_id, secret) SELECT id, $` + strconv.Itoa(len(*args)) + ` FROM x)`, secret
}

// WithSecret puts secret into a record whose secret field is null (row_to_json's spelling).
func WithSecret(rec json.RawMessage, secret string) json.RawMessage {
	s, _ := json.Marshal(secret)
	return json.RawMessage(strings.Replace(string(rec), `,"secret":null`, `,"secret":`+string(s), 1))
}
