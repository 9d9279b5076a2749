package workspace

import (
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/store"
)

// The bodies of GET /me and POST /enrich are stated once, as their Go types (MeResult,
// EnrichResult); their schemas are derived from them here, and the OpenAPI document
// (restapi) publishes them as they are, and the me and enrich_company tools (mcp) derive
// their output schemas from them.

// MeSchema is the body of GET /me, derived from MeResult, with the ids' format and the
// values of role and of each feature's grant enumerated.
func MeSchema() *jsonschema.Schema {
	s := resultSchema[MeResult]()
	user, ws := s.Properties["user"], s.Properties["workspace"]
	user.Properties["id"].Format, ws.Properties["id"].Format = "uuid", "uuid"
	user.Properties["role"].Enum = anys(store.Roles())
	grants := user.Properties["grants"]
	grants.Properties, grants.PropertyOrder = map[string]*jsonschema.Schema{}, slices.Clone(store.Features)
	for _, f := range store.Features {
		grants.Properties[f] = &jsonschema.Schema{Type: "string", Enum: anys(GrantLevels())}
	}
	grants.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	s.Properties["credential"].Properties["type"].Enum = []any{"oauth", "agent_key"}
	s.Examples = []any{map[string]any{"user": map[string]any{"id": "5f0c6a36-3d0e-4c39-9a57-0d7e3f1b2c4d", "email": "ann@example.com",
		"display_name": "Ann", "role": "member", "is_agent": false, "grants": map[string]any{"crm": "full", "hr": "none",
			"finance": "read", "metrics": "none", "competitors": "none", "agents": "none"}},
		"workspace":  map[string]any{"id": "0b6b3f5c-0a43-4c43-8f0e-54a4e0d7d3a1", "name": "Acme Agency"},
		"scopes":     []any{"deals:read", "deals:write"},
		"credential": map[string]any{"type": "oauth", "client_id": "crm-sync", "expires_at": "2026-11-22T15:00:00Z"}}}
	return s
}

// EnrichSchema is the data of POST /enrich and enrich_company's result, derived from
// EnrichResult.
func EnrichSchema() *jsonschema.Schema { return resultSchema[EnrichResult]() }

// resultSchema is the JSON Schema of the result type T (jsonschema.For): its members by
// their json names, described by their jsonschema tags, required unless omitempty, no
// others; a time is an RFC 3339 string. A result never encodes null (its slices are never
// nil, its pointers omitempty), so the null For admits for slices and pointers is dropped.
func resultSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"},
	}})
	if err != nil {
		panic("workspace: a result's schema: " + err.Error()) // fixed types: fails every test run or none
	}
	notNull(s)
	return s
}

// notNull drops null from the type lists of s and its members and items.
func notNull(s *jsonschema.Schema) {
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		notNull(p)
	}
	if s.Items != nil {
		notNull(s.Items)
	}
}

func anys[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
