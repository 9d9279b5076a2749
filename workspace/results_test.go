package workspace_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/enrich"
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
		{"enrich (OpenAPI)", workspace.EnrichSchema(workspace.OpenAPIDialect), enrich.Result{}},
		{"enrich (tools)", workspace.EnrichSchema(workspace.ToolDialect), enrich.Result{}},
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
