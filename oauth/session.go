package oauth

import (
	"net/http"
	"net/url"
	"strings"
)

// dummyHash keeps a sign-in for an unknown email as slow as one for a known email, so
// response times do not reveal who has an account.
const dummyHash = "$argon2id$v=19$m=65536,t=3,p=2$c29tZXNhbHRzb21lc2FsdA$2Ue6x2oYhU8ZK8ouH1tm4zAyO2nNFY8z1x0ypL/DiwM"

// signedIn returns the member of the browser's session, or nil. Only active, human
// members have sessions that work (docs/decisions.md 2).
func (s *Server) signedIn(r *http.Request) (*member, error) {
	plain := s.cookie(r, "ws_session")
	if plain == "" {
		return nil, nil
	}
	return s.db.OAuthSessionMember(r.Context(), plain, s.now())
}

// startSession signs the browser in as userID.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, userID, method string) error {
	plain, err := s.db.CreateOAuthSession(r.Context(), userID, method, s.now(), s.now().Add(SessionTTL))
	if err != nil {
		return err
	}
	s.setCookie(w, "ws_session", plain, int(SessionTTL.Seconds()))
	s.setDevice(w, userID)
	return nil
}

// safeReturn keeps post-login redirects on our own pages, the provider's and the
// console's (no open redirect).
func safeReturn(ret string) string {
	if !(strings.HasPrefix(ret, "/oauth/") || ret == "/console" || strings.HasPrefix(ret, "/console/")) ||
		strings.HasPrefix(ret, "//") || strings.ContainsAny(ret, "\\\r\n") {
		return "/oauth/apps"
	}
	return ret
}

// loginData is what the login page shows.
type loginData struct {
	CSRF, Return, Email, Error string
	Service                    string   // SERVICE_NAME
	App                        *appView // the app of the authorization request the sign-in continues, or nil
	ResetURL                   string   // "Forgot password?", or ""
	UpstreamName, UpstreamURL  string
}

// loginPage renders the sign-in form. When the sign-in continues an authorization
// request, the page presents its app as the consent page does, the unverified warning
// included, before anything is typed; and the form may end in a redirect to that client,
// so its redirect origin joins form-action.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request, status int, ret, email, msg string) {
	ret = safeReturn(ret)
	data := loginData{CSRF: s.csrfToken(w, r), Return: ret, Email: email, Error: msg, Service: s.cfg.ServiceName,
		ResetURL: s.cfg.PasswordResetURL}
	var origin string
	if raw, ok := strings.CutPrefix(ret, "/oauth/authorize?"); ok {
		if req, pe, _, err := s.parseAuthorize(r.Context(), s.cfg.ClientIP(r), raw); err == nil && pe == nil && req != nil {
			app := appOf(req)
			app.Badge = "Verified by a workspace admin" // whose workspace the sign-in will tell
			data.App, origin = &app, redirectOrigin(req.RedirectURI)
		}
	}
	if s.cfg.Upstream != nil {
		data.UpstreamName = s.cfg.Upstream.Name
		data.UpstreamURL = "/oauth/upstream/start?" + url.Values{"return": {ret}}.Encode()
	}
	s.render(w, status, "login", data, origin)
}

func (s *Server) loginGet(w http.ResponseWriter, r *http.Request) {
	ret := safeReturn(r.URL.Query().Get("return"))
	if m, err := s.signedIn(r); err == nil && m != nil {
		http.Redirect(w, r, ret, http.StatusFound)
		return
	}
	s.loginPage(w, r, http.StatusOK, ret, "", "")
}

// loginPost checks an email and password. Invited and suspended members cannot sign in,
// nor can agents' users (they have keys, not passwords); all are answered as a wrong
// password is.
func (s *Server) loginPost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "Invalid form", "The form could not be read.", "")
		return
	}
	ret := safeReturn(r.PostFormValue("return"))
	email := strings.TrimSpace(r.PostFormValue("email"))
	if !s.csrfValid(r) {
		s.loginPage(w, r, http.StatusForbidden, ret, email, "The form expired; please sign in again.")
		return
	}
	ip, account := s.cfg.ClientIP(r), strings.ToLower(email)
	if ok, err := s.logins.AllowSignIn(r.Context(), ip, account); err != nil {
		s.serverErrorPage(w, r, limiterFailed(err))
		return
	} else if !ok {
		w.Header().Set("Retry-After", loginRetryAfter)
		s.loginPage(w, r, http.StatusTooManyRequests, ret, email,
			"Too many failed sign-ins from this network. Wait a few minutes, then try again.")
		return
	}
	m, err := s.memberByEmail(r.Context(), email)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	known := m != nil && m.PasswordHash != "" && !m.IsAgent
	var match, busy bool
	switch hashed, err := s.hashUnknown(r, known); {
	case err != nil:
		s.serverErrorPage(w, r, limiterFailed(err))
		return
	case known:
		match, busy = s.checks.check(r.Context(), m.PasswordHash, r.PostFormValue("password"), s.knownDevice(r, m.UserID))
	case hashed:
		_, busy = s.checks.check(r.Context(), dummyHash, r.PostFormValue("password"), false)
	default:
		s.checks.pause(r.Context())
	}
	if busy {
		w.Header().Set("Retry-After", "5")
		s.loginPage(w, r, http.StatusTooManyRequests, ret, email, "Too many people are signing in right now. Try again in a few seconds.")
		return
	}
	// A right password of a member who may not sign in (suspended, invited) is answered
	// and counted as a wrong one: a different answer would tell whoever tries passwords
	// for that account which one is right.
	if !match || m.Status != "active" {
		if err := s.logins.SignInFailed(r.Context(), ip, account); err != nil {
			s.serverErrorPage(w, r, limiterFailed(err))
			return
		}
		s.loginPage(w, r, http.StatusUnauthorized, ret, email,
			"The email or password is not right, or the account cannot sign in (a workspace admin can tell you why).")
		return
	}
	if err := s.startSession(w, r, m.UserID, "password"); err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	http.Redirect(w, r, ret, http.StatusSeeOther)
}

// hashUnknown reports whether a sign-in for an email no member has (with a password)
// hashes the dummy: a budget all addresses share bounds those, so made-up emails cannot
// keep the hash slots busy; beyond it the answer only waits as long (passwordChecks.pause).
func (s *Server) hashUnknown(r *http.Request, known bool) (bool, error) {
	if known {
		return false, nil
	}
	return s.logins.AllowUnknownAccount(r.Context())
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || !s.csrfValid(r) {
		s.errorPage(w, http.StatusForbidden, "Form expired", "Sign-out was not confirmed from this browser.", "")
		return
	}
	if plain := s.cookie(r, "ws_session"); plain != "" {
		if err := s.db.DeleteOAuthSession(r.Context(), plain); err != nil {
			s.serverErrorPage(w, r, err)
			return
		}
	}
	s.setCookie(w, "ws_session", "", -1)
	http.Redirect(w, r, "/oauth/login", http.StatusSeeOther)
}
