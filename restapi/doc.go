// Package restapi is the workspace's REST API at /v1 (service-spec.md 4) and the operation
// layer the MCP tools share with it.
//
// It holds three things, top down:
//
//   - The catalogue (catalog.go): every resource of the spec's tables written once as data,
//     a Resource with its Fields. Routing, body and filter validation (validate.go), the SQL
//     (records.go), the OpenAPI document (openapi.go) and the MCP tools (package mcp) are
//     derived from it; the database's policies, CHECKs, grants and triggers are compared
//     with it by a test (dbrules_test.go).
//   - The operation layer, Ops (ops.go, records.go, idempotency.go, enrich.go): List, Get,
//     Post (create, detach, enrich), Update and Me take a principal and transport-free
//     inputs and enforce every gate in the order decisions.md 3 sets (gates.go): resource
//     known, operation offered (Op, Resource.Offers), scope, feature grant and admin rules,
//     then one statement run as the actor under row-level security (store). Failures are
//     *store.Error values carrying the spec's codes.
//   - The HTTP adapter, API (api.go, routes.go, respond.go): authentication through an
//     Authenticator that cmd fills with the OAuth verifier and the agent-key cache
//     (auth.go), the public API key, rate limits (limits.go), conditional requests
//     (conditional.go), keyset cursors (cursor.go), and one renderer of the spec's
//     envelopes.
//
// restapi imports store and nothing else of the service; package mcp imports restapi.
package restapi
