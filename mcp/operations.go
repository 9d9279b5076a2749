// Package mcp serves the REST API's operations as Model Context Protocol tools over
// Streamable HTTP at /mcp (decisions.md 8). Tools are generated from restapi.Catalog() and
// every call runs through the same operation layer as REST, so the two transports share
// their gates, validation, row-level security, activity, credits and rate limits.
package mcp

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
)

// Kind is the operation a tool performs.
type Kind string

// The operations of service-spec.md 4.1 and 4.2. Enrichment is KindCreate on the enrich
// resource, as it is POST /enrich over REST.
const (
	KindList   Kind = "list"
	KindGet    Kind = "get"
	KindCreate Kind = "create"
	KindUpdate Kind = "update"
	KindDetach Kind = "detach"
	KindMe     Kind = "me"
)

// Op is one operation as the REST adapter would hand it to the operation layer, so the
// layer parses and validates MCP arguments exactly as it does HTTP requests.
type Op struct {
	Kind     Kind
	Resource *restapi.Resource // nil for KindMe
	// ID names the record of get and update; "" updates the singleton workspace.
	ID string
	// Query carries a list's filters, limit and cursor in REST's query-string form
	// (booleans "true"/"false", numbers in decimal), unknown keys included, so the layer
	// answers 400 naming the valid filters as REST does.
	Query url.Values
	// Body is the JSON object a create, update, detach or enrichment carries, with keys as
	// given (unknown keys are the layer's to ignore).
	Body json.RawMessage
	// IdempotencyKey makes a create, detach or enrichment safe to retry, as REST's
	// Idempotency-Key header does; "" for none.
	IdempotencyKey string
}

// Result is an operation's answer: REST's data member and, for lists, next_cursor.
type Result struct {
	Data       any
	NextCursor *string
}

// Operations runs catalogue operations with every gate REST applies (decisions.md 3):
// scope, feature grant, admin rules, validation and row-level security. Failures are
// store.Error values with the spec's codes (insufficient_scope, insufficient_permission,
// not_found, validation_error, bad_request, create_failed, insufficient_credits ...), which
// the server turns into tool errors; any other error is rendered as internal_error.
type Operations interface {
	Do(ctx context.Context, p *store.Principal, op Op) (*Result, error)
}
