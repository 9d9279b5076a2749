package workspace

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/webhooks"
)

// Webhook endpoints (docs/webhooks.md) are a catalogue resource with three additions: the
// URL passes the SSRF policy and the event patterns name real events on create and update,
// create answers the signing secret once, and three actions (restapi/webhooks.go) sit
// beside the generic operations.

const webhookEndpoints = "webhook_endpoints"

// PermitWebhookAction gates an action on a record of resource (webhook_endpoints or
// webhook_deliveries) like a write of it: the write scope, the admin role; a malformed id
// is not_found. Whether the record exists for p is the action's to find out, under RLS.
func PermitWebhookAction(p *store.Principal, resource, id string) error {
	r := Lookup(resource)
	if p == nil {
		return store.Unauthorized("no credential")
	}
	if err := checkScope(p, r, OpCreate); err != nil {
		return err
	}
	if !p.IsAdmin() {
		return adminOnlyError(r)
	}
	if !isUUID(id) {
		return notFound(r, id)
	}
	return nil
}

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
			if p := webhooks.CheckPatterns(a.value.([]string), eventsSent()); p != "" {
				bad = append(bad, store.FieldError{Field: "events", Problem: p})
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
		actions = append(actions, webhooks.Created)
	}
	if r.CanUpdate() {
		actions = append(actions, webhooks.Updated)
	}
	if r.CanDetach() {
		actions = append(actions, webhooks.Detached)
	}
	if r.Mergeable {
		actions = append(actions, webhooks.Merged)
	}
	return actions
}

// endpointSecret makes the secret of a new endpoint and the statement part that stores it
// beside the insert (x is the insert's CTE); the secret is $n of args.
func endpointSecret(args *[]any) (with, secret string) {
	secret = webhooks.NewSecret()
	*args = append(*args, secret)
	return `, s AS (INSERT INTO webhook_secrets (endpoint_id, secret) SELECT id, $` + strconv.Itoa(len(*args)) + ` FROM x)`, secret
}

// WithSecret puts secret into a record whose secret field is null (row_to_json's spelling).
func WithSecret(rec json.RawMessage, secret string) json.RawMessage {
	s, _ := json.Marshal(secret)
	return json.RawMessage(strings.Replace(string(rec), `,"secret":null`, `,"secret":`+string(s), 1))
}
