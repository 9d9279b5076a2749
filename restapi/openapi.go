package restapi

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The OpenAPI 3.1 document of the REST API, generated from the catalogue (decisions.md 1):
// every path and method, filters with their types and enumerations, request schemas
// (create: the required list; update: all optional, at least one property), record
// schemas with every column, the list and error envelopes, both credentials. Record
// schemas are closed (additionalProperties: false), so a column leaking into responses
// fails the tests that validate every exchange against this document. Schemas use JSON
// Schema 2020-12 as OpenAPI 3.1 does: nullable values are type arrays ["string", "null"].

// OpenAPI returns the document as JSON.
func OpenAPI() []byte {
	b, err := json.MarshalIndent(openAPIDoc(), "", " ")
	if err != nil {
		panic(err) // the document is made of maps and strings only
	}
	return b
}

func (a *API) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeRaw(w, http.StatusOK, a.openapi)
}

type obj = map[string]any

func ref(kind, name string) obj { return obj{"$ref": "#/components/" + kind + "/" + name} }

// fieldSchema is a field's JSON Schema; nullable adds null to its type (and enum).
func fieldSchema(f *Field, nullable bool) obj {
	s := obj{}
	switch f.Type {
	case String:
		s["type"], s["maxLength"] = "string", f.MaxLength()
	case UUID:
		s["type"], s["format"] = "string", "uuid"
	case Bool:
		s["type"] = "boolean"
	case Int:
		s["type"], s["format"] = "integer", "int32"
		if f.Big {
			s["format"] = "int64"
		}
		if f.Min != nil {
			s["minimum"] = *f.Min
		}
		if f.Max != nil {
			s["maximum"] = *f.Max
		}
	case Number:
		s["type"] = "number"
	case Date:
		s["type"], s["format"] = "string", "date"
	case Time:
		s["type"], s["format"] = "string", "date-time"
	case JSON:
		// Any JSON value. Spelled out as a type list: kin-openapi treats an empty schema
		// as not nullable.
		s["type"] = []any{"object", "array", "string", "number", "boolean", "null"}
	case UUIDs:
		s["type"], s["items"] = "array", obj{"type": "string", "format": "uuid"}
	case Strings:
		s["type"], s["items"] = "array", obj{"type": "string", "maxLength": f.MaxLength()}
	}
	if len(f.Enum) > 0 {
		enum := make([]any, 0, len(f.Enum)+1)
		for _, e := range f.Enum {
			enum = append(enum, e)
		}
		if nullable {
			enum = append(enum, nil)
		}
		s["enum"] = enum
	}
	if nullable && f.Type != JSON {
		s["type"] = []any{s["type"], "null"}
	}
	if f.Doc != "" {
		s["description"] = f.Doc
	}
	return s
}

// recordSchema shows every column a record carries. Required fields and booleans are NOT
// NULL in the schema (TestCatalogMatchesDatabase checks it); everything else may be null.
func recordSchema(r *Resource) obj {
	props := obj{"id": obj{"type": "string", "format": "uuid"}}
	if hasOwner(r) {
		props["workspace_id"] = obj{"type": "string", "format": "uuid"}
		props["created_by"] = obj{"type": []any{"string", "null"}, "format": "uuid", "description": "the user who created it"}
	}
	for i := range r.Fields {
		f := &r.Fields[i]
		props[f.Name] = fieldSchema(f, !f.Required && f.Type != Bool)
	}
	props["created_at"] = obj{"type": "string", "format": "date-time"}
	props["updated_at"] = obj{"type": "string", "format": "date-time"}
	return obj{"type": "object", "description": r.Doc, "properties": props, "required": Columns(r),
		"additionalProperties": false}
}

// writeSchema is the body of a create (required fields listed) or an update.
func writeSchema(r *Resource, create bool) obj {
	props := obj{}
	var required []string
	for _, f := range r.Writable() {
		nullable := !f.Required && f.Type != Bool && f.Type != UUIDs && f.Type != Strings
		s := fieldSchema(&f, nullable)
		if f.Required && f.Type == String && len(f.Enum) == 0 {
			s["minLength"] = 1
		}
		props[f.Name] = s
		if create && f.Required {
			required = append(required, f.Name)
		}
	}
	s := obj{"type": "object", "properties": props,
		"description": "Writable fields of " + r.Name + "; other keys are ignored."}
	if r.CanDetach() {
		props["_detach"] = obj{"type": "boolean", "description": "true unlinks the record named by " +
			r.DetachKeys[0] + " and " + r.DetachKeys[1] + " instead of creating it (same as ?detach=true)"}
	}
	if create {
		if len(required) > 0 {
			s["required"] = required
		}
	} else {
		s["minProperties"] = 1
	}
	return s
}

func jsonContent(schema obj) obj { return obj{"application/json": obj{"schema": schema}} }

// responseHeaders are on every response of an authenticated call.
func responseHeaders() obj {
	return obj{"X-Request-Id": ref("headers", "RequestID"), "X-RateLimit-Limit": ref("headers", "RateLimitLimit"),
		"X-RateLimit-Remaining": ref("headers", "RateLimitRemaining"), "X-RateLimit-Reset": ref("headers", "RateLimitReset")}
}

