package httpx

import (
	"net/http"

	"github.com/agencyos/workspaced/apierr"
)

// statuses is the HTTP status of each error code (docs/contract.md section 7): the one table. A
// code missing here fails TestEveryCodeHasAStatus; an unknown code at run time is a 500.
var statuses = map[apierr.Code]int{
	apierr.CodeBadRequest:             http.StatusBadRequest,
	apierr.CodeCreateFailed:           http.StatusBadRequest,
	apierr.CodeUpdateFailed:           http.StatusBadRequest,
	apierr.CodeInvalid:                http.StatusBadRequest,
	apierr.CodeInvalidClientMetadata:  http.StatusBadRequest,
	apierr.CodeInvalidRedirectURI:     http.StatusBadRequest,
	apierr.CodeUnauthorized:           http.StatusUnauthorized,
	apierr.CodeInsufficientCredits:    http.StatusPaymentRequired,
	apierr.CodeInsufficientScope:      http.StatusForbidden,
	apierr.CodeInsufficientPermission: http.StatusForbidden,
	apierr.CodeForbidden:              http.StatusForbidden,
	apierr.CodeReadOnly:               http.StatusForbidden,
	apierr.CodeNotFound:               http.StatusNotFound,
	apierr.CodeUnknownResource:        http.StatusNotFound,
	apierr.CodeUnknownTool:            http.StatusNotFound,
	apierr.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	apierr.CodeIdempotencyInFlight:    http.StatusConflict,
	apierr.CodeConflict:               http.StatusConflict,
	apierr.CodePreconditionFailed:     http.StatusPreconditionFailed,
	apierr.CodeValidation:             http.StatusUnprocessableEntity,
	apierr.CodeIdempotencyConflict:    http.StatusUnprocessableEntity,
	apierr.CodeRateLimited:            http.StatusTooManyRequests,
	apierr.CodeInternal:               http.StatusInternalServerError,
	apierr.CodeUpstream:               http.StatusBadGateway,
	apierr.CodeEnrichUnbilled:         http.StatusBadGateway,
	apierr.CodeOverloaded:             http.StatusServiceUnavailable,
	apierr.CodeOutcomeUnknown:         http.StatusServiceUnavailable,
}

// Status is the HTTP status of e: its code's, or 503 for an internal_error a dependency
// caused (Error.Unavailable).
func Status(e *apierr.Error) int {
	if e.Unavailable {
		return http.StatusServiceUnavailable
	}
	if s, ok := statuses[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
