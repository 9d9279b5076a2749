package workspace_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// TestResultSchemasMatchTheirTypes: the one statement of GET /me's and POST /enrich's
// bodies (workspace.MeSchema, EnrichSchema), which the OpenAPI document and the MCP
// output schemas derive from, names exactly the members the Go types encode, at every
// level, so neither drifts from what the server sends.
func TestResultSchemasMatchTheirTypes(t *testing.T) {
	now := time.Now()
	me := workspace.MeResult{User: workspace.MeUser{Grants: map[string]string{}}, // omitempty members set
		Credential: workspace.MeCredential{Type: "oauth", ClientID: "c", ExpiresAt: &now}}
	cases := []struct {
		name   string
		schema *jsonschema.Schema
		value  any
	}{
		{"me", workspace.MeSchema(), me},
		{"enrich", workspace.EnrichSchema(), enrich.Result{}},
	}
	for _, c := range cases {
		raw, err := json.Marshal(c.value)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		sameMembers(t, c.name, c.schema, v)
	}
}

// TestResultSchemasValidate: a body the server sends validates against its schema, and one
// the schema's enumerations or closing refuse does not: role and the grants take only
// their constants' values, and no member beyond the type's.
func TestResultSchemasValidate(t *testing.T) {
	now := time.Now()
	grants := map[string]string{}
	for _, f := range store.Features {
		grants[f] = workspace.GrantLevels()[0]
	}
	me := workspace.MeResult{User: workspace.MeUser{ID: "5f0c6a36-3d0e-4c39-9a57-0d7e3f1b2c4d", Role: store.Roles()[0], Grants: grants},
		Scopes: []string{"deals:read"}, Credential: workspace.MeCredential{Type: "oauth", ClientID: "c", ExpiresAt: &now}}
	enriched := workspace.EnrichResult{EnrichCompany: workspace.EnrichCompany{Domain: "example.com"}, Cached: true}
	cases := []struct {
		name   string
		schema *jsonschema.Schema
		value  any
		bad    func(map[string]any)
	}{
		{"me", workspace.MeSchema(), me, func(v map[string]any) { v["user"].(map[string]any)["role"] = "owner" }},
		{"me grants", workspace.MeSchema(), me, func(v map[string]any) {
			v["user"].(map[string]any)["grants"].(map[string]any)["crm"] = "write"
		}},
		{"enrich", workspace.EnrichSchema(), enriched, func(v map[string]any) { v["score"] = 1 }},
	}
	for _, c := range cases {
		resolved, err := c.schema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		raw, err := json.Marshal(c.value)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s: the server's body %s fails its schema: %v", c.name, raw, err)
		}
		c.bad(v)
		if err := resolved.Validate(v); err == nil {
			t.Errorf("%s: the schema accepts %v", c.name, v)
		}
	}
}

// sameMembers compares an object schema's properties with an encoded value's members,
// descending into nested objects that have both (grants is keyed by feature, not fixed).
func sameMembers(t *testing.T, path string, s *jsonschema.Schema, v map[string]any) {
	t.Helper()
	want, got := slices.Sorted(maps.Keys(s.Properties)), slices.Sorted(maps.Keys(v))
	if len(v) > 0 && !slices.Equal(want, got) {
		t.Errorf("%s: schema names %v, the type encodes %v", path, want, got)
		return
	}
	for name, p := range s.Properties {
		if sub, ok := v[name].(map[string]any); ok && len(p.Properties) > 0 {
			sameMembers(t, path+"."+name, p, sub)
		}
	}
}
