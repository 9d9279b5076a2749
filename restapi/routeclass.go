package restapi

import (
	"net/http"

	"github.com/agencyos/workspaced/workspace"
)

// Path is where the API is mounted (docs/contract.md section 9: its version is its prefix).
const Path = "/v1"

// RouteClass is the class a request to the API counts against before authentication
// (cmd's guard: the database circuit breaker refuses it while open, and labels its refusal
// by class): "" for the OpenAPI document, which needs no database; a read for the safe
// methods (RFC 9110 section 9.2.1: GET, HEAD, OPTIONS); a write otherwise. Its operation
// takes its own class's place after authentication (workspace/capacity.go).
func RouteClass(r *http.Request) workspace.Class {
	switch {
	case r.URL.Path == Path+"/openapi.json":
		return ""
	case r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions:
		return workspace.ClassRead
	}
	return workspace.ClassWrite
}
