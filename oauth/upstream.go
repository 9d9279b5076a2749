package oauth

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/agencyos/workspaced/store"
)

// upstreamProvider is the discovered upstream OpenID Connect provider.
type upstreamProvider struct {
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	config   oauth2.Config
}

// upstreamFlow is what the browser carries between start and callback, in an HttpOnly
// cookie: the state (CSRF, RFC 6749 10.12), the nonce (OIDC Core 3.1.2.1), the PKCE
// verifier (RFC 7636), and where to go afterwards.
type upstreamFlow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Return   string `json:"r"`
}

// provider discovers the upstream on first use, so the service starts while it is down.
func (s *Server) provider(ctx context.Context) (*upstreamProvider, error) {
	s.upstreamMu.Lock()
	defer s.upstreamMu.Unlock()
	if s.upstream != nil {
		return s.upstream, nil
	}
	u := s.cfg.Upstream
	ctx = oidc.ClientContext(ctx, s.cfg.HTTPClient)
	p, err := oidc.NewProvider(ctx, u.Issuer)
	if err != nil {
		return nil, fmt.Errorf("oauth: discover %s: %w", u.Issuer, err)
	}
	s.upstream = &upstreamProvider{
		provider: p,
		verifier: p.VerifierContext(oidc.ClientContext(context.Background(), s.cfg.HTTPClient),
			&oidc.Config{ClientID: u.ClientID, Now: s.now}),
		config: oauth2.Config{ClientID: u.ClientID, ClientSecret: u.ClientSecret, Endpoint: p.Endpoint(),
			RedirectURL: s.cfg.Issuer + "/oauth/upstream/callback", Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
	}
	return s.upstream, nil
}

// upstreamStart sends the browser to the upstream provider (authorization code + PKCE).
func (s *Server) upstreamStart(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Upstream == nil {
		http.NotFound(w, r)
		return
	}
	p, err := s.provider(r.Context())
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth: upstream", "request_id", store.RequestID(r.Context()), "err", err)
		s.errorPage(w, http.StatusBadGateway, "Sign-in unavailable", "We could not reach "+s.cfg.Upstream.Name+". Try again, or sign in with your password.", "")
		return
	}
	state, _ := store.NewSecret("")
	nonce, _ := store.NewSecret("")
	flow := upstreamFlow{State: state, Nonce: nonce, Verifier: oauth2.GenerateVerifier(), Return: safeReturn(r.URL.Query().Get("return"))}
	raw, _ := json.Marshal(flow)
	http.SetCookie(w, &http.Cookie{Name: s.cookieName("ws_upstream"), Value: base64.RawURLEncoding.EncodeToString(raw),
		Path: "/", MaxAge: 600, HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, p.config.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(flow.Verifier)), http.StatusFound)
}

// upstreamCallback finishes an upstream sign-in: the state must match the cookie, the ID
// token's signature, issuer, audience, expiry and nonce must verify, and the verified email
// (email_verified true) must belong to an active member of some workspace.
func (s *Server) upstreamCallback(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Upstream == nil {
		http.NotFound(w, r)
		return
	}
	name := s.cfg.Upstream.Name
	refuse := func(status int, msg string, cause error) {
		if cause != nil {
			s.log.WarnContext(r.Context(), "oauth: upstream sign-in refused", "request_id", store.RequestID(r.Context()), "err", cause)
		}
		s.errorPage(w, status, "Sign-in with "+name+" refused", msg, "")
	}
	var flow upstreamFlow
	raw, err := base64.RawURLEncoding.DecodeString(s.cookie(r, "ws_upstream"))
	if err != nil || json.Unmarshal(raw, &flow) != nil || flow.State == "" {
		refuse(http.StatusBadRequest, "The sign-in took too long or was started in another browser. Please start again.", nil)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookieName("ws_upstream"), Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: s.secure, SameSite: http.SameSiteLaxMode})
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(flow.State)) != 1 {
		refuse(http.StatusBadRequest, "The sign-in answer does not belong to this browser. Please start again.", nil)
		return
	}
	if e := q.Get("error"); e != "" {
		refuse(http.StatusForbidden, name+" did not sign you in ("+e+").", nil)
		return
	}
	p, err := s.provider(r.Context())
	if err != nil {
		refuse(http.StatusBadGateway, "We could not reach "+name+".", err)
		return
	}
	ctx := oidc.ClientContext(r.Context(), s.cfg.HTTPClient)
	tok, err := p.config.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(flow.Verifier))
	if err != nil {
		refuse(http.StatusBadGateway, name+" did not accept the sign-in.", err)
		return
	}
	rawID, _ := tok.Extra("id_token").(string)
	if rawID == "" {
		refuse(http.StatusBadGateway, name+" sent no ID token.", nil)
		return
	}
	idt, err := p.verifier.Verify(ctx, rawID)
	if err != nil {
		refuse(http.StatusForbidden, "The identity "+name+" sent could not be verified.", err)
		return
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(flow.Nonce)) != 1 {
		refuse(http.StatusForbidden, "The identity "+name+" sent was not issued for this sign-in.", nil)
		return
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
	}
	if err := idt.Claims(&claims); err != nil {
		refuse(http.StatusForbidden, "The identity "+name+" sent is malformed.", err)
		return
	}
	if claims.Email == "" || !(claims.EmailVerified == true || claims.EmailVerified == "true") {
		refuse(http.StatusForbidden, name+" did not confirm that your email address is verified, so it cannot be matched to a member.", nil)
		return
	}
	m, err := s.memberByEmail(r.Context(), claims.Email)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	if m == nil || m.IsAgent {
		refuse(http.StatusForbidden, "No member of any workspace here has the email address "+claims.Email+
			". Ask a workspace admin to invite you.", nil)
		return
	}
	if m.Status != "active" {
		refuse(http.StatusForbidden, "Your account is "+m.Status+" and cannot sign in; ask a workspace admin.", nil)
		return
	}
	subject := idt.Issuer + "|" + idt.Subject
	if m.Upstream != "" && m.Upstream != subject {
		refuse(http.StatusForbidden, "This member is linked to another "+name+" account.", nil)
		return
	}
	if m.Upstream == "" {
		if err := s.db.LinkUpstream(r.Context(), m.UserID, subject); err != nil {
			s.serverErrorPage(w, r, err)
			return
		}
	}
	if err := s.startSession(w, r, m.UserID, "upstream"); err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	http.Redirect(w, r, safeReturn(flow.Return), http.StatusSeeOther)
}
