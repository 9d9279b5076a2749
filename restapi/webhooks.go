package restapi

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// The domain's record actions (workspace.Actions: the webhook endpoints' test and
// rotate_secret, the deliveries' retry) beside the generic routes, as
// POST /<resource>/{id}/<name>. actionRoutes routes them and actionPaths describes them in
// the OpenAPI document, both from the one list.

// actionStatus is the status of an action's success: 202 for what is queued.
func actionStatus(act *workspace.Action) int {
	if act.Queued {
		return http.StatusAccepted
	}
	return http.StatusOK
}

func actionPath(act *workspace.Action) string { return "/" + act.Resource + "/{id}/" + act.Name }

// actionRoutes adds the record actions.
func (a *API) actionRoutes(r chi.Router) {
	for _, act := range workspace.Actions() {
		r.Post(actionPath(act), a.handle(func(w http.ResponseWriter, r *http.Request) error {
			data, err := a.ops.Act(r.Context(), httpx.PrincipalFrom(r.Context()), act, chi.URLParam(r, "id"))
			if err != nil {
				return err
			}
			return writeData(w, actionStatus(act), data, nil)
		}))
	}
}

// actionNotAllowed is the 405 of another method than POST on the path of action name of
// resource, or nil when resource has no such action.
func actionNotAllowed(method, resource, name string) *apierr.Error {
	act := workspace.LookupAction(resource, name)
	if act == nil {
		return nil
	}
	return &apierr.Error{Code: apierr.CodeMethodNotAllowed, Allow: []string{http.MethodPost},
		Message: method + " " + actionPath(act) + " is not supported; allowed: POST"}
}

// actionPaths describes the actions in the OpenAPI document, adding to schemas the whole
// records they answer.
func actionPaths(paths, schemas, idParam obj) {
	for _, act := range workspace.Actions() {
		var data any
		if act.Answers != "" {
			schemas[act.Answers] = recordSchema(workspace.Lookup(act.Answers))
			data = ref("schemas", act.Answers)
		} else {
			data = act.Data(workspace.OpenAPIDialect)
		}
		status := actionStatus(act)
		paths[actionPath(act)] = obj{"post": obj{"operationId": act.Name + "_" + act.Resource, "summary": act.Summary,
			"description": act.Doc, "tags": []string{workspace.Lookup(act.Resource).Toolset()}, "parameters": []any{idParam},
			"responses": errorResponses(obj{strconv.Itoa(status): dataResponse(act.Result, data)},
				"401", "403", "404", "405", "429", "500")}}
	}
}
