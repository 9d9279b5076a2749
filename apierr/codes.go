package apierr

import "net/http"

// Code is an error's stable snake_case code, the "error" member of the envelope
// (docs/contract.md section 7). Each code has one HTTP status, its row in statuses below;
// TestEveryCodeHasAStatus fails for a constant without a row.
type Code string

// The error codes of the REST API and the MCP tools.
const (
	CodeBadRequest             Code = "bad_request"             // malformed request, body, query or cursor
	CodeCreateFailed           Code = "create_failed"           // the database rejected a create
	CodeUpdateFailed           Code = "update_failed"           // the database rejected an update or detach
	CodeUnauthorized           Code = "unauthorized"            // credential missing, invalid, expired or revoked
	CodeInsufficientCredits    Code = "insufficient_credits"    // credit balance too low to enrich
	CodeInsufficientScope      Code = "insufficient_scope"      // the token lacks the scope
	CodeInsufficientPermission Code = "insufficient_permission" // the member lacks the grant or the admin role
	CodeForbidden              Code = "forbidden"               // refused by row-level security or origin rules
	CodeReadOnly               Code = "read_only"               // a write on a read-only MCP connection
	CodeNotFound               Code = "not_found"               // no such record for the actor
	CodeUnknownResource        Code = "unknown_resource"        // no such resource in the catalogue
	CodeUnknownTool            Code = "unknown_tool"            // no such MCP tool (call_tool)
	CodeMethodNotAllowed       Code = "method_not_allowed"      // the resource does not offer the operation
	CodeIdempotencyInFlight    Code = "idempotency_in_flight"   // the key's first request is still running
	CodePreconditionFailed     Code = "precondition_failed"     // If-Match names another version
	CodeConflict               Code = "conflict"                // a unique value another record holds
	CodeValidation             Code = "validation_error"        // fields fail the catalogue's checks
	CodeIdempotencyConflict    Code = "idempotency_conflict"    // the key was used for another request
	CodeRateLimited            Code = "rate_limited"            // a budget is spent
	CodeInternal               Code = "internal_error"          // the service failed, or a dependency (Error.Unavailable)
	CodeUpstream               Code = "upstream_error"          // the enrichment provider failed
	CodeEnrichUnbilled         Code = "enrich_unbilled"         // a result that could not be billed, withheld

	// Bad days (docs/operations.md): nothing was done, retry after Retry-After; and a write
	// whose commit was sent but not acknowledged, to retry with its Idempotency-Key.
	CodeOverloaded     Code = "overloaded"
	CodeOutcomeUnknown Code = "outcome_unknown"

	// CodeInvalid is an admin command's input the database refused (the admin CLI's
	// constraint failures, store.mapAdminError).
	CodeInvalid Code = "invalid"

	// Registering an app (oauth.CreateApp, the admin CLI and page) words a refusal with
	// the RFC 7591 codes.
	CodeInvalidClientMetadata Code = "invalid_client_metadata"
	CodeInvalidRedirectURI    Code = "invalid_redirect_uri"
)

// statuses is the HTTP status of each code (docs/contract.md section 7): the one table,
// which httpx renders with (httpx.Status) and mcp and the console read through it.
var statuses = map[Code]int{
	CodeBadRequest:             http.StatusBadRequest,
	CodeCreateFailed:           http.StatusBadRequest,
	CodeUpdateFailed:           http.StatusBadRequest,
	CodeInvalid:                http.StatusBadRequest,
	CodeInvalidClientMetadata:  http.StatusBadRequest,
	CodeInvalidRedirectURI:     http.StatusBadRequest,
	CodeUnauthorized:           http.StatusUnauthorized,
	CodeInsufficientCredits:    http.StatusPaymentRequired,
	CodeInsufficientScope:      http.StatusForbidden,
	CodeInsufficientPermission: http.StatusForbidden,
	CodeForbidden:              http.StatusForbidden,
	CodeReadOnly:               http.StatusForbidden,
	CodeNotFound:               http.StatusNotFound,
	CodeUnknownResource:        http.StatusNotFound,
	CodeUnknownTool:            http.StatusNotFound,
	CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	CodeIdempotencyInFlight:    http.StatusConflict,
	CodeConflict:               http.StatusConflict,
	CodePreconditionFailed:     http.StatusPreconditionFailed,
	CodeValidation:             http.StatusUnprocessableEntity,
	CodeIdempotencyConflict:    http.StatusUnprocessableEntity,
	CodeRateLimited:            http.StatusTooManyRequests,
	CodeInternal:               http.StatusInternalServerError,
	CodeUpstream:               http.StatusBadGateway,
	CodeEnrichUnbilled:         http.StatusBadGateway,
	CodeOverloaded:             http.StatusServiceUnavailable,
	CodeOutcomeUnknown:         http.StatusServiceUnavailable,
}

// Status is c's HTTP status; a code without a row is a 500.
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}
