package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
)

// params reads a token or revocation request: form-encoded as RFC 6749 requires, or a
// JSON object of strings (docs/contract.md section 4.3). Query parameters are never read as
// parameters (RFC 6749 3.2: the client MUST use POST; credentials stay out of URLs).
func params(r *http.Request) (url.Values, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10+1))
	if err != nil {
		return nil, ErrInvalidRequest.WithHint("the body could not be read")
	}
	if len(body) > 64<<10 {
		return nil, ErrInvalidRequest.WithHint("the body is larger than 64 KiB")
	}
	if ct == "application/json" {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, ErrInvalidRequest.WithHint("the body is not a JSON object")
		}
		v := url.Values{}
		for k, x := range m {
			switch x := x.(type) {
			case string:
				v.Set(k, x)
			case []any: // scope or resource as a list
				for _, e := range x {
					if s, ok := e.(string); ok {
						v.Add(k, s)
					}
				}
				if k == "scope" {
					v.Set(k, strings.Join(v[k], " "))
				}
			case nil:
			default:
				return nil, ErrInvalidRequest.WithHint("%s must be a string", k)
			}
		}
		return v, nil
	}
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, ErrInvalidRequest.WithHint("the body is not form-encoded (application/x-www-form-urlencoded)")
	}
	// RFC 6749 3.2: parameters sent without a value are treated as omitted; repeated
	// parameters are refused.
	for k, x := range v {
		if len(x) > 1 && k != "resource" {
			return nil, ErrInvalidRequest.WithHint("%s is repeated", k)
		}
	}
	return v, nil
}

// clientAuth is what a token or revocation request says about its client (RFC 6749
// 2.3.1): HTTP Basic, or client_id and client_secret in the body.
type clientAuth struct {
	id, secret string
	basic      bool
}

// readClientAuth reads a request's client credentials and refuses what the request alone
// decides: malformed Basic credentials, two methods, no client_id or one that cannot name
// a stored client. Confidential clients
// must prove their secret; public clients send client_id alone. Every failure is
// invalid_client (401), with a Basic challenge when Basic was tried (RFC 6749 5.2).
func readClientAuth(r *http.Request, v url.Values) (clientAuth, error) {
	id, secret, basic := r.BasicAuth()
	a := clientAuth{basic: basic}
	if basic {
		var err1, err2 error
		// RFC 6749 2.3.1: both are form-urlencoded before Basic encoding.
		a.id, err1 = url.QueryUnescape(id)
		a.secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return a, a.fail(ErrInvalidClient.WithHint("malformed HTTP Basic credentials"))
		}
		if bodyID := v.Get("client_id"); bodyID != "" && bodyID != a.id {
			return a, a.fail(ErrInvalidClient.WithHint("client_id in the body differs from the Basic credentials"))
		}
		if v.Get("client_secret") != "" {
			return a, ErrInvalidRequest.WithHint("authenticate with one method only (RFC 6749 2.3)")
		}
	} else {
		a.id, a.secret = v.Get("client_id"), v.Get("client_secret")
	}
	switch {
	case a.id == "":
		return a, a.fail(ErrInvalidClient.WithHint("client_id is required"))
	case !clientIDValid(a.id):
		return a, a.refusal(store.ClientUnknown)
	}
	return a, nil
}

func (a clientAuth) fail(e *Error) error {
	if a.basic {
		return basicChallenge(e)
	}
	return e
}

// refusal is the error of a failed client check, named as the grant functions name it
// (oauth_client_check, store/migrations/00017); nil for any other outcome.
func (a clientAuth) refusal(outcome store.GrantOutcome) error {
	switch outcome {
	case store.ClientUnknown:
		return a.fail(ErrInvalidClient.WithHint("unknown or disabled client"))
	case store.ClientSecretMissing:
		return a.fail(ErrInvalidClient.WithHint("this client is confidential: authenticate with HTTP Basic or client_secret"))
	case store.ClientSecretWrong:
		return a.fail(ErrInvalidClient.WithHint("wrong client secret"))
	}
	return nil
}

// grantClient is the credentials as the grant functions check them.
func (a clientAuth) grantClient() store.GrantClient {
	g := store.GrantClient{ID: a.id}
	if a.secret != "" {
		g.SecretHash = []byte{} // malformed: matches no client's secret
		if store.WellFormed(a.secret, store.PrefixClientSecret) {
			g.SecretHash = store.HashSecret(a.secret)
		}
	}
	return g
}

