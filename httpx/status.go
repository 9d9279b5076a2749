package httpx

import (
	"net/http"

	"github.com/agencyos/workspaced/apierr"
)

// Status is the HTTP status of e: its code's (apierr.Code.Status, the code table in
// apierr/codes.go), or 503 for an internal_error a dependency caused (Error.Unavailable).
func Status(e *apierr.Error) int {
	if e.Unavailable {
		return http.StatusServiceUnavailable
	}
	return e.Code.Status()
}
