package restapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// merge serves POST /{resource}/{id}/merge with {"from": "<id>"}: the record from is merged
// into the record id (workspace.Ops.Merge), which answers 200 with the kept record.
func (a *API) merge(w http.ResponseWriter, r *http.Request) error {
	res := workspace.Lookup(chi.URLParam(r, "resource"))
	if res == nil {
		return workspace.UnknownResource(chi.URLParam(r, "resource"))
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return workspace.MethodNotAllowedError(res, r.Method, true)
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	data, err := a.ops.Merge(r.Context(), httpx.PrincipalFrom(r.Context()), res, chi.URLParam(r, "id"), body)
	return writeRecord(w, http.StatusOK, data, err)
}

// mergePath is the OpenAPI entry of POST /{resource}/{id}/merge for a Mergeable resource;
// rec is the schema of its record.
func mergePath(r *workspace.Resource, idParam, rec obj) obj {
	return obj{"post": obj{"operationId": "merge_" + r.Name, "summary": "Merge a duplicate into a " + r.Name + " record",
		"description": "Moves every reference of the record named by from to this one, fills this one's blank fields " +
			"and missing custom values from it, and marks it merged_into_id (it is kept, left out of lists and search).",
		"tags": []string{r.Toolset()}, "parameters": []any{idParam},
		"requestBody": obj{"required": true, "content": jsonContent(obj{"type": "object", "required": []string{"from"},
			"additionalProperties": false, "properties": obj{"from": workspace.UUID.Schema(workspace.OpenAPIDialect)}})},
		"responses": errorResponses(obj{"200": recordResponse("The kept record after the merge.", rec, false)},
			"400", "401", "403", "404", "405", "429", "500")}}
}
