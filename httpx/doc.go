// Package httpx holds what every HTTP surface of the service shares (REST at /v1, the MCP
// server at /mcp, the OAuth provider at /oauth): request ids, the authenticated principal
// in the request context, bearer credentials, and the spec's error envelope
// {error, message, request_id} (service-spec.md 7, decisions.md 4).
//
// httpx imports store and nothing else of the service.
package httpx
