package oauth

import (
	"net/http"
	"strings"

	"github.com/agencyos/workspaced/store"
)

// The console (package console) signs people in through this provider's pages and keeps
// their rules: these methods hand it the session, the CSRF tokens, the cross-origin check
// and the page headers, so there is one of each.

// SessionMember returns the active human member signed in on this browser, or nil.
func (s *Server) SessionMember(r *http.Request) (*store.OAuthMember, error) { return s.signedIn(r) }

// StartSession signs the browser in as userID (a member who just set a password through
// an invitation or reset link); method names how, for the session row.
func (s *Server) StartSession(w http.ResponseWriter, r *http.Request, userID, method string) error {
	return s.startSession(w, r, userID, method)
}

// CSRFToken returns the token this browser's forms carry, setting its cookie if needed.
func (s *Server) CSRFToken(w http.ResponseWriter, r *http.Request) string { return s.csrfToken(w, r) }

// CSRFValid reports whether a parsed form carries this browser's token.
func (s *Server) CSRFValid(r *http.Request) bool { return s.csrfValid(r) }

// SameOrigin refuses requests the browser marks as cross-origin, as the provider's own
// forms do.
func (s *Server) SameOrigin(next http.Handler) http.Handler { return s.sameOrigin(next) }

// SetPageHeaders sets the headers of an HTML page: the strict Content-Security-Policy
// (forms post only to this origin), no framing, no sniffing, no referrer, no caching.
func (s *Server) SetPageHeaders(w http.ResponseWriter) { pageHeaders(w.Header(), "'self'") }

// ServiceName is the name the pages give the service (SERVICE_NAME).
func (s *Server) ServiceName() string { return s.cfg.ServiceName }

// AllowAttempt charges one attempt to the sign-in budget of r's client address (as a
// sign-in for account would be) and reports whether it may go ahead: the console's
// "Forgot password?" shares it, so neither can be used to probe accounts faster than the
// other. An error means the limiter could not decide.
func (s *Server) AllowAttempt(r *http.Request, account string) (bool, error) {
	return s.logins.AllowSignIn(r.Context(), s.cfg.ClientIP(r), strings.ToLower(account))
}

// AllowResetMail charges a "Forgot password?" request for account (an email, known or
// not) to the account's own budget, shared by every address and, with REDIS_URL, every
// replica, and reports whether a reset link may be mailed. An error means the limiter
// could not decide.
func (s *Server) AllowResetMail(r *http.Request, account string) (bool, error) {
	return s.logins.AllowResetMail(r.Context(), strings.ToLower(strings.TrimSpace(account)))
}
