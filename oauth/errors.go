package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
)

// Error is an OAuth error response (RFC 6749 section 5.2, RFC 7009 2.2.1, RFC 7591 3.2.2):
// body {error, error_description}. The sentinels below are never changed; refine one with
// WithHint, which copies it first (as fosite does).
type Error struct {
	Code        string // the RFC's error code
	Description string // error_description: what to change, safe to show
	Status      int    // HTTP status on the token, revocation and registration endpoints
	cause       error  // logged only
}

func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Description, e.cause)
	}
	return e.Code + ": " + e.Description
}

// Unwrap returns the underlying error WithCause remembered, so errors.Is and errors.As
// see through an OAuth error to, say, the database's.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same code, so errors.Is(err,
// ErrInvalidGrant) holds for refined copies.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// WithHint returns a copy of e with a more precise description.
func (e *Error) WithHint(format string, args ...any) *Error {
	c := *e
	c.Description = fmt.Sprintf(format, args...)
	return &c
}

// WithCause returns a copy of e remembering the underlying error for the log.
func (e *Error) WithCause(err error) *Error {
	c := *e
	c.cause = err
	return &c
}

// The error codes of RFC 6749 4.1.2.1 and 5.2, RFC 8707 (invalid_target), RFC 7591 3.2.2.
var (
	ErrInvalidRequest = &Error{Code: "invalid_request", Status: http.StatusBadRequest,
		Description: "the request is missing a required parameter or has an invalid one"}
	ErrInvalidClient = &Error{Code: "invalid_client", Status: http.StatusUnauthorized,
		Description: "client authentication failed"}
	ErrInvalidGrant = &Error{Code: "invalid_grant", Status: http.StatusBadRequest,
		Description: "the authorization code or refresh token is invalid, expired, revoked, or was issued to another client"}
	ErrUnauthorizedClient = &Error{Code: "unauthorized_client", Status: http.StatusBadRequest,
		Description: "the client may not use this grant type"}
	ErrUnsupportedGrantType = &Error{Code: "unsupported_grant_type", Status: http.StatusBadRequest,
		Description: "grant_type must be " + strings.Join(GrantTypes(), " or ")}
	ErrUnsupportedResponseType = &Error{Code: "unsupported_response_type", Status: http.StatusBadRequest,
		Description: "response_type must be code"}
	ErrInvalidScope = &Error{Code: "invalid_scope", Status: http.StatusBadRequest,
		Description: "the requested scope is unknown or exceeds what was granted"}
	ErrInvalidTarget = &Error{Code: "invalid_target", Status: http.StatusBadRequest,
		Description: "resource must be this service's REST base URL or its MCP URL"}
	ErrAccessDenied = &Error{Code: "access_denied", Status: http.StatusForbidden,
		Description: "the member denied the request"}
	ErrServerError = &Error{Code: "server_error", Status: http.StatusInternalServerError,
		Description: "something failed on our side; retry"}
	// ErrTemporarilyUnavailable is the database not answering (RFC 6749 4.1.2.1's code,
	// used at every endpoint): the same request may be retried after Retry-After.
	ErrTemporarilyUnavailable = &Error{Code: "temporarily_unavailable", Status: http.StatusServiceUnavailable,
		Description: "the service is temporarily unavailable; retry shortly"}
	ErrInvalidRedirectURI = &Error{Code: "invalid_redirect_uri", Status: http.StatusBadRequest,
		Description: "a redirect URI is not acceptable"}
	ErrInvalidClientMetadata = &Error{Code: "invalid_client_metadata", Status: http.StatusBadRequest,
		Description: "a client metadata value is not acceptable"}
	ErrRateLimited = &Error{Code: "rate_limited", Status: http.StatusTooManyRequests,
		Description: "too many registrations from this address; retry in an hour"}
)

// asError splits err for a flow that answers protocol errors and fails on anything else:
// an *Error anywhere in its chain is the protocol error, the rest is a failure.
func asError(err error) (*Error, error) {
	var e *Error
	if errors.As(err, &e) {
		return e, nil
	}
	return nil, err
}

// descriptionOf is the error_description of err, or its text when it is no *Error.
func descriptionOf(err error) string {
	if e, _ := asError(err); e != nil {
		return e.Description
	}
	return err.Error()
}

// limiterError is a rate limiter that could not decide: its shared store is down and its
// failure policy refuses (RegisterLimiter, LoginLimiter).
type limiterError struct{ err error }

func (e limiterError) Error() string { return "oauth: rate limiter: " + e.err.Error() }
func (e limiterError) Unwrap() error { return e.err }

func limiterFailed(err error) error { return limiterError{err} }

// retryAfterUnavailable says whether err is an outage the same request may be retried
// after (503, not 500), and after how many seconds: an unreachable database, or a rate
// limiter that could not decide, which REST and MCP answer 503 with the same Retry-After.
func retryAfterUnavailable(err error) (int, bool) {
	switch {
	case errors.As(err, new(limiterError)):
		return ratelimit.OutageRetryAfter, true
	case store.IsUnavailable(err):
		return int(store.RetryAfterUnavailable.Seconds()), true
	}
	return 0, false
}

// writeError renders an OAuth error as JSON with the no-store headers of RFC 6749 5.1.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	ok := errors.As(err, &e)
	if !ok {
		e = ErrServerError.WithCause(err)
		if after, unavailable := retryAfterUnavailable(err); unavailable {
			e = ErrTemporarilyUnavailable.WithCause(err)
			w.Header().Set("Retry-After", strconv.Itoa(after))
		}
	}
	if e.Status >= 500 {
		s.log.ErrorContext(r.Context(), "oauth", "request_id", store.RequestID(r.Context()), "path", r.URL.Path, "err", e)
	}
	writeJSON(w, e.Status, map[string]string{"error": e.Code, "error_description": e.Description})
}

// WriteUnavailable answers a token request refused before it reached the token endpoint
// (cmd's overload guard and database breaker): temporarily_unavailable with description,
// in the error body every OAuth endpoint writes, with status and Retry-After.
func WriteUnavailable(w http.ResponseWriter, status int, retryAfter time.Duration, description string) {
	w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	writeJSON(w, status, map[string]string{"error": ErrTemporarilyUnavailable.Code, "error_description": description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
