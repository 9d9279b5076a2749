package oauth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/agencyos/workspaced/store"
)

// registration is the client metadata we read (RFC 7591 2). Unknown members
// (application_type, resource, ...) are ignored, not rejected (decisions.md 7).
type registration struct {
	ClientName              *string   `json:"client_name"`
	RedirectURIs            *[]string `json:"redirect_uris"`
	TokenEndpointAuthMethod *string   `json:"token_endpoint_auth_method"`
	Scope                   *string   `json:"scope"`
	LogoURI                 *string   `json:"logo_uri"`
	ClientURI               *string   `json:"client_uri"`
	GrantTypes              *[]string `json:"grant_types"`
	ResponseTypes           *[]string `json:"response_types"`
}

// registrationResponse is the 201 body of service-spec 4.3, exactly.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
}

// register is dynamic client registration (RFC 7591 3): public, unverified clients only.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if ip := s.cfg.ClientIP(r); !s.limiter.Allow(ctx, ip) {
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
	if err := s.db.InsertOAuthClient(ctx, (*store.OAuthClient)(c), ""); err != nil {
		s.fail(w, r, err)
		return
	}
	scope := s.cfg.Scopes
	if c.Scope != nil {
		scope = c.Scope
	}
	writeJSON(w, http.StatusCreated, registrationResponse{ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt.Unix(),
		ClientName: c.Name, RedirectURIs: c.RedirectURIs, TokenEndpointAuthMethod: "none",
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		Scope: strings.Join(scope, " ")})
}

// checkRegistration applies service-spec 4.3 rule 7 and decisions.md 7.
func (s *Server) checkRegistration(m registration) (*Client, *Error) {
	if m.RedirectURIs == nil || len(*m.RedirectURIs) == 0 {
		return nil, ErrInvalidRedirectURI.WithHint("redirect_uris is required: a list of 1 to %d URIs", MaxRedirectURIs)
	}
	uris := *m.RedirectURIs
	if len(uris) > MaxRedirectURIs {
		return nil, ErrInvalidRedirectURI.WithHint("at most %d redirect_uris; got %d", MaxRedirectURIs, len(uris))
	}
	for _, u := range uris {
		if e := checkRedirectURI(u); e != nil {
			return nil, e
		}
	}
	// Dynamically registered clients are public: there is no secret to hand out safely to
	// whoever asks (decisions.md 7).
	if m.TokenEndpointAuthMethod != nil && *m.TokenEndpointAuthMethod != "none" {
		return nil, ErrInvalidClientMetadata.WithHint("token_endpoint_auth_method must be none: registered clients are public and use PKCE")
	}
	if m.GrantTypes != nil {
		for _, g := range *m.GrantTypes {
			if g != "authorization_code" && g != "refresh_token" {
				return nil, ErrInvalidClientMetadata.WithHint("grant_types may hold authorization_code and refresh_token only")
			}
		}
	}
	if m.ResponseTypes != nil {
		for _, t := range *m.ResponseTypes {
			if t != "code" {
				return nil, ErrInvalidClientMetadata.WithHint("response_types may hold code only")
			}
		}
	}
	c := &Client{RedirectURIs: uris, Dynamic: true, CreatedAt: s.now().Truncate(time.Microsecond)}
	c.Name = "Unnamed app"
	if m.ClientName != nil {
		name := strings.TrimSpace(*m.ClientName)
		if len(name) > 100 {
			return nil, ErrInvalidClientMetadata.WithHint("client_name is longer than 100 characters")
		}
		if !displayable(name) {
			return nil, ErrInvalidClientMetadata.WithHint("client_name may not hold control characters or direction overrides")
		}
		if name != "" {
			c.Name = name
		}
	}
	for _, f := range []struct {
		name string
		v    *string
		dst  *string
	}{{"logo_uri", m.LogoURI, &c.LogoURI}, {"client_uri", m.ClientURI, &c.ClientURI}} {
		if f.v == nil || *f.v == "" {
			continue
		}
		if e := checkHTTPS(f.name, *f.v); e != nil {
			return nil, e
		}
		*f.dst = *f.v
	}
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

// checkHTTPS accepts an absolute https URL (logo_uri and client_uri: decisions.md 7).
func checkHTTPS(name, raw string) *Error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(raw) > 2000 || !storable(raw) {
		return ErrInvalidClientMetadata.WithHint("%s must be an https URL", name)
	}
	return nil
}

// MemoryLimiter is an in-process sliding-window RegisterLimiter: at most n registrations
// per address per window. Counts are per process; the shared limiter replaces it when
// several processes serve.
type MemoryLimiter struct{ w *window[netip.Addr] }

// NewMemoryLimiter allows n registrations per window per address.
func NewMemoryLimiter(n int, window time.Duration, now func() time.Time) *MemoryLimiter {
	return &MemoryLimiter{newWindow[netip.Addr](n, window, now)}
}

// Allow implements RegisterLimiter.
func (l *MemoryLimiter) Allow(_ context.Context, ip netip.Addr) bool { return l.w.allow(ip) }
