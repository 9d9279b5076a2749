package workspace

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Ops is the operation layer REST and MCP share: every gate is checked here, so the two
// transports can never disagree. Its methods take the principal, the resource name and
// transport-free inputs, and return JSON data or a *apierr.Error; the order of checks is
// docs/decisions.md 3: resource known (404 unknown_resource), operation offered (405
// method_not_allowed), scope (403 insufficient_scope), feature grant and admin rules (403
// insufficient_permission), then the statement as the actor under RLS.
type Ops struct {
	store    *store.Store
	enricher Enricher
	// webhookURLs judges webhook endpoint URLs and webhooks runs the record actions
	// (webhooks.go); nil refuses every URL and answers the actions 503.
	webhookURLs WebhookURLs
	webhooks    WebhookDelivery
	capacities  Capacities
	// lastForeground is when the last operation but background work was admitted, in
	// Unix nanoseconds (QuietFor).
	lastForeground atomic.Int64

	keyMu     sync.Mutex
	cursorKey []byte // nil until first needed (see cursor.go)

	fields fieldCache // custom field definitions lists read (fieldcache.go)

	sortIndexes sortIndexes // the record-table indexes of custom sorts (sortindex.go)

	// statements holds the parts of each resource's statements that never change, built
	// once from the catalogue instead of on every request.
	statements map[*Resource]statements
}

// statements are a resource's fixed SQL: its quoted column list and the whole Get statement.
type statements struct {
	columns, get string
}

// Config is what the operation layer needs; cmd builds it and hands the Ops to every
// adapter (restapi, mcp, console).
type Config struct {
	Store *store.Store
	// Enricher serves enrich; nil answers 503 "enrichment is not configured".
	Enricher Enricher
	// CursorKey signs list cursors; nil uses a key made once and kept in the database, so
	// every process of a deployment accepts the others' cursors.
	CursorKey []byte
	// WebhookURLs judges webhook endpoint URLs on create and update (webhooks.URLPolicy);
	// nil refuses every URL.
	WebhookURLs WebhookURLs
	// Webhooks runs the webhook record actions (webhooks.Service); nil answers them 503.
	Webhooks WebhookDelivery
	// Capacities bound the operations in flight of each class and each workspace's and
	// credential's share of them (capacity.go); the zero value bounds nothing.
	Capacities Capacities
}

// NewOps builds the operation layer.
func NewOps(cfg Config) *Ops {
	o := &Ops{store: cfg.Store, enricher: cfg.Enricher, webhookURLs: cfg.WebhookURLs, webhooks: cfg.Webhooks, capacities: cfg.Capacities,
		statements: make(map[*Resource]statements, len(catalog))}
	if len(cfg.CursorKey) > 0 {
		o.cursorKey = cfg.CursorKey
	}
	for _, r := range catalog {
		cols := columnList(r)
		o.statements[r] = statements{
			columns: cols,
			get:     getStatement(r, cols),
		}
	}
	return o
}

// getStatement reads one record's columns (quoted, comma-separated) by id as JSON.
func getStatement(r *Resource, cols string) string {
	return "SELECT row_to_json(x)::text FROM (SELECT " + cols + " FROM " + ident(r.Table) +
		` WHERE "id" = $1::text::uuid) x`
}

// MeResult is the body of GET /me (docs/decisions.md 4). Its schema, MeSchema, is derived
// from these types: the json tags name the members, the jsonschema tags describe them.
type MeResult struct {
	User       MeUser       `json:"user" jsonschema:"the member (or agent user) behind the credential"`
	Workspace  MeWorkspace  `json:"workspace"`
	Scopes     []string     `json:"scopes" jsonschema:"the scopes the credential carries"`
	Credential MeCredential `json:"credential"`
}

// MeUser is the member (or agent user) behind the credential.
type MeUser struct {
	ID          string            `json:"id"`
	Email       string            `json:"email"`
	DisplayName string            `json:"display_name"`
	Role        string            `json:"role"`
	IsAgent     bool              `json:"is_agent"`
	Grants      map[string]string `json:"grants" jsonschema:"feature grants; admins hold full on every feature"`
}

// MeWorkspace names the credential's workspace.
type MeWorkspace struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// MeCredential says what was presented.
type MeCredential struct {
	Type      string     `json:"type"`
	ClientID  string     `json:"client_id,omitempty" jsonschema:"the OAuth client, for oauth"`
	ExpiresAt *time.Time `json:"expires_at,omitempty" jsonschema:"when the access token expires, for oauth"`
}

// Me returns what the credential resolves to; it touches no resource.
func (o *Ops) Me(ctx context.Context, p *auth.Principal) (*MeResult, error) {
	done, err := o.admitClass(ctx, p, ClassRead)
	if err != nil {
		return nil, err
	}
	defer done()
	name, err := o.store.WorkspaceName(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	grants := map[string]string{}
	for _, f := range store.Features {
		grants[f] = p.Grant(f)
	}
	scopes := p.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	return &MeResult{
		User: MeUser{ID: p.UserID, Email: p.Email, DisplayName: p.DisplayName, Role: p.Role, IsAgent: p.IsAgent,
			Grants: grants},
		Workspace:  MeWorkspace{ID: p.WorkspaceID, Name: name},
		Scopes:     scopes,
		Credential: MeCredential{Type: p.Credential.Type, ClientID: p.Credential.ClientID, ExpiresAt: p.Credential.ExpiresAt},
	}, nil
}
