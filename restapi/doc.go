// Package restapi is the workspace's REST API at /v1 (docs/contract.md section 4): the HTTP adapter
// over the operation layer of package workspace.
//
// It turns a request into one call of workspace.Ops and its result or error into the spec's
// envelopes: authentication of the apikey and the bearer credential through a
// workspace.Authenticator that cmd fills (api.go), routes over the catalogue (routes.go),
// conditional requests (conditional.go: ETag, If-None-Match, If-Match) and the OpenAPI
// document generated from the catalogue (openapi.go). Request ids, the principal in the
// context and the error envelope are package httpx's, shared with the MCP server.
//
// restapi imports workspace, httpx and store; nothing but cmd imports restapi.
package restapi
