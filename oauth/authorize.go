package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agencyos/workspaced/store"
)

// authRequest is a validated authorization request (RFC 6749 4.1.1, RFC 7636 4.3).
type authRequest struct {
	Client        *Client
	RedirectURI   string // where to send the answer
	RedirectGiven bool   // the request carried redirect_uri (RFC 6749 4.1.3)
	State         string
	Challenge     string
	Scopes        []string
	Resource      string
	Prompt        string
	Raw           string // the query as received, carried through the login and consent forms
}

// pageError is an authorization error that must be shown, never redirected: the client
// or its redirect_uri cannot be trusted (RFC 6749 4.1.2.1, RFC 9700 4.1).
type pageError struct {
	title, message string
	status         int // 0: 400
}

// parseAuthorize validates an authorization request. It returns a pageError when the
// client or redirect_uri is bad, or the request with a redirectable *Error otherwise.
func (s *Server) parseAuthorize(ctx context.Context, ip netip.Addr, raw string) (*authRequest, *pageError, *Error, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, &pageError{title: "Invalid request", message: "The authorization request is malformed."}, nil, nil
	}
	// RFC 6749 3.1: request parameters MUST NOT be included more than once.
	for k, v := range q {
		if len(v) > 1 && (k == "client_id" || k == "redirect_uri") {
			return nil, &pageError{title: "Invalid request", message: "The request repeats " + k + "."}, nil, nil
		}
	}
	clientID := q.Get("client_id")
	c, err := s.authorizeClient(ctx, ip, clientID)
	if errors.Is(err, ErrMetadataBudget) {
		return nil, &pageError{title: "Too many requests", message: "Too many new applications were looked up from your network. Nothing was shared.",
			status: http.StatusTooManyRequests}, nil, nil
	}
	if errors.Is(err, ErrClientMetadata) {
		return nil, &pageError{title: "Unusable application", message: "The application's metadata document could not be used, so nothing was shared: " +
			err.Error() + "."}, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if c == nil {
		return nil, &pageError{title: "Unknown application", message: "The application that sent you here is not registered (or was disabled). Nothing was shared."}, nil, nil
	}
	redirect, ok := c.redirectAllowed(q.Get("redirect_uri"))
	if !ok {
		return nil, &pageError{title: "Invalid redirect address", message: "The application asked to send you to an address it did not register. For your safety you were not sent there."}, nil, nil
	}
	req := &authRequest{Client: c, RedirectURI: redirect, RedirectGiven: q.Get("redirect_uri") != "", State: q.Get("state"),
		Raw: raw, Prompt: q.Get("prompt")}
	for k, v := range q {
		if len(v) > 1 && k != "resource" {
			return req, nil, ErrInvalidRequest.WithHint("%s is repeated (RFC 6749 3.1)", k), nil
		}
	}
	if rt := q.Get("response_type"); rt != "code" {
		if rt == "" {
			return req, nil, ErrInvalidRequest.WithHint("response_type is required and must be code"), nil
		}
		return req, nil, ErrUnsupportedResponseType.WithHint("response_type must be code; %q is not supported", rt), nil
	}
	// RFC 7636 4.4.1 and OAuth 2.1: PKCE is required for every client, and only S256 is
	// accepted (plain would hand the verifier to whoever reads the request).
	req.Challenge = q.Get("code_challenge")
	if req.Challenge == "" {
		return req, nil, ErrInvalidRequest.WithHint("code_challenge is required (PKCE, RFC 7636) with code_challenge_method=S256"), nil
	}
	if m := q.Get("code_challenge_method"); m != "S256" {
		return req, nil, ErrInvalidRequest.WithHint("code_challenge_method must be S256; %q is not accepted", m), nil
	}
	if len(req.Challenge) != 43 || !unreserved(req.Challenge) {
		return req, nil, ErrInvalidRequest.WithHint("code_challenge must be the 43-character base64url SHA-256 of the verifier"), nil
	}
	if sc := q.Get("scope"); strings.TrimSpace(sc) != "" {
		if req.Scopes, err = s.parseScope(sc); err != nil {
			e, err := asError(err)
			return req, nil, e, err
		}
		if c.Scope != nil && !subset(req.Scopes, c.Scope) {
			return req, nil, ErrInvalidScope.WithHint("the app registered the scopes %q and may not ask for more", strings.Join(c.Scope, " ")), nil
		}
	} else if c.Scope != nil {
		req.Scopes = c.Scope
	} else {
		req.Scopes = s.cfg.Scopes
	}
	if req.Resource, err = s.resource(q["resource"]); err != nil {
		e, err := asError(err)
		return req, nil, e, err
	}
	return req, nil, nil, nil
}

