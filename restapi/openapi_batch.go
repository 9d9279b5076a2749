package restapi

import (
	"strconv"

	"github.com/agencyos/workspaced/workspace"
)

// batchPaths adds POST /{resource}/batch (docs/rest.md, "Batch writes") for every resource
// that creates or updates records, with the request and per-item result schemas.
func batchPaths(paths, schemas obj) {
	schemas["batch_request"] = obj{"type": "object", "required": []string{"operation", "records"}, "additionalProperties": false,
		"properties": obj{
			"operation": obj{"type": "string", "enum": []string{workspace.BatchCreate, workspace.BatchUpdate, workspace.BatchUpsert}},
			"match": obj{"type": "string", "description": "upsert only: id, a natural key (people: email; companies: domain, " +
				"the host of website) or custom_fields.<key> of a unique custom field"},
			"records": obj{"type": "array", "minItems": 1, "maxItems": workspace.MaxBatch,
				"items": obj{"type": "object", "description": "the fields of one record; an update carries its id"}},
			"atomic": obj{"type": "boolean", "default": false, "description": "true: one failing record writes none"},
		}}
	schemas["batch_item"] = obj{"type": "object", "required": []string{"index", "status", "id"}, "additionalProperties": false,
		"properties": obj{
			"index":  obj{"type": "integer", "minimum": 0},
			"status": obj{"type": "integer", "description": "the status this record alone would have had: 201 created, 200 updated, or its error's"},
			"id":     obj{"type": []any{"string", "null"}},
			"record": obj{"type": "object"},
			"error": obj{"type": "object", "required": []string{"error", "message"}, "additionalProperties": false,
				"properties": obj{"error": obj{"type": "string"}, "message": obj{"type": "string"},
					"fields": obj{"type": "array", "items": obj{"type": "object", "required": []string{"field", "problem"},
						"additionalProperties": false, "properties": obj{"field": obj{"type": "string"}, "problem": obj{"type": "string"}}}}}},
		}}
	for _, r := range workspace.Catalog() {
		if r.CanList() && r.Paged {
			paths["/"+r.Name+"/export"] = exportPath(r)
		}
		if r.Access == workspace.WriteOnly || r.Access == workspace.Singleton || !(r.CanCreate() || r.CanUpdate()) {
			continue
		}
		resp := dataResponse("One result per record, in order (also when some failed, unless atomic).",
			obj{"type": "array", "items": ref("schemas", "batch_item")})
		resp["headers"].(obj)["Idempotent-Replayed"] = ref("headers", "IdempotentReplayed")
		paths["/"+r.Name+"/batch"] = obj{"post": obj{"operationId": "batch_" + r.Name,
			"summary":     "Create, update or upsert up to " + strconv.Itoa(workspace.MaxBatch) + " " + r.Name + " records",
			"description": r.Doc + " Each record is written as a single write would be; the batch costs one request plus one per " + strconv.Itoa(workspace.BatchUnitRecords) + " records of the rate limits.",
			"tags":        []string{r.Toolset()},
			"parameters":  []any{ref("parameters", "IdempotencyKey")},
			"requestBody": obj{"required": true, "content": jsonContent(ref("schemas", "batch_request"))},
			"responses":   errorResponses(obj{"200": resp}, "400", "401", "403", "404", "405", "409", "422", "429", "500")}}
	}
}

// exportPath is GET /{resource}/export (docs/rest.md, "Export"): the list's parameters
// but cursor and limit, and format; the body is CSV or NDJSON.
func exportPath(r *workspace.Resource) obj {
	list := openAPIListParams(r)
	params := []any{obj{"name": "format", "in": "query", "required": true, "schema": obj{"type": "string", "enum": []string{workspace.ExportCSV, workspace.ExportNDJSON}}}}
	params = append(params, list...)
	return obj{"get": obj{"operationId": "export_" + r.Name, "summary": "Export " + r.Name + " as CSV or NDJSON",
		"description": r.Doc + " Every record the list would return with the same filters, q, sort and fields, streamed.",
		"tags":        []string{r.Toolset()}, "parameters": params,
		"responses": errorResponses(obj{"200": obj{"description": "The records: CSV with a header row, or one JSON object a line.",
			"content": obj{"text/csv": obj{"schema": obj{"type": "string"}}, "application/x-ndjson": obj{}}}},
			"400", "401", "403", "404", "429", "500")}}
}

// openAPIListParams are a list's selecting parameters, without its paging ones.
func openAPIListParams(r *workspace.Resource) []any {
	params := []any{}
	for _, f := range r.Filters() {
		params = append(params, obj{"name": f.Name, "in": "query", "required": false,
			"description": "exact match", "schema": f.Schema(workspace.OpenAPIDialect, false)})
	}
	params = append(params, findParams(r)...)
	return append(params, ref("parameters", "UpdatedSince"), ref("parameters", "Order"))
}
