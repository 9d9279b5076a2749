// Package oauth is the service's OAuth 2.0 authorization server (docs/contract.md sections 4.3 and 5,
// docs/decisions.md 7): sign-in and consent pages, the authorization-code flow with PKCE, the
// token, revocation and dynamic registration endpoints, admin-registered apps, the
// "Connected apps" page, and the Verifier that turns access tokens into principals.
//
// It depends on store only; cmd hands it the scope catalogue and the rule deciding which
// scopes a member can grant.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/oauth/permissions"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/wellknown"
	"github.com/agencyos/workspaced/workspace"
)

// Lifetimes of docs/contract.md sections 5.3 and 8.
const (
	CodeTTL    = 60 * time.Second
	AccessTTL  = time.Hour
	RefreshTTL = 30 * 24 * time.Hour
	SessionTTL = 12 * time.Hour
	// UnusedClientTTL is how long a dynamically registered client may go without a first
	// token before it is purged (docs/decisions.md 7).
	UnusedClientTTL = 30 * 24 * time.Hour
	// DefaultRefreshGrace is the refresh grace window when Config.RefreshGrace is zero.
	DefaultRefreshGrace = 30 * time.Second
	// MaxRedirectURIs bounds a client's redirect URIs (docs/contract.md section 8).
	MaxRedirectURIs = 10
)

// Config is what the provider needs; cmd builds it.
type Config struct {
	Store Storage
	// Issuer is PUBLIC_URL with no trailing slash, identical in every document (RFC 8414 2,
	// RFC 9207). Cookies are Secure when it is https.
	Issuer string
	// APIKey is the public routing key the token and revocation endpoints require.
	APIKey string
	// Scopes is the catalogue (docs/contract.md section 5.5), the order the consent page shows.
	Scopes []string
	// GrantableScopes lists what a member can exercise right now (docs/decisions.md 3): the
	// consent page offers no more.
	GrantableScopes func(*auth.Principal) []string
	// Resources are the RFC 8707 resource values accepted; default {Issuer}/v1 and
	// {Issuer}/mcp.
	Resources []string
	// RefreshGrace is the window in which a rotated refresh token is honoured again
	// (docs/decisions.md 7); 0 means DefaultRefreshGrace, at most 60 s.
	RefreshGrace time.Duration
	// Now is the clock; nil means time.Now. Tests move it to expire codes and tokens.
	Now func() time.Time
	// Upstream enables "Sign in with <Name>" through an OpenID Connect provider.
	Upstream *Upstream
	// RegisterLimiter throttles dynamic registration per client IP (20 per hour); nil uses
	// an in-process limiter.
	RegisterLimiter RegisterLimiter
	// LoginLimiter holds the password sign-in budgets; nil uses an in-process
	// ratelimit.Limiter with ratelimit.DefaultSignInBudgets.
	LoginLimiter LoginLimiter
	// PasswordChecks bounds the password hashes computed at once (each argon2id check holds
	// 64 MiB); 0 means 2. PasswordWait is how long a sign-in waits for a free one before it
	// is answered 429; 0 means 3 s.
	PasswordChecks int
	PasswordWait   time.Duration
	// Revoked is called with every revocation's payload before the revocation is
	// answered, so this process's credential cache forgets the tokens at once; other
	// processes hear of it through NotifyRevoked. nil: only the notification.
	Revoked func(payload string)
	// ClientIP returns the address a request comes from; nil uses RemoteAddr.
	ClientIP func(*http.Request) netip.Addr
	// ClientMetadata resolves client_ids that are https URLs as Client ID Metadata Documents
	// (docs/decisions.md 8); nil accepts registered clients only.
	ClientMetadata *MetadataDocuments
	// ServiceName names the service on the sign-in page (SERVICE_NAME); "" means
	// "workspaced".
	ServiceName string
	// PasswordResetURL is where the sign-in page's "Forgot password?" leads (the
	// console's, when email is configured); "" shows no such link.
	PasswordResetURL string
	// ConnectedAppsURL is the page where members see and revoke the apps they connected,
	// which the consent page names (the console's account page); "" means /oauth/apps.
	ConnectedAppsURL string
	// DescribeScope says in plain words what a scope reaches, for the consent and Connected
	// apps pages: its family ("CRM") and what it covers (deals, crm files); cmd passes
	// workspace.DescribeScope. nil makes each scope's name its own family.
	DescribeScope permissions.Describe
	// HTTPClient makes the calls to the upstream provider; nil uses http.DefaultClient.
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// Upstream is an OpenID Connect provider members may sign in with (docs/decisions.md 7).
type Upstream struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	Name         string // shown as "Sign in with <Name>"
}

