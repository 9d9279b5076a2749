// Package workspace is the domain: the rules of the workspace's data that the REST API
// (package restapi) and the MCP tool server (package mcp) share. Both are thin adapters
// over it; neither imports the other.
//
// It holds, top down:
//
//   - The catalogue (catalog.go): every resource of the spec's tables written once as data,
//     a Resource with its Fields, and the field types (types.go). Routing, body and filter
//     validation (validate.go, params.go), the SQL (records.go), the OpenAPI document
//     (restapi) and the MCP tools (mcp) are derived from it; the database's policies,
//     CHECKs, grants and triggers are compared with it by a test (dbrules_test.go).
//   - The operation layer, Ops (ops.go, records.go, idempotency.go, enrich.go,
//     conditional.go, webhooks.go): List, Get, Post (create, detach, enrich), Update, Act
//     (the record actions, Actions) and Me take a
//     principal and transport-free inputs and enforce every gate in the order docs/decisions.md
//     3 sets (gates.go): resource known, operation offered (Op, Resource.Offers), scope
//     (scopes.go), feature grant and admin rules, then one statement run as the actor under
//     row-level security (store). Keyset cursors are signed here (cursor.go). Failures are
//     *apierr.Error values carrying the spec's codes.
//   - The principals: Authenticator, the revocation-aware Cache and Prefixed, which sends
//     each credential prefix to its verifier (auth.go), and the rate limits every call is
//     charged to (limits.go, TakeCall).
//   - The webhook event vocabulary (events.go: event types, their patterns, signing
//     secrets) and what the domain asks of delivery, WebhookDelivery and WebhookURLs,
//     implemented by package webhooks and handed to NewOps by cmd.
//
// cmd builds Ops (NewOps) and hands it to every adapter. workspace imports store, apierr,
// ratelimit and overload and nothing else of the service: no adapter, no queue, no
// delivery or enrichment code (docs/imports_test.go).
package workspace
