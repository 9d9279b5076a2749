package restapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/workspace"
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
	for _, res := range workspace.Catalog() {
		want := map[string]bool{"list_": res.CanList(), "get_": res.CanGet(), "create_": res.CanCreate() || res.CanDetach(),
			"update_": res.CanUpdate()}
		if res.Access == workspace.WriteOnly {
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
		if res.Access == workspace.WriteOnly {
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
	// The headers and parameters integrations rely on (docs/rest.md, "For integrations"),
	// on every operation that takes them, and the new error codes.
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			has := func(in, name string) bool { return op.Parameters.GetByInAndName(in, name) != nil }
			switch {
			// The webhook actions (POST /<resource>/{id}/<action>) take no Idempotency-Key:
			// a replayed rotation would hand out a stored secret.
			// POST /imports neither: each upload is an import of its own.
			case method == "POST" && !strings.Contains(path, "}/") && path != "/imports" && (!has("header", "Idempotency-Key") || op.Responses.Status(409) == nil):
				t.Errorf("POST %s lacks Idempotency-Key or its 409", path)
			case method == "POST" && strings.Contains(path, "}/") && has("header", "Idempotency-Key"):
				t.Errorf("POST %s declares an Idempotency-Key the server ignores", path)
			case method == "PATCH" && (!has("header", "If-Match") || op.Responses.Status(412) == nil):
				t.Errorf("PATCH %s lacks If-Match or its 412", path)
			// An import is no record: its status changes on its own, without an ETag.
			case method == "GET" && strings.HasSuffix(path, "/{id}") && path != "/imports/{id}" && (!has("header", "If-None-Match") || op.Responses.Status(304) == nil):
				t.Errorf("GET %s lacks If-None-Match or its 304", path)
			case method == "GET" && strings.HasPrefix(op.OperationID, "list_") && (!has("query", "updated_since") || !has("query", "order")):
				t.Errorf("GET %s lacks updated_since or order", path)
			}
		}
	}
	for _, code := range []string{"idempotency_conflict", "idempotency_in_flight", "precondition_failed"} {
		if !strings.Contains(doc.Components.Schemas["Error"].Value.Properties["error"].Value.Description, code) {
			t.Errorf("the Error schema does not name %s", code)
		}
	}
	for _, name := range []string{"bearer", "apikey"} {
		if doc.Components.SecuritySchemes[name] == nil {
			t.Errorf("no %s security scheme", name)
		}
	}
}

// TestOpenAPINoBooleanSubschemas: no schema in the document is the boolean true or false
// except additionalProperties. JSON Schema 2020-12 allows "items": true, but the OpenAPI
// readers that released generators build on do not: oapi-codegen v2.8.2 stops with
// "cannot unmarshal bool into field Schema.items" (TestStockGenerators runs it). A value
// under example, examples, const, enum or default is data, not a schema, and is not looked at.
func TestOpenAPINoBooleanSubschemas(t *testing.T) {
	t.Parallel()
	var doc any
	if err := json.Unmarshal(restapi.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	one := map[string]bool{"schema": true, "items": true, "not": true, "contains": true, "if": true, "then": true,
		"else": true, "propertyNames": true, "unevaluatedItems": true, "unevaluatedProperties": true,
		"additionalItems": true, "contentSchema": true}
	each := map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true}
	named := map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "dependentSchemas": true}
	data := map[string]bool{"example": true, "examples": true, "const": true, "enum": true, "default": true}
	var found []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				p := path + "/" + k
				if data[k] {
					continue
				}
				switch c := c.(type) {
				case bool:
					if one[k] {
						found = append(found, p)
					}
				case []any:
					for i, e := range c {
						if _, ok := e.(bool); ok && each[k] {
							found = append(found, p+"/"+strconv.Itoa(i))
						}
					}
				case map[string]any:
					if named[k] {
						for name, s := range c {
							if _, ok := s.(bool); ok {
								found = append(found, p+"/"+name)
							}
						}
					}
				}
				walk(p, c)
			}
		case []any:
			for i, e := range v {
				walk(path+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("#", doc)
	sort.Strings(found)
	if len(found) > 0 {
		t.Fatalf("%d boolean subschemas, want none (give an any-value schema a description, so it is written as an object): %s",
			len(found), strings.Join(found, ", "))
	}
}