// RegisterLimiter decides whether one more dynamic registration from ip is allowed. An
// error means it could not decide (a shared store it needs is down and its failure policy
// refuses): the request is answered 503, not 429, since no budget was spent.
type RegisterLimiter interface {
	Allow(ctx context.Context, ip netip.Addr) (bool, error)
}

// Server is the authorization server.
type Server struct {
	cfg       Config
	log       *slog.Logger
	db        Storage
	now       func() time.Time
	grace     time.Duration
	secure    bool
	resources map[string]string // normalised -> canonical
	catalogue map[string]bool
	limiter   RegisterLimiter
	logins    LoginLimiter
	checks    *passwordChecks
	devices   *window[string] // known-device sign-ins per member (device.go)
	csrfKey   []byte
	pages     *pages

	upstreamMu sync.Mutex
	upstream   *upstreamProvider
}

// New builds the provider. It reads (or makes, once) the key that signs CSRF tokens.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Issuer == "" || len(cfg.Scopes) == 0 || cfg.GrantableScopes == nil {
		return nil, errors.New("oauth: Config needs Store, Issuer, Scopes and GrantableScopes")
	}
	cfg.Issuer = strings.TrimRight(cfg.Issuer, "/")
	if cfg.RefreshGrace == 0 {
		cfg.RefreshGrace = DefaultRefreshGrace
	}
	if cfg.RefreshGrace < 0 || cfg.RefreshGrace > time.Minute {
		return nil, errors.New("oauth: RefreshGrace must be between 0 and 60s")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if len(cfg.Resources) == 0 {
		cfg.Resources = []string{cfg.Issuer + "/v1", cfg.Issuer + "/mcp"}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.ServiceName == "" {
		cfg.ServiceName = "workspaced"
	}
	if cfg.ClientIP == nil {
		cfg.ClientIP = remoteIP
	}
	if cfg.ConnectedAppsURL == "" {
		cfg.ConnectedAppsURL = "/oauth/apps"
	}
	s := &Server{cfg: cfg, log: cfg.Logger, db: cfg.Store, now: cfg.Now, grace: cfg.RefreshGrace,
		secure: strings.HasPrefix(cfg.Issuer, "https://"), resources: map[string]string{}, catalogue: map[string]bool{},
		limiter: cfg.RegisterLimiter, logins: cfg.LoginLimiter, checks: newPasswordChecks(cfg.PasswordChecks, cfg.PasswordWait),
		devices: newWindow[string](deviceBudget, deviceWindow, cfg.Now)}
	for _, r := range cfg.Resources {
		n, err := wellknown.NormalResource(r)
		if err != nil {
			return nil, fmt.Errorf("oauth: Resources: %w", err)
		}
		s.resources[n] = r
	}
	for _, sc := range cfg.Scopes {
		s.catalogue[sc] = true
	}
	if s.limiter == nil {
		s.limiter = newMemoryLimiter(20, time.Hour, cfg.Now)
	}
	if s.logins == nil {
		l, err := ratelimit.New(ratelimit.Config{})
		if err != nil {
			return nil, err
		}
		s.logins = l
	}
	key, err := cfg.Store.Setting(ctx, "oauth_csrf_key", func() string { k, _ := store.NewSecret("csrf_"); return k })
	if err != nil {
		return nil, err
	}
	s.csrfKey = []byte(key)
	if s.pages, err = newPages(); err != nil {
		return nil, err
	}
	return s, nil
}

// Handler serves every /oauth path; mount it at /oauth.
//
//	GET  /authorize            sign-in (redirect to /login), consent, or a code
//	POST /authorize            the consent form
//	GET  /login, POST /login   password sign-in; GET /upstream/start, /upstream/callback
//	POST /logout
//	POST /token, /revoke       apikey required; CORS *
//	POST /register             RFC 7591; CORS *
//	GET  /apps, POST /apps/revoke                 Connected apps
//	GET  /admin/apps, POST /admin/apps[/rotate|/disable]  admin-registered apps
//	GET  /static/style.css
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	// The pages' forms refuse what the browser itself says is a cross-origin POST
	// (Sec-Fetch-Site, else Origin against Host: Go's http.CrossOriginProtection), beside
	// their CSRF tokens, so a leaked form token alone cannot sign someone in, consent or
	// manage apps from another site. Token, revoke and register stay open to other origins.
	forms := r.With(s.sameOrigin)
	r.Get("/authorize", s.authorizeGet)
	forms.Post("/authorize", s.authorizePost)
	r.Get("/login", s.loginGet)
	forms.Post("/login", s.loginPost)
	forms.Post("/logout", s.logout)
	r.Get("/upstream/start", s.upstreamStart)
	r.Get("/upstream/callback", s.upstreamCallback)
	for path, h := range map[string]http.HandlerFunc{"/token": s.token, "/revoke": s.revoke, "/register": s.register} {
		r.Options(path, cors.Preflight)
		r.Post(path, cors.Handler(h).ServeHTTP)
	}
	r.Get("/apps", s.connectedApps)
	forms.Post("/apps/revoke", s.connectedAppsRevoke)
	r.Get("/admin/apps", s.adminApps)
	forms.Post("/admin/apps", s.adminAppsCreate)
	forms.Post("/admin/apps/rotate", s.adminAppsRotate)
	forms.Post("/admin/apps/disable", s.adminAppsDisable)
	r.Get("/static/style.css", serveCSS)
	return r
}

