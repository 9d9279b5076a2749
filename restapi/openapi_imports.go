package restapi

import (
	"strconv"

	"github.com/agencyos/workspaced/imports/importfile"
	"github.com/agencyos/workspaced/workspace"
)

// importPaths adds /imports (docs/rest.md, "Imports"): the multipart upload, its status,
// its errors.csv and cancel, with the import and dry-run schemas.
// It runs after batchPaths, whose item error a dry run's rows share.
func importPaths(paths, schemas obj) {
	itemError := schemas["batch_item"].(obj)["properties"].(obj)["error"]
	count := obj{"type": "integer", "minimum": 0}
	nullTime := obj{"type": []any{"string", "null"}, "format": "date-time"}
	schemas["import"] = obj{"type": "object", "additionalProperties": false,
		"required": []string{"id", "resource", "operation", "match", "status", "rows_read", "rows_created", "rows_updated",
			"rows_failed", "failure", "size", "created_at", "started_at", "finished_at", "cancel_requested", "first_errors"},
		"properties": obj{
			"id":        workspace.UUID.Schema(workspace.OpenAPIDialect),
			"resource":  obj{"type": "string"},
			"operation": obj{"type": "string", "enum": []string{workspace.BatchCreate, workspace.BatchUpsert}},
			"match":     obj{"type": []any{"string", "null"}},
			"status": obj{"type": "string", "enum": []string{"queued", "running", "completed", "failed", "cancelled"},
				"description": "failed: the import could not go on (failure says why); cancelled: stopped by POST /imports/{id}/cancel"},
			"rows_read":        count,
			"rows_created":     count,
			"rows_updated":     count,
			"rows_failed":      count,
			"failure":          obj{"type": []any{"string", "null"}},
			"size":             obj{"type": "integer", "minimum": 0, "description": "the file's size in bytes"},
			"created_at":       obj{"type": "string", "format": "date-time"},
			"started_at":       nullTime,
			"finished_at":      nullTime,
			"cancel_requested": obj{"type": "boolean"},
			"first_errors": obj{"type": "array", "description": "the first failed rows; errors.csv has every one",
				"items": obj{"type": "object", "required": []string{"row", "error"}, "additionalProperties": false,
					"properties": obj{"row": obj{"type": "integer", "minimum": 1}, "error": obj{"type": "string"}}}},
		}}
	schemas["import_preview"] = obj{"type": "object", "required": []string{"dry_run", "columns", "rows"}, "additionalProperties": false,
		"properties": obj{
			"dry_run": obj{"type": "boolean", "enum": []any{true}},
			"columns": obj{"type": "array", "items": obj{"type": "string"}, "description": "the file's header"},
			"rows": obj{"type": "array", "items": obj{"type": "object", "required": []string{"row", "status"}, "additionalProperties": false,
				"properties": obj{
					"row":    obj{"type": "integer", "minimum": 1},
					"status": obj{"type": "integer", "description": "the status of the row's write: 201 created, 200 updated, or its error's"},
					"record": obj{"type": "object", "description": "the record as it would be written"},
					"error":  itemError, // a batch item's
				}}},
		}}

	idParam := obj{"name": "id", "in": "path", "required": true, "schema": workspace.UUID.Schema(workspace.OpenAPIDialect)}
	text := func(desc string) obj { return obj{"type": "string", "description": desc} }
	paths["/imports"] = obj{"post": obj{"operationId": "create_import", "summary": "Import a CSV, NDJSON or XLSX file of records",
		"description": "Answers 202 with the import at once; a background job writes its rows " + strconv.Itoa(workspace.MaxBatch) +
			" at a time as batch writes of the member (the same scopes, grants, row-level rules, activity and webhooks). " +
			"With dry_run=true the first rows are run and rolled back, and the answer is 200 with what each would write. " +
			"No Idempotency-Key: each upload is an import of its own.",
		"tags": []string{"imports"},
		"requestBody": obj{"required": true, "content": obj{"multipart/form-data": obj{"schema": obj{
			"type": "object", "required": []string{"file", "resource", "mapping", "operation"},
			"properties": obj{
				"file":      obj{"type": "string", "contentMediaType": "application/octet-stream", "description": "the file, at most " + strconv.Itoa(importfile.MaxFileBytes>>20) + " MB and " + strconv.Itoa(importfile.MaxRows) + " rows"},
				"resource":  text("the resource the rows become, such as people"),
				"mapping":   text("a JSON object: column header (NDJSON: member name) -> field name or custom_fields.<key>; columns left out are ignored"),
				"operation": obj{"type": "string", "enum": []string{workspace.BatchCreate, workspace.BatchUpsert}},
				"match":     text("upsert only: id, a natural key (people email, companies domain) or custom_fields.<key> of a unique custom field"),
				"format":    obj{"type": "string", "enum": []string{importfile.FormatCSV, importfile.FormatNDJSON, importfile.FormatXLSX}, "default": importfile.FormatCSV},
				"delimiter": text("CSV only: one character, , by default"),
				"date_format": obj{"type": "string", "enum": []string{"YYYY-MM-DD", "DD/MM/YYYY", "MM/DD/YYYY", "DD.MM.YYYY"},
					"default": "YYYY-MM-DD"},
				"dry_run": obj{"type": "string", "enum": []string{"true", "false"}, "default": "false",
					"description": "true: run the first rows (20) in a transaction rolled back, write nothing"},
			}}}}},
		"responses": errorResponses(obj{
			"202": dataResponse("The import, queued.", ref("schemas", "import")),
			"200": dataResponse("dry_run=true: what each of the first rows would write, or why not.", ref("schemas", "import_preview"))},
			"400", "401", "403", "404", "429", "500", "503")}}
	paths["/imports/{id}"] = obj{"get": obj{"operationId": "get_import", "summary": "An import's status and counts",
		"description": "Visible to the member who started it only; to anyone else it is 404.", "tags": []string{"imports"},
		"parameters": []any{idParam},
		"responses":  errorResponses(obj{"200": dataResponse("The import.", ref("schemas", "import"))}, "401", "404", "429", "500", "503")}}
	paths["/imports/{id}/errors.csv"] = obj{"get": obj{"operationId": "get_import_errors", "summary": "Every failed row of an import",
		"description": "CSV: row, error, then the row's cells under the file's header.", "tags": []string{"imports"},
		"parameters": []any{idParam},
		"responses": errorResponses(obj{"200": obj{"description": "The failed rows, as CSV with a header row.",
			"content": obj{"text/csv": obj{"schema": obj{"type": "string"}}}}}, "401", "404", "429", "500", "503")}}
	paths["/imports/{id}/cancel"] = obj{"post": obj{"operationId": "cancel_import", "summary": "Stop an import after the rows being written",
		"description": "A queued import stops before any row; a finished one is left as it is.", "tags": []string{"imports"},
		"parameters": []any{idParam},
		"responses":  errorResponses(obj{"200": dataResponse("The import.", ref("schemas", "import"))}, "401", "404", "429", "500", "503")}}
}
