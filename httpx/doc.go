// Package httpx holds what every HTTP surface of the service shares (REST at /v1, the MCP
// server at /mcp, the OAuth provider at /oauth): request ids, the authenticated principal
// in the request context, bearer credentials, the spec's error envelope
// {error, message, request_id} (docs/contract.md section 7, docs/decisions.md 4) and the list envelope,
// an error's HTTP status (status.go: its code's, from apierr's code table, or 503 for an
// unavailable dependency), and the recovery of panics
// and hang-ups every route is mounted behind (recover.go).
//
// httpx imports store and nothing else of the service.
package httpx
