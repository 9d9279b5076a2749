package workspace

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/store"
)

// The bodies of GET /me and POST /enrich are stated here once: the OpenAPI document
// (restapi) publishes them as they are, and the me and enrich_company tools (mcp) derive
// their output schemas from them.

// MeSchema is the body of GET /me, field for field MeResult.
func MeSchema() *jsonschema.Schema {
	str := &jsonschema.Schema{Type: "string"}
	uuid := UUID.Schema(OpenAPIDialect)
	grants := map[string]*jsonschema.Schema{}
	levels := []any{}
	for _, l := range GrantLevels() {
		levels = append(levels, l)
	}
	for _, f := range store.Features {
		grants[f] = &jsonschema.Schema{Type: "string", Enum: levels}
	}
	roles := []any{}
	for _, r := range store.Roles() {
		roles = append(roles, r)
	}
	closed := func(desc string, props map[string]*jsonschema.Schema, order []string, required ...string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Description: desc, Properties: props, PropertyOrder: order,
			Required: required, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	}
	example := map[string]any{"user": map[string]any{"id": "5f0c6a36-3d0e-4c39-9a57-0d7e3f1b2c4d", "email": "ann@example.com",
		"display_name": "Ann", "role": "member", "is_agent": false, "grants": map[string]any{"crm": "full", "hr": "none",
			"finance": "read", "metrics": "none", "competitors": "none", "agents": "none"}},
		"workspace":  map[string]any{"id": "0b6b3f5c-0a43-4c43-8f0e-54a4e0d7d3a1", "name": "Acme Agency"},
		"scopes":     []any{"deals:read", "deals:write"},
		"credential": map[string]any{"type": "oauth", "client_id": "crm-sync", "expires_at": "2026-11-22T15:00:00Z"}}
	userOrder := []string{"id", "email", "display_name", "role", "is_agent", "grants"}
	s := closed("", map[string]*jsonschema.Schema{
		"user": closed("the member (or agent user) behind the credential", map[string]*jsonschema.Schema{
			"id": uuid, "email": str, "display_name": str,
			"role":     {Type: "string", Enum: roles},
			"is_agent": {Type: "boolean"},
			"grants": {Type: "object", Properties: grants, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
				Description: "feature grants; admins hold full on every feature"},
		}, userOrder, userOrder...),
		"workspace": closed("", map[string]*jsonschema.Schema{"id": uuid, "name": str}, []string{"id", "name"}, "id", "name"),
		"scopes":    {Type: "array", Items: str, Description: "the scopes the credential carries"},
		"credential": closed("", map[string]*jsonschema.Schema{
			"type":       {Type: "string", Enum: []any{"oauth", "agent_key"}},
			"client_id":  {Type: "string", Description: "the OAuth client, for oauth"},
			"expires_at": {Type: "string", Format: "date-time", Description: "when the access token expires, for oauth"},
		}, []string{"type", "client_id", "expires_at"}, "type"),
	}, []string{"user", "workspace", "scopes", "credential"}, "user", "workspace", "scopes", "credential")
	s.Examples = []any{example}
	return s
}

// EnrichSchema is the data of POST /enrich and enrich_company's result, field for field
// enrich.Result, in the dialect d.
func EnrichSchema(d Dialect) *jsonschema.Schema {
	str := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }
	socials := []string{"linkedin", "twitter", "instagram", "facebook"}
	socialProps := map[string]*jsonschema.Schema{}
	for _, n := range socials {
		socialProps[n] = str()
	}
	return &jsonschema.Schema{Type: "object", PropertyOrder: []string{"domain", "name", "website", "industry", "socials",
		"cached", "credits_spent", "credits_remaining"},
		Properties: map[string]*jsonschema.Schema{
			"domain":   str(),
			"name":     d.nullable(str()),
			"website":  d.nullable(str()),
			"industry": d.nullable(str()),
			"socials": {Type: "object", Properties: socialProps, PropertyOrder: socials,
				Description: "social profile URLs, each https or empty"},
			"cached":            {Type: "boolean", Description: "served from the 30-day cache, free"},
			"credits_spent":     {Type: "integer"},
			"credits_remaining": {Type: "integer"},
		}}
}