// unreserved reports whether v holds only RFC 3986 unreserved characters (RFC 7636 4.1).
func unreserved(v string) bool {
	for _, c := range v {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// responseURL is the authorization response to the client: the redirect URI with params
// plus state and iss (RFC 6749 4.1.2, RFC 9207 2). The registered URI's own query is kept
// as it is.
func (s *Server) responseURL(req *authRequest, params url.Values) string {
	if req.State != "" {
		params.Set("state", req.State)
	}
	params.Set("iss", s.cfg.Issuer)
	sep := "?"
	if strings.Contains(req.RedirectURI, "?") {
		sep = "&"
	}
	return req.RedirectURI + sep + params.Encode()
}

// redirectWith sends the browser back to the client with params.
func (s *Server) redirectWith(w http.ResponseWriter, r *http.Request, req *authRequest, params url.Values) {
	status := http.StatusFound
	if r.Method == http.MethodPost {
		status = http.StatusSeeOther
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, s.responseURL(req, params), status)
}

// redirectError sends an error to the client after the member acted on one of our pages
// (Deny, an empty approval): they saw where they are going.
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, req *authRequest, e *Error) {
	s.redirectWith(w, r, req, url.Values{"error": {e.Code}, "error_description": {e.Description}})
}

// answerError reports an error found before the member did anything. Anyone can register
// a client with their own site as its redirect URI, so redirecting errors at once would
// make this server an open redirector (RFC 9700 4.11.2): only admin-registered apps and
// loopback URIs (the member's own machine) are redirected to; for other clients the error
// is shown on a page whose link leads on to the client (docs/decisions.md 7).
func (s *Server) answerError(w http.ResponseWriter, r *http.Request, req *authRequest, e *Error) {
	if redirectTrusted(req) {
		s.redirectError(w, r, req, e)
		return
	}
	status := e.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	s.errorLinkPage(w, status, "The application's request was refused",
		"The application's request could not be completed: "+e.Description+".",
		s.responseURL(req, url.Values{"error": {e.Code}, "error_description": {e.Description}}), redirectHost(req.RedirectURI))
}

// redirectTrusted reports whether errors may be sent to req's redirect URI without a page:
// the client is an admin-registered (verified) app, or the URI is a loopback one.
func redirectTrusted(req *authRequest) bool {
	if req.Client.adminRegistered() {
		return true
	}
	u, err := url.Parse(req.RedirectURI)
	return err == nil && u.Scheme == "http" && isLoopbackHost(u.Hostname())
}

// validAuthorize parses an authorization request and answers its errors: an error page
// when the client or redirect_uri cannot be trusted, else a redirect with the error
// (docs/decisions.md 7). advice is the error page's last line.
func (s *Server) validAuthorize(w http.ResponseWriter, r *http.Request, raw, advice string) (*authRequest, bool) {
	req, pe, e, err := s.parseAuthorize(r.Context(), s.cfg.ClientIP(r), raw)
	switch {
	case err != nil:
		s.serverErrorPage(w, r, err)
		return nil, false
	case pe != nil:
		status := pe.status
		if status == 0 {
			status = http.StatusBadRequest
		}
		s.errorPage(w, status, pe.title, pe.message, advice)
		return nil, false
	case e != nil:
		s.answerError(w, r, req, e)
		return nil, false
	}
	return req, true
}

// authorizeGet starts or resumes an authorization: validate, make sure someone is signed
// in, then either answer at once (an earlier consent covers the request) or ask.
func (s *Server) authorizeGet(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	req, ok := s.validAuthorize(w, r, r.URL.RawQuery, "Tell the application's developer; you can close this page.")
	if !ok {
		return
	}
	m, err := s.signedIn(r)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	if m == nil {
		if req.Prompt == "none" {
			// OpenID Connect Core 3.1.2.6, which OAuth clients also use: no page may be shown.
			s.answerError(w, r, req, &Error{Code: "login_required", Status: http.StatusBadRequest, Description: "no member is signed in"})
			return
		}
		http.Redirect(w, r, "/oauth/login?"+url.Values{"return": {"/oauth/authorize?" + req.Raw}}.Encode(), http.StatusFound)
		return
	}
	if e := s.memberMayAuthorize(req, m); e != nil {
		s.answerError(w, r, req, e)
		return
	}
	if s.refusedByWorkspace(w, r, req, m) {
		return
	}
	offered, unavailable := s.split(req, m)
	prior, err := s.db.OAuthConsent(ctx, m.UserID, req.Client.ID)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	if req.Prompt != "consent" && len(offered) > 0 && consented(req, prior, offered) {
		s.issueCode(w, r, req, m, offered)
		return
	}
	if req.Prompt == "none" {
		s.answerError(w, r, req, &Error{Code: "consent_required", Status: http.StatusBadRequest,
			Description: "the member has not approved these scopes yet"})
		return
	}
	s.consentPage(w, r, req, m, offered, unavailable, prior)
}

// consented reports whether an earlier approval covers the request, so the member is not
// asked again: the same or wider scopes, and for any client but an admin-registered app the
// exact redirect URI, port included. Any local program can listen on a loopback port, so an
// approval given to one port is no approval for another (RFC 8252 8.6, RFC 9700 4.2).
func consented(req *authRequest, prior *consent, offered []string) bool {
	if prior == nil || !subset(offered, prior.Scopes) {
		return false
	}
	return req.Client.adminRegistered() || slices.Contains(prior.RedirectURIs, req.RedirectURI)
}

// memberMayAuthorize refuses an app registered by another workspace: an admin-registered
// app serves its own workspace's members only.
func (s *Server) memberMayAuthorize(req *authRequest, m *member) *Error {
	if req.Client.WorkspaceID != "" && req.Client.WorkspaceID != m.WorkspaceID {
		return ErrAccessDenied.WithHint("this app is registered for another workspace")
	}
	return nil
}

// split divides the requested scopes into those the member can grant now and those their
// role or feature grants do not allow (docs/decisions.md 3: the consent page never offers more
// than the member can do).
func (s *Server) split(req *authRequest, m *member) (offered, unavailable []string) {
	grantable := s.cfg.GrantableScopes(principalOf(m))
	for _, sc := range req.Scopes {
		if slices.Contains(grantable, sc) {
			offered = append(offered, sc)
		} else {
			unavailable = append(unavailable, sc)
		}
	}
	return offered, unavailable
}

// authorizePost is the consent form's answer.
func (s *Server) authorizePost(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "Invalid form", "The form could not be read.", "")
		return
	}
	if !s.csrfValid(r) {
		s.errorPage(w, http.StatusForbidden, "Form expired", "This form was not sent from this browser's own consent page, so it was ignored.",
			"Go back to the application and start again.")
		return
	}
	req, ok := s.validAuthorize(w, r, r.PostFormValue("request"), "")
	if !ok {
		return
	}
	m, err := s.signedIn(r)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	if m == nil {
		http.Redirect(w, r, "/oauth/login?"+url.Values{"return": {"/oauth/authorize?" + req.Raw}}.Encode(), http.StatusSeeOther)
		return
	}
	if e := s.memberMayAuthorize(req, m); e != nil {
		s.redirectError(w, r, req, e)
		return
	}
	if s.refusedByWorkspace(w, r, req, m) {
		return
	}
	if r.PostFormValue("action") != "approve" {
		// docs/decisions.md 7: Deny -> error=access_denied (RFC 6749 4.1.2.1).
		s.redirectError(w, r, req, ErrAccessDenied)
		return
	}
	offered, _ := s.split(req, m)
	// Only what was offered can be granted: a forged checkbox (hr:write for a member without
	// the hr grant) is dropped here, whatever the form says.
	chosen := intersect(offered, r.PostForm["scope"])
	if len(chosen) == 0 {
		s.redirectError(w, r, req, ErrAccessDenied.WithHint("no permission was approved"))
		return
	}
	if err := s.db.PutOAuthConsent(ctx, m.UserID, req.Client.ID, chosen, req.RedirectURI, s.now(), maxConsentRedirects); err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	s.issueCode(w, r, req, m, chosen)
}

