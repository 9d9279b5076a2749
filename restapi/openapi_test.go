package restapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/agencyos/workspaced/restapi"
)

// TestOpenAPIDocument: the document is served without credentials, is a valid OpenAPI
// 3.1 document, and has an operation for every operation of the catalogue.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do("GET", "/openapi.json", "", "", "")
	if r.Status != http.StatusOK || r.Body["openapi"] != "3.1.0" {
		t.Fatalf("GET /openapi.json: %d %.200s", r.Status, r.Raw)
	}
	doc, err := openapi3.NewLoader().LoadFromData(r.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("invalid document: %v", err)
	}
	ops := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ops[op.OperationID] = true
		}
	}
	for _, res := range restapi.Catalog {
		want := map[string]bool{"list_": res.CanList(), "get_": res.CanGet(), "create_": res.CanCreate() || res.CanDetach(),
			"update_": res.CanUpdate()}
		if res.Access == restapi.WriteOnly {
			want = map[string]bool{}
			if !ops["enrich_company"] {
				t.Error("no enrich_company operation")
			}
		}
		for verb, has := range want {
			if ops[verb+res.Name] != has {
				t.Errorf("operation %s%s present %v, want %v", verb, res.Name, ops[verb+res.Name], has)
			}
		}
		if res.Access == restapi.WriteOnly {
			continue
		}
		list := doc.Paths.Find("/" + res.Name).Get
		for _, f := range res.Filters() {
			if list.Parameters.GetByInAndName("query", f.Name) == nil {
				t.Errorf("list_%s lacks filter %s", res.Name, f.Name)
			}
		}
		if create := doc.Components.Schemas[res.Name+"_create"]; res.CanCreate() && len(create.Value.Required) != len(res.Required()) {
			t.Errorf("create_%s requires %v", res.Name, create.Value.Required)
		}
	}
	for _, name := range []string{"bearer", "apikey"} {
		if doc.Components.SecuritySchemes[name] == nil {
			t.Errorf("no %s security scheme", name)
		}
	}
}
