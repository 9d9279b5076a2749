package oauth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/agencyos/workspaced/store"
)

// registration is the client metadata we read (RFC 7591 2). Unknown members (resource,
// ...) are ignored, not rejected (docs/decisions.md 7); application_type is only echoed.
type registration struct {
	ClientName              *string   `json:"client_name"`
	RedirectURIs            *[]string `json:"redirect_uris"`
	TokenEndpointAuthMethod *string   `json:"token_endpoint_auth_method"`
	Scope                   *string   `json:"scope"`
	LogoURI                 *string   `json:"logo_uri"`
	ClientURI               *string   `json:"client_uri"`
	GrantTypes              *[]string `json:"grant_types"`
	ResponseTypes           *[]string `json:"response_types"`
	ApplicationType         *string   `json:"application_type"`
}

// registrationResponse is the 201 body of docs/contract.md section 4.3, exactly.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
	// ApplicationType echoes the request's web or native (OpenID Connect Dynamic Client
	// Registration 2): RFC 7591 3.2.1 returns the registered metadata, and the 2026 MCP
	// SDKs compare it. It changes nothing here: redirect rules are the same for both.
	ApplicationType string `json:"application_type,omitempty"`
}

// register is dynamic client registration (RFC 7591 3): public, unverified clients only.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if ok, err := s.allowRegistration(ctx, s.cfg.ClientIP(r)); err != nil {
		s.fail(w, r, err)
		return
	} else if !ok {
		w.Header().Set("Retry-After", "3600")
		s.fail(w, r, ErrRateLimited)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10+1))
	if err != nil || len(body) > 64<<10 {
		s.fail(w, r, ErrInvalidClientMetadata.WithHint("the body must be a JSON object under 64 KiB"))
		return
	}
	var m registration
	if err := json.Unmarshal(body, &m); err != nil {
		s.fail(w, r, ErrInvalidClientMetadata.WithHint("the body is not a JSON object of client metadata (RFC 7591 2): %v", err))
		return
	}
	c, e := s.checkRegistration(m)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	if err := s.db.InsertOAuthClient(ctx, (*store.OAuthClient)(c), store.By{}); err != nil {
		s.fail(w, r, err)
		return
	}
	scope := s.cfg.Scopes
	if c.Scope != nil {
		scope = c.Scope
	}
	writeJSON(w, http.StatusCreated, registrationResponse{ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt.Unix(),
		ClientName: c.Name, RedirectURIs: c.RedirectURIs, TokenEndpointAuthMethod: "none",
		GrantTypes: GrantTypes(), ResponseTypes: []string{"code"},
		Scope: strings.Join(scope, " "), ApplicationType: applicationType(m.ApplicationType)})
}

// applicationType is the application_type to echo: web or native, anything else (or
// nothing) ignored as an unknown member would be.
func applicationType(v *string) string {
	if v != nil && (*v == "web" || *v == "native") {
		return *v
	}
	return ""
}

// checkRegistration applies docs/contract.md section 4.3 rule 7 and docs/decisions.md 7.
func (s *Server) checkRegistration(m registration) (*Client, *Error) {
	var uris []string
	if m.RedirectURIs != nil {
		uris = *m.RedirectURIs
	}
	meta := clientMetadata{Name: m.ClientName, RedirectURIs: uris, AuthMethod: m.TokenEndpointAuthMethod}
	if m.GrantTypes != nil {
		meta.GrantTypes = *m.GrantTypes
	}
	if m.ResponseTypes != nil {
		meta.ResponseTypes = *m.ResponseTypes
	}
	if m.LogoURI != nil {
		meta.LogoURI = *m.LogoURI
	}
	if m.ClientURI != nil {
		meta.ClientURI = *m.ClientURI
	}
	ok, e := registrationRules.check(meta)
	if e != nil {
		return nil, e
	}
	c := &Client{Name: ok.Name, RedirectURIs: ok.RedirectURIs, LogoURI: ok.LogoURI, ClientURI: ok.ClientURI,
		Dynamic: true, CreatedAt: s.now().Truncate(time.Microsecond)}
	if m.Scope != nil && strings.TrimSpace(*m.Scope) != "" {
		scopes, err := s.parseScope(*m.Scope)
		if err != nil {
			return nil, ErrInvalidClientMetadata.WithHint("scope: %s", descriptionOf(err))
		}
		c.Scope = scopes
	}
	id, _ := store.NewSecret("")
	c.ID = PrefixDynamicClient + id[:24]
	return c, nil
}

// allowRegistration spends one registration from ip (a metadata document's fetch costs
// one too); an error is the limiter failing to decide (limiterError).
func (s *Server) allowRegistration(ctx context.Context, ip netip.Addr) (bool, error) {
	ok, err := s.limiter.Allow(ctx, ip)
	if err != nil {
		return false, limiterFailed(err)
	}
	return ok, nil
}

// memoryLimiter is the in-process sliding-window RegisterLimiter used when
// Config.RegisterLimiter is nil: at most n registrations per address per window. Counts
// are per process; cmd wires the shared limiter instead.
type memoryLimiter struct{ w *window[netip.Addr] }

// newMemoryLimiter allows n registrations per window per address.
func newMemoryLimiter(n int, window time.Duration, now func() time.Time) *memoryLimiter {
	return &memoryLimiter{newWindow[netip.Addr](n, window, now)}
}

// Allow implements RegisterLimiter.
func (l *memoryLimiter) Allow(_ context.Context, ip netip.Addr) (bool, error) {
	return l.w.allow(ip), nil
}
