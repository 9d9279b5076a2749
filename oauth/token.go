package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
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

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
)

// params reads a token or revocation request: form-encoded as RFC 6749 requires, or a
// JSON object of strings (service-spec 4.3). Query parameters are never read as
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

// apiKeyValid applies decisions.md 7: the apikey header, or the apikey query parameter
// the discovery document embeds in the endpoint URL.
func (s *Server) apiKeyValid(r *http.Request) bool {
	got := r.Header.Get("apikey")
	if got == "" {
		got = r.URL.Query().Get("apikey")
	}
	return s.cfg.APIKey == "" || got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.APIKey)) == 1
}

// authenticateClient identifies the client of a token or revocation request (RFC 6749
// 2.3.1): HTTP Basic or client_id and client_secret in the body. Confidential clients
// must prove their secret; public clients send client_id alone. Every failure is
// invalid_client (401), with a Basic challenge when Basic was tried (RFC 6749 5.2).
func (s *Server) authenticateClient(ctx context.Context, r *http.Request, v url.Values) (*Client, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		// RFC 6749 2.3.1: both are form-urlencoded before Basic encoding.
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, basicChallenge(ErrInvalidClient.WithHint("malformed HTTP Basic credentials"))
		}
		if bodyID := v.Get("client_id"); bodyID != "" && bodyID != id {
			return nil, basicChallenge(ErrInvalidClient.WithHint("client_id in the body differs from the Basic credentials"))
		}
		if v.Get("client_secret") != "" {
			return nil, ErrInvalidRequest.WithHint("authenticate with one method only (RFC 6749 2.3)")
		}
	} else {
		id, secret = v.Get("client_id"), v.Get("client_secret")
	}
	fail := func(e *Error) error {
		if basic {
			return basicChallenge(e)
		}
		return e
	}
	if id == "" {
		return nil, fail(ErrInvalidClient.WithHint("client_id is required"))
	}
	c, err := s.client(ctx, id)
	if errors.Is(err, ErrClientMetadata) {
		return nil, fail(ErrInvalidClient.WithHint("%s", err.Error()))
	}
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fail(ErrInvalidClient.WithHint("unknown or disabled client"))
	}
	if c.Confidential() {
		if secret == "" {
			return nil, fail(ErrInvalidClient.WithHint("this client is confidential: authenticate with HTTP Basic or client_secret"))
		}
		if !c.checkSecret(secret) {
			return nil, fail(ErrInvalidClient.WithHint("wrong client secret"))
		}
	}
	return c, nil
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
// (decisions.md 7) and reads their form or JSON parameters; on failure it has answered.
func (s *Server) endpointParams(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	if !s.apiKeyValid(r) {
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

// token is the token endpoint (RFC 6749 3.2).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	v, ok := s.endpointParams(w, r)
	if !ok {
		return
	}
	grant := v.Get("grant_type")
	if grant == "" {
		s.fail(w, r, ErrInvalidRequest.WithHint("grant_type is required"))
		return
	}
	if grant != "authorization_code" && grant != "refresh_token" {
		s.fail(w, r, ErrUnsupportedGrantType.WithHint("grant_type %q is not supported; use authorization_code or refresh_token", grant))
		return
	}
	c, err := s.authenticateClient(r.Context(), r, v)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var p pair
	if grant == "authorization_code" {
		p, err = s.exchangeCode(r.Context(), c, v)
	} else {
		p, err = s.refresh(r.Context(), c, v)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, tokenResponse{AccessToken: p.Access, RefreshToken: p.Refresh, TokenType: "Bearer",
		ExpiresIn: int(AccessTTL.Seconds()), Scope: strings.Join(p.Scopes, " ")})
}

// verifierOK checks a PKCE code_verifier against the stored S256 challenge (RFC 7636 4.6).
func verifierOK(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// exchangeCode is the authorization_code grant (RFC 6749 4.1.3, RFC 7636 4.5). A code is
// consumed by its first presentation, whatever the outcome, and a second presentation
// revokes the tokens the first one issued (RFC 6749 4.1.2).
func (s *Server) exchangeCode(ctx context.Context, c *Client, v url.Values) (pair, error) {
	plain, verifier := v.Get("code"), v.Get("code_verifier")
	if plain == "" {
		return pair{}, ErrInvalidRequest.WithHint("code is required")
	}
	if verifier == "" {
		return pair{}, ErrInvalidRequest.WithHint("code_verifier is required (PKCE, RFC 7636 4.5)")
	}
	if !store.WellFormed(plain, store.PrefixAuthCode) {
		return pair{}, ErrInvalidGrant.WithHint("the authorization code is malformed")
	}
	now := s.now()
	var out pair
	var result error
	var revokedFamily string
	err := pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		code, err := lockCode(ctx, tx, store.HashSecret(plain))
		if err != nil {
			return err
		}
		if code == nil {
			result = ErrInvalidGrant.WithHint("unknown authorization code")
			return nil
		}
		if code.UsedAt != nil {
			// RFC 6749 4.1.2: if a code is used more than once, the server SHOULD revoke
			// all tokens previously issued based on it.
			if code.FamilyID != nil {
				if err := revokeFamily(ctx, tx, *code.FamilyID, now); err != nil {
					return err
				}
				revokedFamily = *code.FamilyID
			}
			result = ErrInvalidGrant.WithHint("the authorization code was already used; the tokens it issued are revoked")
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE oauth_codes SET used_at = $2 WHERE code_hash = $1`, store.HashSecret(plain), now); err != nil {
			return err
		}
		if result = s.checkCode(code, c, v, verifier, now); result != nil {
			return nil
		}
		resource := code.Resource
		if got := v["resource"]; len(got) > 0 {
			r, err := s.resource(got)
			if err != nil {
				result = err
				return nil
			}
			// RFC 8707 2.2: the token request may name the resource the code was bound to.
			if resource != "" && r != resource {
				result = ErrInvalidTarget.WithHint("the code was issued for %s", resource)
				return nil
			}
			resource = r
		}
		family, p, err := createFamily(ctx, tx, c.ID, code.UserID, code.WorkspaceID, code.Scopes, resource, now)
		if err != nil {
			return err
		}
		out = p
		_, err = tx.Exec(ctx, `UPDATE oauth_codes SET family_id = $2 WHERE code_hash = $1`, store.HashSecret(plain), family)
		return err
	})
	if err != nil {
		return pair{}, err
	}
	if revokedFamily != "" {
		s.notify(ctx, "oauth_family:"+revokedFamily)
	}
	return out, result
}

// checkCode compares a code's bindings with the exchange request.
func (s *Server) checkCode(code *code, c *Client, v url.Values, verifier string, now time.Time) error {
	if !now.Before(code.ExpiresAt) {
		return ErrInvalidGrant.WithHint("the authorization code expired (codes live %d seconds)", int(CodeTTL.Seconds()))
	}
	if code.ClientID != c.ID {
		return ErrInvalidGrant.WithHint("the authorization code was issued to another client")
	}
	// RFC 6749 4.1.3: redirect_uri must be identical to the one of the authorization
	// request when that request included it.
	if got := v.Get("redirect_uri"); code.RedirectGiven && got != code.RedirectURI || !code.RedirectGiven && got != "" && got != code.RedirectURI {
		return ErrInvalidGrant.WithHint("redirect_uri does not match the authorization request")
	}
	// RFC 7636 4.1: 43 to 128 unreserved characters.
	if len(verifier) < 43 || len(verifier) > 128 || !unreserved(verifier) {
		return ErrInvalidGrant.WithHint("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1)")
	}
	if !verifierOK(verifier, code.Challenge) {
		return ErrInvalidGrant.WithHint("code_verifier does not match the code_challenge (RFC 7636 4.6)")
	}
	return nil
}

// refresh is the refresh_token grant with rotation (RFC 6749 6, RFC 9700 4.14.2):
//
//   - an active token is retired and a new pair issued;
//   - a retired token replayed inside the grace window gets a new pair, and the pairs
//     issued from it before are revoked, so the family keeps one live pair (a client that
//     lost the response retries safely);
//   - a retired token replayed after the window, or a token revoked by such a retry, is
//     treated as stolen: the whole family is revoked.
//
// Concurrent refreshes of one family serialise on the family row (SELECT ... FOR UPDATE),
// and each reads the token only after holding that lock.
func (s *Server) refresh(ctx context.Context, c *Client, v url.Values) (pair, error) {
	plain := v.Get("refresh_token")
	if plain == "" {
		return pair{}, ErrInvalidRequest.WithHint("refresh_token is required")
	}
	if !store.WellFormed(plain, store.PrefixRefreshToken) {
		return pair{}, ErrInvalidGrant.WithHint("the refresh token is malformed")
	}
	var requested []string
	if sc := strings.TrimSpace(v.Get("scope")); sc != "" {
		var err error
		if requested, err = s.parseScope(sc); err != nil {
			return pair{}, err
		}
	}
	var wantResource string
	if len(v["resource"]) > 0 {
		var err error
		if wantResource, err = s.resource(v["resource"]); err != nil {
			return pair{}, err
		}
	}
	hash := store.HashSecret(plain)
	now := s.now()
	var out pair
	var result error
	var revoked string
	err := pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		var familyID string
		err := tx.QueryRow(ctx, `SELECT family_id::text FROM oauth_refresh_tokens WHERE token_hash = $1`, hash).Scan(&familyID)
		if errors.Is(err, pgx.ErrNoRows) {
			result = ErrInvalidGrant.WithHint("unknown refresh token")
			return nil
		}
		if err != nil {
			return err
		}
		var clientID, userID, status, resource string
		var familyRevoked *time.Time
		if err := tx.QueryRow(ctx, `SELECT f.client_id, f.user_id::text, f.revoked_at, u.status, f.resource
			FROM oauth_families f JOIN users u ON u.id = f.user_id WHERE f.id = $1 FOR UPDATE OF f`, familyID).
			Scan(&clientID, &userID, &familyRevoked, &status, &resource); err != nil {
			return err
		}
		// Read the token now that the family is ours: this statement sees every commit made
		// before the lock was granted.
		var tokenID string
		var generation int
		var scopes []string
		var expires time.Time
		var retired, tokenRevoked *time.Time
		if err := tx.QueryRow(ctx, `SELECT id::text, generation, scopes, expires_at, retired_at, revoked_at
			FROM oauth_refresh_tokens WHERE token_hash = $1`, hash).Scan(&tokenID, &generation, &scopes, &expires, &retired,
			&tokenRevoked); err != nil {
			return err
		}
		switch {
		case clientID != c.ID:
			result = ErrInvalidGrant.WithHint("the refresh token was issued to another client")
			return nil
		case familyRevoked != nil:
			result = ErrInvalidGrant.WithHint("the refresh token was revoked; authorize again")
			return nil
		case !now.Before(expires):
			result = ErrInvalidGrant.WithHint("the refresh token expired; authorize again")
			return nil
		case wantResource != "" && resource != "" && wantResource != resource:
			// RFC 8707 2.2: a refresh may not move the tokens to another resource.
			result = ErrInvalidTarget.WithHint("this authorization is bound to %q", resource)
			return nil
		case status != "active":
			result = ErrInvalidGrant.WithHint("the member can no longer sign in")
			return nil
		case tokenRevoked != nil || retired != nil && now.Sub(*retired) > s.grace:
			// RFC 9700 4.14.2: reuse of a rotated token means two parties hold it.
			if err := revokeFamily(ctx, tx, familyID, now); err != nil {
				return err
			}
			revoked = familyID
			result = ErrInvalidGrant.WithHint("the refresh token was already used; every token of this authorization is revoked, authorize again")
			return nil
		}
		// RFC 6749 6: the scope may be narrowed, never widened beyond what this token has.
		newScopes := scopes
		if requested != nil {
			if !subset(requested, scopes) {
				result = ErrInvalidScope.WithHint("the refresh may narrow the scope, never widen it; this token has %q", strings.Join(scopes, " "))
				return nil
			}
			newScopes = requested
		}
		if retired == nil {
			if _, err := tx.Exec(ctx, `UPDATE oauth_refresh_tokens SET retired_at = $2 WHERE id = $1`, tokenID, now); err != nil {
				return err
			}
		} else {
			// Inside the grace window: the pairs issued from this token (and after it) are
			// revoked, so one live pair remains.
			if _, err := tx.Exec(ctx, `WITH r AS (UPDATE oauth_refresh_tokens SET revoked_at = $3
					WHERE family_id = $1 AND generation > $2 AND revoked_at IS NULL RETURNING id)
				UPDATE oauth_access_tokens a SET revoked_at = $3 FROM oauth_refresh_tokens t
				WHERE a.refresh_id = t.id AND t.family_id = $1 AND t.generation > $2 AND a.revoked_at IS NULL`,
				familyID, generation, now); err != nil {
				return err
			}
			revoked = familyID // access tokens died: flush caches, the family itself lives
		}
		var next int
		if err := tx.QueryRow(ctx, `SELECT max(generation) + 1 FROM oauth_refresh_tokens WHERE family_id = $1`, familyID).Scan(&next); err != nil {
			return err
		}
		p, err := issuePair(ctx, tx, familyID, next, newScopes, now)
		if err != nil {
			return err
		}
		out = p
		_, err = tx.Exec(ctx, `UPDATE oauth_families SET last_used_at = $2 WHERE id = $1`, familyID, now)
		return err
	})
	if err != nil {
		return pair{}, err
	}
	if revoked != "" {
		s.notify(ctx, "oauth_family:"+revoked)
	}
	return out, result
}

// notify flushes every process's credential cache (store.ListenRevocations).
func (s *Server) notify(ctx context.Context, payload string) {
	if err := s.cfg.Store.NotifyRevoked(context.WithoutCancel(ctx), payload); err != nil {
		s.log.Error("oauth: notify revocation", "payload", payload, "err", fmt.Sprint(err))
	}
}
