package httpx

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
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
// response, and carries it in the context for logs and error bodies (docs/decisions.md 4). A
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
func WithPrincipal(ctx context.Context, p *auth.Principal) context.Context {
	return context.WithValue(ctx, principalKey, p)
}

// PrincipalFrom returns the principal of an authenticated request, or nil.
func PrincipalFrom(ctx context.Context) *auth.Principal {
	p, _ := ctx.Value(principalKey).(*auth.Principal)
	return p
}

// Envelope is the spec's error body (docs/contract.md section 7, docs/decisions.md 4): REST writes it as
// the response, MCP as the text of a tool error, so a model sees the code and message a
// REST client would.
// Its jsonschema tags are the descriptions of EnvelopeSchema, which the OpenAPI document
// publishes (restapi/openapi.go).
type Envelope struct {
	Error     apierr.Code         `json:"error" jsonschema:"stable snake_case code: bad_request, validation_error, not_found ...; idempotency_conflict (422: an Idempotency-Key reused for another request), idempotency_in_flight (409: its first request still runs), precondition_failed (412: If-Match names an older version)"`
	Message   string              `json:"message" jsonschema:"what went wrong and what to change"`
	RequestID string              `json:"request_id" jsonschema:"repeats the X-Request-Id header"`
	Fields    []apierr.FieldError `json:"fields,omitempty" jsonschema:"422 only: each invalid field"`
}

// EnvelopeSchema is the JSON Schema of Envelope, derived from the struct: its members, the
// required ones (all but fields), no others.
func EnvelopeSchema() *jsonschema.Schema {
	s, err := jsonschema.For[Envelope](nil)
	if err != nil {
		panic("httpx: the envelope's schema: " + err.Error()) // a fixed type: fails every test run or none
	}
	// fields is left out when empty, never null.
	s.Properties["fields"].Types, s.Properties["fields"].Type = nil, "array"
	return s
}

// Failure turns err into its Error and envelope. A failure of the service (a 5xx) is
// logged once, as msg with the request id, the code and the cause; the cause is never
// rendered.
func Failure(ctx context.Context, log *slog.Logger, msg string, err error) (*apierr.Error, Envelope) {
	e := store.AsError(err)
	id := RequestIDFrom(ctx)
	if Status(e) >= 500 && log != nil {
		log.ErrorContext(ctx, msg, "request_id", id, "code", e.Code, "err", e.Err)
	}
	return e, Envelope{Error: e.Code, Message: e.Message, RequestID: id, Fields: e.Fields}
}

// WriteError renders err as the spec's envelope with its status and the headers it
// implies (Allow on a 405, Retry-After when the error says when to retry).
// A failure after the client hung up is recorded as the hang-up (ClientGone), not as a 5xx.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if ClientGone(r) {
		clientGone(w, r, log)
		return
	}
	e, env := Failure(r.Context(), log, "request failed", err)
	if len(e.Allow) > 0 {
		w.Header().Set("Allow", strings.Join(e.Allow, ", "))
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter/time.Second)))
	}
	WriteJSON(w, Status(e), env)
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

// AppendList appends the list envelope {"data": [...], "next_cursor": ...} around a page's
// records as PostgreSQL wrote them, without re-encoding them (encoding/json would re-scan
// every record of a RawMessage). REST writes it as the response body and MCP as a list
// tool's structured content, so the two cannot disagree.
func AppendList(dst []byte, data json.RawMessage, nextCursor *string) []byte {
	dst = append(dst, `{"data":`...)
	dst = append(dst, data...)
	dst = append(dst, `,"next_cursor":`...)
	if nextCursor == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendQuote(dst, *nextCursor) // base64url: nothing to escape
	}
	return append(dst, '}')
}
