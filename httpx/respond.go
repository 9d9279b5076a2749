package httpx

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/store"
)

type ctxKey int

const principalKey ctxKey = 0

// wellFormedID accepts a client's X-Request-Id only if it is short and plain
// ([A-Za-z0-9._:-]{8,128}), so it cannot smuggle anything into logs or headers.
func wellFormedID(id string) bool {
	if len(id) < 8 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// RequestID keeps a well-formed incoming X-Request-Id or makes a uuid, sets it on the
// response, and carries it in the context for logs and error bodies (decisions.md 4). A
// request that already carries an id (the server's outer router sets it before the API's
// own router sees the request) passes through untouched, so the work is done once.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if RequestIDFrom(r.Context()) != "" {
			next.ServeHTTP(w, r)
			return
		}
		id := r.Header.Get("X-Request-Id")
		if !wellFormedID(id) {
			id = uuid.NewString()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(store.WithRequestID(r.Context(), id)))
	})
}

// RequestIDFrom returns the request id carried by ctx.
func RequestIDFrom(ctx context.Context) string {
	return store.RequestID(ctx)
}

// WithPrincipal returns ctx carrying the authenticated principal.
func WithPrincipal(ctx context.Context, p *store.Principal) context.Context {
	return context.WithValue(ctx, principalKey, p)
}

// PrincipalFrom returns the principal of an authenticated request, or nil.
func PrincipalFrom(ctx context.Context) *store.Principal {
	p, _ := ctx.Value(principalKey).(*store.Principal)
	return p
}

// errorBody is the spec's envelope (service-spec.md 7, decisions.md 4).
type errorBody struct {
	Error     string             `json:"error"`
	Message   string             `json:"message"`
	RequestID string             `json:"request_id"`
	Fields    []store.FieldError `json:"fields,omitempty"`
}

// WriteError renders err as the spec's envelope. Causes are logged for 5xx only, and
// never rendered.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	e := store.AsError(err)
	id := RequestIDFrom(r.Context())
	if e.Status >= 500 && log != nil {
		log.ErrorContext(r.Context(), "request failed", "request_id", id, "code", e.Code, "err", e.Err)
	}
	for k, v := range e.Header {
		w.Header().Set(k, v)
	}
	WriteJSON(w, e.Status, errorBody{Error: e.Code, Message: e.Message, RequestID: id, Fields: e.Fields})
}

// WriteJSON writes v as the JSON response body.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteRaw writes an already encoded JSON body.
func WriteRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// BearerToken returns the credential of an Authorization: Bearer header, or "".
func BearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}