// issueCode stores an authorization code bound to everything a token exchange must match
// (RFC 6749 4.1.2: short-lived, single use, bound to client and redirect_uri; RFC 7636 4.4:
// the challenge) and sends it to the client.
func (s *Server) issueCode(w http.ResponseWriter, r *http.Request, req *authRequest, m *member, scopes []string) {
	plain, hash := store.NewSecret(store.PrefixAuthCode)
	now := s.now()
	err := s.db.InsertOAuthCode(r.Context(), hash, code{ClientID: req.Client.ID, UserID: m.UserID, WorkspaceID: m.WorkspaceID,
		RedirectURI: req.RedirectURI, RedirectGiven: req.RedirectGiven, Challenge: req.Challenge, Scopes: scopes,
		Resource: req.Resource, ExpiresAt: now.Add(CodeTTL)}, now)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	s.redirectWith(w, r, req, url.Values{"code": {plain}})
}

func (s *Server) serverErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	s.log.ErrorContext(r.Context(), "oauth: page", "request_id", store.RequestID(r.Context()), "err", err)
	if after, unavailable := retryAfterUnavailable(err); unavailable {
		w.Header().Set("Retry-After", strconv.Itoa(after))
		s.errorPage(w, http.StatusServiceUnavailable, "Temporarily unavailable",
			"This page is briefly unavailable. Please try again in a few seconds.", "")
		return
	}
	s.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Something failed on our side. Please try again.", "")
}