// TokenPath is the token endpoint's path, where cmd mounts Handler at /oauth.
const TokenPath = "/oauth/token"

// RouteClass is the class a request to the provider counts against before authentication
// (cmd's guard): the token endpoint's requests are workspace.ClassToken, bounded in flight
// and refused while the database circuit breaker is open, with WriteUnavailable's body;
// the other pages need no bound ("").
func RouteClass(r *http.Request) workspace.Class {
	if r.URL.Path == TokenPath {
		return workspace.ClassToken
	}
	return ""
}

// sameOrigin lets through only requests the browser does not mark as cross-origin; a
// refused one gets the provider's error page. The issuer's own origin is trusted by name
// too, for a proxy that passes on a Host other than the public one.
func (s *Server) sameOrigin(next http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	_ = p.AddTrustedOrigin(s.cfg.Issuer) // an issuer with a path is no origin: Host decides
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.errorPage(w, http.StatusForbidden, "Request refused",
			"This form was sent from another site.", "Open the page on this site and send it from there.")
	}))
	return p.Handler(next)
}

// cors is the CORS policy of the endpoints browser-based clients call (docs/decisions.md 7:
// token, revoke and register are served with CORS *).
var cors = httpx.CORS{Methods: []string{"POST", "OPTIONS"}, AllowHeaders: []string{"Authorization", "Content-Type", "apikey"},
	ExposeHeaders: []string{"WWW-Authenticate", "Retry-After"}}

func remoteIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}

// resource resolves an RFC 8707 resource parameter: "" stays unbound; anything not ours is
// invalid_target (RFC 8707 section 2).
func (s *Server) resource(values []string) (string, error) {
	switch len(values) {
	case 0:
		return "", nil
	case 1:
		if values[0] == "" {
			return "", nil
		}
		if n, err := wellknown.NormalResource(values[0]); err == nil && s.resources[n] != "" {
			return s.resources[n], nil
		}
		return "", ErrInvalidTarget.WithHint("resource %q is not served here; use %s", values[0], strings.Join(s.cfg.Resources, " or "))
	}
	return "", ErrInvalidTarget.WithHint("send one resource parameter")
}