// authenticate makes the grant functions' client check on its own (store.CheckOAuthClient):
// for revocation, and for token requests refused before their grant statement (refuse).
// Like the grants it reads the stored client only: a metadata-document client is known by
// the row its authorization stored (authorizeClient), so these endpoints never fetch; a
// client never authorized here has no code or token to present.
func (s *Server) authenticate(ctx context.Context, a clientAuth) error {
	outcome, err := s.db.CheckOAuthClient(ctx, a.grantClient())
	if err != nil {
		return err
	}
	return a.refusal(outcome)
}

// authenticateClient authenticates the client of a revocation request and returns its id.
func (s *Server) authenticateClient(ctx context.Context, r *http.Request, v url.Values) (string, error) {
	a, err := readClientAuth(r, v)
	if err != nil {
		return "", err
	}
	return a.id, s.authenticate(ctx, a)
}

// refuse answers a grant the Go side refuses before the grant statement, which is where
// the client would have been authenticated: the client comes first, so a request from an
// unknown client or with a wrong secret is invalid_client whatever else is wrong with it.
func (s *Server) refuse(ctx context.Context, a clientAuth, err error) error {
	if cerr := s.authenticate(ctx, a); cerr != nil {
		return cerr
	}
	return err
}

// challengeError carries the WWW-Authenticate header of a failed Basic authentication.
type challengeError struct{ e *Error }

func (c challengeError) Error() string { return c.e.Error() }

func basicChallenge(e *Error) error { return challengeError{e} }

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ch challengeError
	if errors.As(err, &ch) {
		w.Header().Set("WWW-Authenticate", `Basic realm="workspaced", charset="UTF-8"`)
		err = ch.e
	}
	s.writeError(w, r, err)
}

// tokenResponse is RFC 6749 5.1's successful response.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	Scope        string `json:"scope"`
}

// endpointParams applies the apikey rule of the token and revocation endpoints
// (docs/decisions.md 7) and reads their form or JSON parameters; on failure it has answered.
func (s *Server) endpointParams(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	if !httpx.APIKeyValid(r, s.cfg.APIKey) {
		s.fail(w, r, &Error{Code: "invalid_request", Status: http.StatusUnauthorized,
			Description: "the apikey header (or apikey query parameter) is missing or unknown"})
		return nil, false
	}
	v, err := params(r)
	if err != nil {
		s.fail(w, r, err)
		return nil, false
	}
	return v, true
}

// grantHandler answers one grant type of the token endpoint: the pair it issued, or the
// error to render. Each handler reads its own parameters and makes its own client check
// (through its grant statement, or refuse).
type grantHandler func(s *Server, ctx context.Context, a clientAuth, v url.Values) (pair, error)

// grantType is one row of the token endpoint's table of grant types.
type grantType struct {
	name   string // the grant_type value (RFC 6749 section 4)
	handle grantHandler
}

// grantTypes is the token endpoint's table: a grant_type is dispatched to its handler, and
// the unsupported_grant_type error lists the names here (RFC 6749 section 5.2). A grant
// type is added by adding a row.
func grantTypes() []grantType {
	return []grantType{
		{"authorization_code", (*Server).exchangeCode}, // RFC 6749 4.1.3, RFC 7636 4.5
		{"refresh_token", (*Server).refresh},           // RFC 6749 6
	}
}

// GrantTypes names the grant types of the token endpoint's table, in its order: the
// authorization server metadata's grant_types_supported (RFC 8414 section 2), and what a
// registered client may use.
func GrantTypes() []string {
	table := grantTypes()
	names := make([]string, len(table))
	for i, g := range table {
		names[i] = g.name
	}
	return names
}

// grantHandlerFor is the handler of the grant type named name, or an unsupported_grant_type
// error naming the supported ones.
func grantHandlerFor(name string) (grantHandler, error) {
	for _, g := range grantTypes() {
		if g.name == name {
			return g.handle, nil
		}
	}
	return nil, ErrUnsupportedGrantType.WithHint("grant_type %q is not supported; use %s", name, strings.Join(GrantTypes(), " or "))
}

