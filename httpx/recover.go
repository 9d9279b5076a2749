package httpx

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/agencyos/workspaced/store"
)

// StatusClientClosed is what the access log and the metrics record for a request whose
// client hung up before the answer (nginx's 499): not a failure of the service.
const StatusClientClosed = 499

// Recover answers a handler's panic with a 500 in the spec's envelope carrying the request
// id, and logs it once with its stack (tailscale's tsweb does the same), so one bad request
// neither kills the connection without an answer nor goes unrecorded. A panic after the
// client hung up is logged as the hang-up it follows, at info level and without a 500.
// http.ErrAbortHandler passes through: it is net/http's way to abort a response on
// purpose. Mount it inside RequestID and the access log, so both see its answer.
func Recover(log *slog.Logger) func(http.Handler) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v)
				}
				if ClientGone(r) {
					clientGone(w, r, log)
					return
				}
				log.ErrorContext(r.Context(), "panic", "request_id", RequestIDFrom(r.Context()),
					"method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				// The response may have begun; then the status is already sent and this only
				// ends the body.
				WriteError(w, r, nil, store.Internal(errors.New("panic")))
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// ClientGone reports whether r's client hung up (its context was canceled while the server
// still runs): whatever failed after that is the hang-up, not the service's fault.
func ClientGone(r *http.Request) bool {
	return errors.Is(r.Context().Err(), context.Canceled)
}

// clientGone records a hang-up: one info line and StatusClientClosed for the access log;
// nobody reads a body.
func clientGone(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
	if log != nil {
		log.InfoContext(r.Context(), "client went away", "request_id", RequestIDFrom(r.Context()),
			"method", r.Method, "path", r.URL.Path)
	}
	w.WriteHeader(StatusClientClosed)
}
