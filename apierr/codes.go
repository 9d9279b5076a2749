package apierr

// Code is an error's stable snake_case code, the "error" member of the envelope
// (docs/contract.md section 7). Each code has one HTTP status, in httpx's table (httpx/status.go);
// a test there fails for a code missing from it.
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