// token is the token endpoint (RFC 6749 3.2).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	v, ok := s.endpointParams(w, r)
	if !ok {
		return
	}
	name := v.Get("grant_type")
	if name == "" {
		s.fail(w, r, ErrInvalidRequest.WithHint("grant_type is required"))
		return
	}
	handle, err := grantHandlerFor(name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	a, err := readClientAuth(r, v)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p, err := handle(s, r.Context(), a, v)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, tokenResponse{AccessToken: p.Access, RefreshToken: p.Refresh, TokenType: "Bearer",
		ExpiresIn: int(AccessTTL.Seconds()), Scope: strings.Join(p.Scopes, " ")})
}

// exchangeCode is the authorization_code grant (RFC 6749 4.1.3, RFC 7636 4.5). A code is
// consumed by its first presentation, whatever the outcome, and a second presentation
// revokes the tokens the first one issued (RFC 6749 4.1.2). The checks that need the code
// and the issuing run in one statement, oauth_code_grant (store/migrations/00017).
func (s *Server) exchangeCode(ctx context.Context, a clientAuth, v url.Values) (pair, error) {
	plain, verifier := v.Get("code"), v.Get("code_verifier")
	if plain == "" {
		return pair{}, s.refuse(ctx, a, ErrInvalidRequest.WithHint("code is required"))
	}
	if verifier == "" {
		return pair{}, s.refuse(ctx, a, ErrInvalidRequest.WithHint("code_verifier is required (PKCE, RFC 7636 4.5)"))
	}
	if !store.WellFormed(plain, store.PrefixAuthCode) {
		return pair{}, s.refuse(ctx, a, ErrInvalidGrant.WithHint("the authorization code is malformed"))
	}
	// What the request alone decides is checked here; a failure still consumes the code.
	var requestErr error
	// RFC 7636 4.1: 43 to 128 unreserved characters.
	if len(verifier) < 43 || len(verifier) > 128 || !unreserved(verifier) {
		requestErr = ErrInvalidGrant.WithHint("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1)")
	}
	resource, err := s.resource(v["resource"])
	if err != nil && requestErr == nil {
		requestErr = err
	}
	var redirect *string
	if got := v.Get("redirect_uri"); got != "" {
		redirect = &got
	}
	now := s.now()
	p, issue := s.mint(now)
	g, err := s.db.GrantCode(ctx, store.CodeGrant{Client: a.grantClient(), CodeHash: store.HashSecret(plain), Now: now,
		RequestOK: requestErr == nil, RedirectURI: redirect, Challenge: s256(verifier), Resource: resource, Pair: issue})
	p.Scopes = g.Granted
	if err != nil {
		return pair{}, err
	}
	if err := a.refusal(g.Outcome); err != nil {
		return pair{}, err
	}
	switch g.Outcome {
	case store.CodeGrantIssued:
		return p, nil
	case store.GrantUnknown:
		return pair{}, ErrInvalidGrant.WithHint("unknown authorization code")
	case store.CodeGrantReplayed:
		if g.Family != nil {
			s.notify(ctx, "oauth_family:"+*g.Family)
		}
		return pair{}, ErrInvalidGrant.WithHint("the authorization code was already used; the tokens it issued are revoked")
	case store.CodeGrantBadRequest:
		return pair{}, requestErr
	case store.GrantExpired:
		return pair{}, ErrInvalidGrant.WithHint("the authorization code expired (codes live %d seconds)", int(CodeTTL.Seconds()))
	case store.GrantOtherClient:
		return pair{}, ErrInvalidGrant.WithHint("the authorization code was issued to another client")
	case store.CodeGrantOtherRedirect:
		return pair{}, ErrInvalidGrant.WithHint("redirect_uri does not match the authorization request")
	case store.CodeGrantWrongVerifier:
		return pair{}, ErrInvalidGrant.WithHint("code_verifier does not match the code_challenge (RFC 7636 4.6)")
	case store.GrantOtherResource:
		return pair{}, ErrInvalidTarget.WithHint("the code was issued for %s", g.Bound)
	}
	return pair{}, fmt.Errorf("oauth: code grant: unexpected outcome %q", g.Outcome)
}

