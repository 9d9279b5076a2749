package store

import "context"

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request's id (docs/decisions.md 4). The id lives here,
// below every HTTP layer, so the REST API, MCP and the OAuth provider log the same id for
// a request without importing each other.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id carried by ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