func dataResponse(desc string, schema obj) obj {
	return obj{"description": desc, "headers": responseHeaders(),
		"content": jsonContent(obj{"type": "object", "required": []string{"data"}, "properties": obj{"data": schema},
			"additionalProperties": false})}
}

func errorResponses(resp obj, codes ...string) obj {
	for _, c := range codes {
		resp[c] = ref("responses", "Error")
	}
	return resp
}

func openAPIDoc() obj {
	schemas := obj{
		"Error": obj{"type": "object", "required": []string{"error", "message", "request_id"},
			"additionalProperties": false,
			"properties": obj{
				"error":      obj{"type": "string", "description": "stable snake_case code: bad_request, validation_error, not_found ..."},
				"message":    obj{"type": "string", "description": "what went wrong and what to change"},
				"request_id": obj{"type": "string", "description": "repeats the X-Request-Id header"},
				"fields": obj{"type": "array", "description": "422 only: each invalid field",
					"items": obj{"type": "object", "required": []string{"field", "problem"}, "additionalProperties": false,
						"properties": obj{"field": obj{"type": "string"}, "problem": obj{"type": "string"}}}},
			}},
	}
	paths := obj{}
	tag := func(r *Resource) []string { return []string{r.Scope} }
	idParam := obj{"name": "id", "in": "path", "required": true, "schema": obj{"type": "string", "format": "uuid"}}
	for _, r := range Catalog {
		if r.Access == WriteOnly {
			continue
		}
		schemas[r.Name] = recordSchema(r)
		rec := ref("schemas", r.Name)
		coll, item := obj{}, obj{}
		if r.CanList() {
			params := []any{}
			for _, f := range r.Filters() {
				params = append(params, obj{"name": f.Name, "in": "query", "required": false,
					"description": "exact match", "schema": fieldSchema(&f, false)})
			}
			params = append(params, obj{"name": "limit", "in": "query", "required": false,
				"description": "page size, default 50", "schema": obj{"type": "integer", "minimum": 1, "maximum": MaxLimit, "default": DefaultLimit}})
			listDesc := "One page of " + r.Name + ", newest first; the list is complete when next_cursor is null."
			if r.Paged {
				params = append(params, obj{"name": "cursor", "in": "query", "required": false,
					"description": "next_cursor of the previous page", "schema": obj{"type": "string"}})
			} else {
				listDesc = "All " + r.Name + " in one bounded page (at most limit rows); next_cursor is always null."
			}
			coll["get"] = obj{"operationId": "list_" + r.Name, "summary": "List " + r.Name, "description": r.Doc, "tags": tag(r),
				"parameters": params,
				"responses": errorResponses(obj{"200": obj{"description": listDesc,
					"headers": responseHeaders(),
					"content": jsonContent(obj{"type": "object", "required": []string{"data", "next_cursor"},
						"additionalProperties": false,
						"properties": obj{"data": obj{"type": "array", "items": rec},
							"next_cursor": obj{"type": []any{"string", "null"}}}})}},
					"400", "401", "403", "404", "405", "429", "500")}
		}
		if r.CanCreate() || r.CanDetach() {
			schemas[r.Name+"_create"] = writeSchema(r, true)
			op := obj{"operationId": "create_" + r.Name, "summary": "Create a " + r.Name + " record", "tags": tag(r),
				"description": r.Doc,
				"requestBody": obj{"required": true, "content": jsonContent(ref("schemas", r.Name+"_create"))},
				"responses": errorResponses(obj{"201": dataResponse("The created record.", rec)},
					"400", "401", "403", "404", "405", "422", "429", "500")}
			if r.CanDetach() {
				op["summary"] = "Create or detach a " + r.Name + " link"
				op["description"] = r.Doc + " With ?detach=true (or body _detach: true) the link named by " +
					r.DetachKeys[0] + " and " + r.DetachKeys[1] + " is removed instead; no such link answers 404."
				op["parameters"] = []any{obj{"name": "detach", "in": "query", "required": false,
					"description": "true unlinks instead of creating", "schema": obj{"type": "boolean"}}}
				op["responses"].(obj)["200"] = dataResponse("The link was removed.", obj{"type": "object",
					"required": []string{r.DetachKeys[0], r.DetachKeys[1], "detached"}, "additionalProperties": false,
					"properties": obj{r.DetachKeys[0]: obj{"type": "string", "format": "uuid"},
						r.DetachKeys[1]: obj{"type": "string", "format": "uuid"}, "detached": obj{"const": true}}})
			}
			coll["post"] = op
		}
		if r.CanUpdate() {
			schemas[r.Name+"_update"] = writeSchema(r, false)
			update := func(withID bool) obj {
				op := obj{"operationId": "update_" + r.Name, "summary": "Update a " + r.Name + " record (partial)",
					"description": r.Doc, "tags": tag(r),
					"requestBody": obj{"required": true, "content": jsonContent(ref("schemas", r.Name+"_update"))},
					"responses": errorResponses(obj{"200": dataResponse("The updated record.", rec)},
						"400", "401", "403", "404", "405", "422", "429", "500")}
				if withID {
					op["parameters"] = []any{idParam}
				} else {
					op["operationId"] = "update_" + r.Name + "_current"
				}
				return op
			}
			item["patch"] = update(true)
			if r.Access == Singleton {
				coll["patch"] = update(false)
			}
		}
		if r.CanGet() {
			item["get"] = obj{"operationId": "get_" + r.Name, "summary": "Get a " + r.Name + " record", "tags": tag(r),
				"description": r.Doc, "parameters": []any{idParam},
				"responses": errorResponses(obj{"200": dataResponse("The record.", rec)},
					"400", "401", "403", "404", "405", "429", "500")}
		}
		if len(coll) > 0 {
			paths["/"+r.Name] = coll
		}
		if len(item) > 0 {
			paths["/"+r.Name+"/{id}"] = item
		}
	}
	enrich := Lookup("enrich")
	schemas["enrich_create"] = writeSchema(enrich, true)
	paths["/enrich"] = obj{"post": obj{"operationId": "enrich_company", "summary": "Look up a company by domain (metered)",
		"description": enrich.Doc, "tags": []string{"enrich"},
		"requestBody": obj{"required": true, "content": jsonContent(ref("schemas", "enrich_create"))},
		"responses": errorResponses(obj{"200": dataResponse("The company's firmographics.", obj{"type": "object",
			"properties": obj{"domain": obj{"type": "string"}, "name": obj{"type": []any{"string", "null"}},
				"website": obj{"type": []any{"string", "null"}}, "industry": obj{"type": []any{"string", "null"}},
				"socials": obj{"type": "object"}, "cached": obj{"type": "boolean"},
				"credits_spent": obj{"type": "integer"}, "credits_remaining": obj{"type": "integer"}}})},
			"400", "401", "402", "403", "405", "422", "429", "500", "502", "503")}}
	paths["/me"] = obj{"get": obj{"operationId": "me", "summary": "What the credential resolves to",
		"description": "The member (or agent user), its workspace, the credential's scopes and kind. Needs no scope.",
		"responses": errorResponses(obj{"200": dataResponse("The credential's identity.", obj{"type": "object",
			"required": []string{"user", "workspace", "scopes", "credential"}})}, "401", "429", "500")}}
	paths["/openapi.json"] = obj{"get": obj{"operationId": "openapi", "summary": "This document", "security": []any{},
		"responses": obj{"200": obj{"description": "OpenAPI 3.1 document", "content": jsonContent(obj{"type": "object"})}}}}

	var scopes []string
	for _, s := range Scopes() {
		scopes = append(scopes, s)
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "workspaced REST API", "version": "1",
			"description": "Workspace data (CRM, tasks, spaces, metrics, finance, HR, documents, automations, agents, directory, credits) as JSON. " +
				"Every call needs the apikey header (a public routing key) and Authorization: Bearer with an OAuth access token or an agent key. " +
				"Scopes: " + strings.Join(scopes, ", ") + ". The API never deletes; join records are unlinked with POST ?detach=true."},
		"servers":  []any{obj{"url": "/v1"}},
		"security": []any{obj{"bearer": []any{}, "apikey": []any{}}},
		"paths":    paths,
		"components": obj{
			"schemas": schemas,
			"securitySchemes": obj{
				"bearer": obj{"type": "http", "scheme": "bearer",
					"description": "An OAuth access token (svc_at_...) or an agent key (kagt_...)."},
				"apikey": obj{"type": "apiKey", "in": "header", "name": "apikey",
					"description": "The public routing key; clients that cannot set headers may send it as the apikey query parameter."},
			},
			"headers": obj{"RequestID": obj{"required": true, "description": "the request id, kept from the request when well-formed",
				"schema": obj{"type": "string"}},
				"RateLimitLimit": obj{"description": "requests allowed a minute by the tighter budget (60 per token, 600 per workspace)",
					"schema": obj{"type": "integer"}},
				"RateLimitRemaining": obj{"description": "requests left in the tighter budget", "schema": obj{"type": "integer"}},
				"RateLimitReset":     obj{"description": "when the budget refills, Unix seconds", "schema": obj{"type": "integer"}},
				"RetryAfter":         obj{"description": "on 429: seconds to wait (60)", "schema": obj{"type": "integer"}}},
			"responses": obj{"Error": obj{"description": "The error envelope; 405 carries Allow, 429 Retry-After.",
				"headers": obj{"X-Request-Id": ref("headers", "RequestID"), "X-RateLimit-Limit": ref("headers", "RateLimitLimit"),
					"X-RateLimit-Remaining": ref("headers", "RateLimitRemaining"), "X-RateLimit-Reset": ref("headers", "RateLimitReset"),
					"Retry-After": ref("headers", "RetryAfter")},
				"content": jsonContent(ref("schemas", "Error"))}},
		},
	}
}