// s256 is the S256 code_challenge of a verifier (RFC 7636 4.6).
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// refresh is the refresh_token grant with rotation (RFC 6749 6, RFC 9700 4.14.2):
//
//   - an active token is retired and a new pair issued;
//   - a retired token replayed inside the grace window gets a new pair, and the pairs
//     issued after it are superseded, so the family keeps one live pair (a client that
//     lost the response, or sent parallel refreshes, retries safely); a superseded token
//     is honoured inside the same window;
//   - a retired token replayed after the window is treated as stolen: the whole family
//     is revoked.
//
// A refresh of an unbound authorization may name a resource: the new access token is bound
// to it, the family stays unbound (RFC 8707 section 2.2).
//
// The rules run in one statement, oauth_refresh_grant (store/migrations/00017, 00038),
// which serialises concurrent refreshes of one family on the family row and binds the
// access token it issues in the same statement.
func (s *Server) refresh(ctx context.Context, a clientAuth, v url.Values) (pair, error) {
	plain := v.Get("refresh_token")
	if plain == "" {
		return pair{}, s.refuse(ctx, a, ErrInvalidRequest.WithHint("refresh_token is required"))
	}
	if !store.WellFormed(plain, store.PrefixRefreshToken) {
		return pair{}, s.refuse(ctx, a, ErrInvalidGrant.WithHint("the refresh token is malformed"))
	}
	var requested []string
	if sc := strings.TrimSpace(v.Get("scope")); sc != "" {
		var err error
		if requested, err = s.parseScope(sc); err != nil {
			return pair{}, s.refuse(ctx, a, err)
		}
	}
	wantResource, err := s.resource(v["resource"])
	if err != nil {
		return pair{}, s.refuse(ctx, a, err)
	}
	now := s.now()
	p, issue := s.mint(now)
	g, err := s.db.GrantRefresh(ctx, store.RefreshGrant{Client: a.grantClient(), TokenHash: store.HashSecret(plain), Now: now,
		GraceStart: now.Add(-s.grace), Scopes: requested, Resource: wantResource, Pair: issue})
	p.Scopes = g.Granted
	if err != nil {
		return pair{}, err
	}
	if err := a.refusal(g.Outcome); err != nil {
		return pair{}, err
	}
	switch g.Outcome {
	case store.RefreshRotated:
		return p, nil
	case store.RefreshSuperseded:
		// Access tokens of the superseded pairs died: flush caches; the family lives.
		s.notify(ctx, "oauth_family:"+*g.Family)
		return p, nil
	case store.GrantUnknown:
		return pair{}, ErrInvalidGrant.WithHint("unknown refresh token")
	case store.GrantOtherClient:
		return pair{}, ErrInvalidGrant.WithHint("the refresh token was issued to another client")
	case store.RefreshRevoked:
		return pair{}, ErrInvalidGrant.WithHint("the refresh token was revoked; authorize again")
	case store.GrantExpired:
		return pair{}, ErrInvalidGrant.WithHint("the refresh token expired; authorize again")
	case store.GrantOtherResource:
		return pair{}, ErrInvalidTarget.WithHint("this authorization is bound to %q", g.Bound)
	case store.RefreshInactive:
		return pair{}, ErrInvalidGrant.WithHint("the member can no longer sign in")
	case store.RefreshReused:
		// RFC 9700 4.14.2: reuse of a rotated token means two parties hold it.
		s.notify(ctx, "oauth_family:"+*g.Family)
		return pair{}, ErrInvalidGrant.WithHint("the refresh token was already used; every token of this authorization is revoked, authorize again")
	case store.RefreshWiderScope:
		return pair{}, ErrInvalidScope.WithHint("the refresh may narrow the scope, never widen it; this token has %q", strings.Join(g.Granted, " "))
	}
	return pair{}, fmt.Errorf("oauth: refresh grant: unexpected outcome %q", g.Outcome)
}

// mint makes a token pair; a grant stores its hashes only if it issues it, one statement,
// one round trip, no transaction held open across them.
func (s *Server) mint(now time.Time) (pair, store.OAuthPair) {
	var p pair
	issue := store.OAuthPair{RefreshExpires: now.Add(RefreshTTL), AccessExpires: now.Add(AccessTTL)}
	p.Refresh, issue.RefreshHash = store.NewSecret(store.PrefixRefreshToken)
	p.Access, issue.AccessHash = store.NewSecret(store.PrefixAccessToken)
	return p, issue
}

// notify flushes every process's credential cache (store.ListenRevocations).
func (s *Server) notify(ctx context.Context, payload string) {
	if s.cfg.Revoked != nil {
		s.cfg.Revoked(payload)
	}
	if err := s.cfg.Store.NotifyRevoked(context.WithoutCancel(ctx), payload); err != nil {
		s.log.Error("oauth: notify revocation", "payload", payload, "err", fmt.Sprint(err))
	}
}
