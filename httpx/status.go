package httpx

import (
	"net/http"

	"github.com/agencyos/workspaced/store"
)

// statuses is the HTTP status of each error code (docs/contract.md section 7): the one table. A
// code missing here fails TestEveryCodeHasAStatus; an unknown code at run time is a 500.
var statuses = map[store.Code]int{
	store.CodeBadRequest:             http.StatusBadRequest,
	store.CodeCreateFailed:           http.StatusBadRequest,
	store.CodeUpdateFailed:           http.StatusBadRequest,
	store.CodeInvalid:                http.StatusBadRequest,
	store.CodeInvalidClientMetadata:  http.StatusBadRequest,
	store.CodeInvalidRedirectURI:     http.StatusBadRequest,
	store.CodeUnauthorized:           http.StatusUnauthorized,
	store.CodeInsufficientCredits:    http.StatusPaymentRequired,
	store.CodeInsufficientScope:      http.StatusForbidden,
	store.CodeInsufficientPermission: http.StatusForbidden,
	store.CodeForbidden:              http.StatusForbidden,
	store.CodeReadOnly:               http.StatusForbidden,
	store.CodeNotFound:               http.StatusNotFound,
	store.CodeUnknownResource:        http.StatusNotFound,
	store.CodeUnknownTool:            http.StatusNotFound,
	store.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	store.CodeIdempotencyInFlight:    http.StatusConflict,
	store.CodeConflict:               http.StatusConflict,
	store.CodePreconditionFailed:     http.StatusPreconditionFailed,
	store.CodeValidation:             http.StatusUnprocessableEntity,
	store.CodeIdempotencyConflict:    http.StatusUnprocessableEntity,
	store.CodeRateLimited:            http.StatusTooManyRequests,
	store.CodeInternal:               http.StatusInternalServerError,
	store.CodeUpstream:               http.StatusBadGateway,
	store.CodeEnrichUnbilled:         http.StatusBadGateway,
	store.CodeOverloaded:             http.StatusServiceUnavailable,
	store.CodeOutcomeUnknown:         http.StatusServiceUnavailable,
}

// Status is the HTTP status of e: its code's, or 503 for an internal_error a dependency
// caused (Error.Unavailable).
func Status(e *store.Error) int {
	if e.Unavailable {
		return http.StatusServiceUnavailable
	}
	if s, ok := statuses[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
