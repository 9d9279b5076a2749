// Package apierr is the service's one error type, Error, and its codes (codes.go): what
// the store, the domain and every adapter return, and what httpx (HTTP), mcp (tool
// errors) and the admin CLI render. Each code carries its HTTP status in the code table
// (codes.go), which httpx renders with; apierr imports no other package of the service
// and knows no database: store maps driver errors to these codes by SQLSTATE.
package apierr

import (
	"fmt"
	"time"
)

// Error is the one error type the REST API, the MCP tools and the CLI render. Code is the
// spec's stable snake_case code (docs/contract.md section 7), whose row in the code table
// gives its HTTP status (Code.Status); Message is safe to show to clients and
// models and says what to change; Err is the cause, logged and never rendered.
type Error struct {
	Code    Code
	Message string
	Fields  []FieldError
	Err     error
	// Unavailable marks an internal_error that is a dependency's fault (the database or
	// the rate-limit store not answering, enrichment not configured) rather than a bug:
	// HTTP answers it 503 rather than 500.
	Unavailable bool
	// RetryAfter says when a retry may succeed (rate_limited, Unavailable); 0 says nothing.
	RetryAfter time.Duration
	// Allow lists what a method_not_allowed path does answer (GET, POST, PATCH).
	Allow []string
}

// FieldError names one invalid field of a 422.
type FieldError struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Constructors for the codes every layer uses.
func NotFound(format string, args ...any) *Error {
	return Errorf(CodeNotFound, format, args...)
}
func BadRequest(format string, args ...any) *Error {
	return Errorf(CodeBadRequest, format, args...)
}
func Unauthorized(format string, args ...any) *Error {
	return Errorf(CodeUnauthorized, format, args...)
}
