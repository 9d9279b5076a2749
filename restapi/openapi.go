package restapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// The OpenAPI 3.1 document of the REST API, generated from the catalogue (docs/decisions.md 1):
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
	if r.URL.Query().Has(workspaceParam) { // the caller's workspace's document: openapi_workspace.go
		a.authenticate(a.handle(a.workspaceOpenAPI)).ServeHTTP(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	httpx.WriteRaw(w, http.StatusOK, a.openapi)
}

type obj = map[string]any

func ref(kind, name string) obj { return obj{"$ref": "#/components/" + kind + "/" + name} }

// toolsets lists the resources' toolsets (Resource.Toolset) in catalogue order, each with
// the resources in it: the OpenAPI document tags each operation with its toolset, so REST
// and MCP group the same resources under the same names.
func toolsets() (names []string, members map[string][]string) {
	members = map[string][]string{}
	for _, r := range workspace.Catalog() {
		f := r.Toolset()
		if members[f] == nil {
			names = append(names, f)
		}
		members[f] = append(members[f], r.Name)
	}
	return names, members
}

// recordSchema shows every column a record carries. Required fields and booleans are NOT
// NULL in the schema (TestCatalogMatchesDatabase checks it); everything else may be null.
func recordSchema(r *workspace.Resource) obj {
	props := obj{"id": workspace.UUID.Schema(workspace.OpenAPIDialect)}
	if workspace.HasOwner(r) {
		props["workspace_id"] = workspace.UUID.Schema(workspace.OpenAPIDialect)
		props["created_by"] = (&workspace.Field{Type: workspace.UUID, Doc: "the user who created it"}).Schema(workspace.OpenAPIDialect, true)
	}
	for i := range r.Fields {
		f := &r.Fields[i]
		props[f.Name] = f.Schema(workspace.OpenAPIDialect, !f.Required && f.Type != workspace.Bool)
	}
	props["created_at"] = workspace.Time.Schema(workspace.OpenAPIDialect)
	props["updated_at"] = workspace.Time.Schema(workspace.OpenAPIDialect)
	return obj{"type": "object", "description": r.Doc, "properties": props, "required": workspace.Columns(r),
		"additionalProperties": false}
}

// writeSchema is the body of a create (required fields listed) or an update.
func writeSchema(r *workspace.Resource, create bool) obj {
	props := obj{}
	var required []string
	for _, f := range r.Writable() {
		s := f.Schema(workspace.OpenAPIDialect, f.AcceptsNull())
		if f.Required && f.Type == workspace.String && len(f.Enum) == 0 {
			s.MinLength = jsonschema.Ptr(1)
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

func dataResponse(desc string, schema any) obj {
	return obj{"description": desc, "headers": responseHeaders(),
		"content": jsonContent(obj{"type": "object", "required": []string{"data"}, "properties": obj{"data": schema},
			"additionalProperties": false})}
}

// recordResponse is a record's response, with its ETag; replayable marks POST responses,
// which an Idempotency-Key may replay.
func recordResponse(desc string, schema obj, replayable bool) obj {
	resp := dataResponse(desc, schema)
	headers := resp["headers"].(obj)
	headers["ETag"] = ref("headers", "ETag")
	if replayable {
		headers["Idempotent-Replayed"] = ref("headers", "IdempotentReplayed")
	}
	return resp
}

func errorResponses(resp obj, codes ...string) obj {
	for _, c := range codes {
		resp[c] = ref("responses", "Error")
		// A rate-limited call meets the rate-limit store's outages too: with the
		// fail-closed policy it answers 503 (LimitError).
		if c == "429" {
			resp["503"] = ref("responses", "Error")
		}
	}
	return resp
}

// errorSchema is the error body, derived from the envelope httpx writes
// (httpx.EnvelopeSchema), with an example.
func errorSchema() *jsonschema.Schema {
	s := httpx.EnvelopeSchema()
	s.Examples = []any{httpx.Envelope{Error: apierr.CodePreconditionFailed,
		Message:   "deals 0b6b3f5c-0a43-4c43-8f0e-54a4e0d7d3a1 changed since the version named by If-Match; GET it again for its current ETag, reapply your change, and retry",
		RequestID: "3c2f0e1a-9d7b-4c55-8a61-2b9e4f7d0c13"}}
	return s
}

func openAPIDoc() obj {
	schemas := obj{
		"Error": errorSchema(),
	}
	paths := obj{}
	tag := func(r *workspace.Resource) []string { return []string{r.Toolset()} }
	idParam := obj{"name": "id", "in": "path", "required": true, "schema": workspace.UUID.Schema(workspace.OpenAPIDialect)}
	for _, r := range workspace.Catalog() {
		if r.Access == workspace.WriteOnly {
			continue
		}
		// The whole record answers writes; a read-only resource's gets and lists answer
		// <resource>_fields, and an unused component is a linter warning.
		if !r.CanGet() || r.CanCreate() || r.CanDetach() || r.CanUpdate() {
			schemas[r.Name] = recordSchema(r)
		}
		rec := ref("schemas", r.Name)
		items, selected := rec, rec
		if r.CanGet() {
			schemas[r.Name+"_fields"] = fieldsSchema(r)
			selected = ref("schemas", r.Name+"_fields")
		}
		if r.CanList() {
			items = selected
		}
		coll, item := obj{}, obj{}
		if r.CanList() {
			params := []any{}
			for _, f := range r.Filters() {
				params = append(params, obj{"name": f.Name, "in": "query", "required": false,
					"description": "exact match", "schema": f.Schema(workspace.OpenAPIDialect, false)})
			}
			params = append(params, findParams(r)...)
			params = append(params, obj{"name": "limit", "in": "query", "required": false,
				"description": "page size, default " + strconv.Itoa(workspace.DefaultLimit), "schema": obj{"type": "integer", "minimum": 1, "maximum": workspace.MaxLimit, "default": workspace.DefaultLimit}},
				ref("parameters", "UpdatedSince"), ref("parameters", "Order"))
			listDesc := "One page of " + r.Name + ", newest first; the list is complete when next_cursor is null."
			if r.Paged {
				params = append(params, obj{"name": "cursor", "in": "query", "required": false,
					"description": "next_cursor of the previous page, with the same order", "schema": obj{"type": "string"}})
			} else {
				listDesc = "All " + r.Name + " in one bounded page (at most limit rows); next_cursor is always null."
			}
			coll["get"] = obj{"operationId": "list_" + r.Name, "summary": "List " + r.Name, "description": r.Doc, "tags": tag(r),
				"parameters": params,
				"responses": errorResponses(obj{"200": obj{"description": listDesc,
					"headers": responseHeaders(),
					"content": jsonContent(obj{"type": "object", "required": []string{"data", "next_cursor"},
						"additionalProperties": false,
						"properties": obj{"data": obj{"type": "array", "items": items},
							"next_cursor": obj{"type": []any{"string", "null"}}}})}},
					"400", "401", "403", "404", "405", "429", "500")}
		}
		if r.CanCreate() || r.CanDetach() {
			schemas[r.Name+"_create"] = writeSchema(r, true)
			op := obj{"operationId": "create_" + r.Name, "summary": "Create a " + r.Name + " record", "tags": tag(r),
				"description": r.Doc,
				"parameters":  []any{ref("parameters", "IdempotencyKey")},
				"requestBody": obj{"required": true, "content": jsonContent(ref("schemas", r.Name+"_create"))},
				"responses": errorResponses(obj{"201": recordResponse("The created record (or, with a reused Idempotency-Key, the first response replayed).", rec, true)},
					"400", "401", "403", "404", "405", "409", "422", "429", "500")}
			if r.CanDetach() {
				op["summary"] = "Create or detach a " + r.Name + " link"
				op["description"] = r.Doc + " With ?detach=true (or body _detach: true) the link named by " +
					r.DetachKeys[0] + " and " + r.DetachKeys[1] + " is removed instead; no such link answers 404."
				op["parameters"] = []any{ref("parameters", "IdempotencyKey"), obj{"name": "detach", "in": "query", "required": false,
					"description": "true unlinks instead of creating", "schema": obj{"type": "boolean"}}}
				op["responses"].(obj)["200"] = dataResponse("The link was removed.", obj{"type": "object",
					"required": []string{r.DetachKeys[0], r.DetachKeys[1], "detached"}, "additionalProperties": false,
					"properties": obj{r.DetachKeys[0]: workspace.UUID.Schema(workspace.OpenAPIDialect),
						r.DetachKeys[1]: workspace.UUID.Schema(workspace.OpenAPIDialect), "detached": obj{"const": true}}})
			}
			coll["post"] = op
		}
		if r.CanUpdate() {
			schemas[r.Name+"_update"] = writeSchema(r, false)
			update := func(withID bool) obj {
				op := obj{"operationId": "update_" + r.Name, "summary": "Update a " + r.Name + " record (partial)",
					"description": r.Doc, "tags": tag(r),
					"parameters":  []any{ref("parameters", "IfMatch")},
					"requestBody": obj{"required": true, "content": jsonContent(ref("schemas", r.Name+"_update"))},
					"responses": errorResponses(obj{"200": recordResponse("The updated record.", rec, false)},
						"400", "401", "403", "404", "405", "412", "422", "429", "500")}
				if withID {
					op["parameters"] = []any{idParam, ref("parameters", "IfMatch")}
				} else {
					op["operationId"] = "update_" + r.Name + "_current"
				}
				return op
			}
			item["patch"] = update(true)
			if r.Access == workspace.Singleton {
				coll["patch"] = update(false)
			}
		}
		if r.CanGet() {
			item["get"] = obj{"operationId": "get_" + r.Name, "summary": "Get a " + r.Name + " record", "tags": tag(r),
				"description": r.Doc, "parameters": []any{idParam, fieldsParam(r), ref("parameters", "IfNoneMatch")},
				"responses": errorResponses(obj{"200": recordResponse("The record (the fields asked for with fields=, every field by default).", selected, false),
					"304": obj{"description": "Not modified: If-None-Match names the record's current ETag; no body.",
						"headers": obj{"ETag": ref("headers", "ETag"), "X-Request-Id": ref("headers", "RequestID")}}},
					"400", "401", "403", "404", "405", "429", "500")}
		}
		if len(coll) > 0 {
			paths["/"+r.Name] = coll
		}
		if len(item) > 0 {
			paths["/"+r.Name+"/{id}"] = item
		}
		if r.Mergeable {
			paths["/"+r.Name+"/{id}/merge"] = mergePath(r, idParam, rec)
		}
	}
	actionPaths(paths, schemas, idParam)
	batchPaths(paths, schemas)
	importPaths(paths, schemas)
	enrich := workspace.Lookup("enrich")
	schemas["enrich_create"] = writeSchema(enrich, true)
	paths["/enrich"] = obj{"post": obj{"operationId": "enrich_company", "summary": "Look up a company by domain (metered)",
		"description": enrich.Doc, "tags": tag(enrich),
		"parameters":  []any{ref("parameters", "IdempotencyKey")},
		"requestBody": obj{"required": true, "content": jsonContent(ref("schemas", "enrich_create"))},
		"responses": errorResponses(obj{"200": dataResponse("The company's firmographics.", workspace.EnrichSchema())},
			"400", "401", "402", "403", "405", "409", "422", "429", "500", "502", "503")}}
	paths["/me"] = obj{"get": obj{"operationId": "me", "summary": "What the credential resolves to", "tags": []string{"me"},
		"description": "The member (or agent user), its workspace, the credential's scopes and kind. Needs no scope.",
		"responses":   errorResponses(obj{"200": dataResponse("The credential's identity.", ref("schemas", "me"))}, "401", "429", "500")}}
	paths["/openapi.json"] = obj{"get": obj{"operationId": "openapi", "summary": "This document",
		"security": []any{obj{}, obj{"bearer": []any{}, "apikey": []any{}}},
		"tags":     []string{"openapi"}, "description": "The OpenAPI 3.1 document of this API, generated from the resource catalogue; needs no credentials. " +
			"With workspace=current and credentials, the document of the caller's workspace: its custom fields typed in records, bodies, filters and sorts.",
		"parameters": []any{obj{"name": workspaceParam, "in": "query", "required": false,
			"description": "current: the caller's workspace's document (needs credentials)", "schema": obj{"type": "string", "enum": []any{"current"}}}},
		"responses": errorResponses(obj{"200": obj{"description": "OpenAPI 3.1 document", "content": jsonContent(obj{"type": "object"})},
			"405": obj{"description": "Only GET is supported.", "content": jsonContent(ref("schemas", "Error"))}}, "400", "401", "429", "500")}}
	schemas["me"] = workspace.MeSchema()
	paths["/search"], schemas["search_hit"] = searchPath()

	families, members := toolsets()
	tags := []any{obj{"name": "me", "description": "What the credential resolves to."},
		obj{"name": "search", "description": "One search across every resource the credential may read."},
		obj{"name": "imports", "description": "Files of records written in the background (POST /imports), their progress, failed rows and cancelling."},
		obj{"name": "openapi", "description": "This document."}}
	for _, f := range families {
		tags = append(tags, obj{"name": f, "description": "The " + f + " toolset, as MCP groups it too: " +
			strings.Join(members[f], ", ") + "."})
	}

	scopes := workspace.Scopes()
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "workspaced REST API", "version": "1",
			"contact": obj{"name": "workspaced", "url": "https://github.com/agencyos/workspaced"},
			"license": obj{"name": "Proprietary", "url": "https://github.com/agencyos/workspaced"},
			"description": "Workspace data (CRM, tasks, spaces, metrics, finance, HR, documents, automations, agents, directory, credits) as JSON. " +
				"Every call needs the apikey header (a public routing key) and Authorization: Bearer with an OAuth access token or an agent key. " +
				"Scopes: " + strings.Join(scopes, ", ") + ". The API never deletes; join records are unlinked with POST ?detach=true."},
		"servers":  []any{obj{"url": "/v1"}},
		"security": []any{obj{"bearer": []any{}, "apikey": []any{}}},
		"tags":     tags,
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
				"RateLimitLimit": obj{"description": "requests allowed a minute by the tighter budget (as configured; by default 60 per token, 600 per workspace)",
					"schema": obj{"type": "integer"}},
				"RateLimitRemaining": obj{"description": "requests left in the tighter budget", "schema": obj{"type": "integer"}},
				"RateLimitReset":     obj{"description": "when the oldest request the budget counts leaves its sliding window, giving one back; Unix seconds", "schema": obj{"type": "integer"}},
				"RetryAfter":         obj{"description": "on 429: seconds to wait (60); on 503: a few seconds", "schema": obj{"type": "integer"}},
				"ETag": obj{"description": "the record's version (strong entity tag); send it in If-Match to update only that version, or in If-None-Match to skip an unchanged GET",
					"schema": obj{"type": "string"}},
				"IdempotentReplayed": obj{"description": "true when the response is the stored response of an earlier request with the same Idempotency-Key",
					"schema": obj{"type": "string", "enum": []any{"true"}}}},
			"parameters": obj{
				"IdempotencyKey": obj{"name": "Idempotency-Key", "in": "header", "required": false,
					"description": "makes the POST safe to retry: the same key from the same credential within " + workspace.IdempotencyWindow() + " replays the first response (with Idempotent-Replayed: true) and writes nothing; the same key with a different request answers 422 idempotency_conflict; a key whose first request is still running answers 409 idempotency_in_flight. Up to 255 printable ASCII characters; a UUID is a good key.",
					"schema":      obj{"type": "string", "minLength": 1, "maxLength": workspace.MaxIdempotencyKey},
					"example":     "7d0f3c9e-2b1a-4e6f-9c8d-5a4b3c2d1e0f"},
				"IfMatch": obj{"name": "If-Match", "in": "header", "required": false,
					"description": "update only if the record's ETag is one of these; otherwise 412 precondition_failed (lost-update protection)",
					"schema":      obj{"type": "string"}, "example": `"lz8k2a4f0q"`},
				"IfNoneMatch": obj{"name": "If-None-Match", "in": "header", "required": false,
					"description": "answer 304 with no body if the record's ETag is one of these",
					"schema":      obj{"type": "string"}, "example": `"lz8k2a4f0q"`},
				"UpdatedSince": obj{"name": "updated_since", "in": "query", "required": false,
					"description": "only records updated at or after this instant (RFC 3339, inclusive); with order=updated_at, fetches what changed since the last sync",
					"schema":      obj{"type": "string", "format": "date-time"}, "example": "2026-11-21T09:00:00Z"},
				"Order": obj{"name": "order", "in": "query", "required": false,
					"description": "created_at: newest created first (default); updated_at: least recently updated first, so records changed while paging come later in the same walk, each change once",
					"schema":      obj{"type": "string", "enum": workspace.OrderNames(), "default": workspace.OrderCreated.String()}}},
			"responses": obj{"Error": obj{"description": "The error envelope; 405 carries Allow, 429 and 503 Retry-After.",
				"headers": obj{"X-Request-Id": ref("headers", "RequestID"), "X-RateLimit-Limit": ref("headers", "RateLimitLimit"),
					"X-RateLimit-Remaining": ref("headers", "RateLimitRemaining"), "X-RateLimit-Reset": ref("headers", "RateLimitReset"),
					"Retry-After": ref("headers", "RetryAfter")},
				"content": jsonContent(ref("schemas", "Error"))}},
		},
	}
}
