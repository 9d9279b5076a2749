package restapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/wellknown"
	"github.com/agencyos/workspaced/workspace"
)

// Config is what the REST API needs; cmd builds it.
type Config struct {
	// Ops is the domain's operation layer, built by cmd (workspace.NewOps) and shared
	// with MCP and the console.
	Ops    *workspace.Ops
	Auth   workspace.Authenticator
	APIKey string // the public routing key every request carries (docs/contract.md section 5.1)
	Logger *slog.Logger
	// Limiter charges every authenticated call and every failed authentication; nil
	// disables rate limiting.
	Limiter workspace.Limiter
	// TrustedProxies are the proxy ranges whose X-Forwarded-For names the client IP.
	TrustedProxies []netip.Prefix
	// PublicURL is the service's origin. A token bound to a resource (RFC 8707) is
	// accepted only when bound to PublicURL or PublicURL/v1; with PublicURL "" no bound
	// token is.
	PublicURL string
}

// API is the REST adapter over the operation layer, mounted at /v1.
type API struct {
	cfg     Config
	ops     *workspace.Ops
	openapi []byte // the OpenAPI document, generated once from the catalogue
	imports Importer
}

// New builds the REST API.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &API{cfg: cfg, ops: cfg.Ops, openapi: OpenAPI()}
}

// ServeImports has the API serve /imports with im (docs/rest.md, "Imports"); until it is
// called they answer 503. The importer is built over Ops, so it comes after New.
func (a *API) ServeImports(im Importer) { a.imports = im }

// Handler serves the API; mount it at /v1 (paths below are relative to it).
func (a *API) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(httpx.RequestID)
	r.Get("/openapi.json", a.openAPI)
	r.Group(func(r chi.Router) {
		r.Use(a.authenticate, a.wellFormedQuery)
		r.Get("/me", a.handle(a.me))
		a.actionRoutes(r)
		a.importRoutes(r)
		r.Get("/search", a.handle(a.search))
		r.Post("/{resource}/batch", a.handle(a.batch))
		r.Get("/{resource}/export", a.handle(a.export))
		r.HandleFunc("/{resource}", a.handle(a.collection))
		r.HandleFunc("/{resource}/{id}", a.handle(a.item))
		r.HandleFunc("/{resource}/{id}/merge", a.handle(a.merge))
	})
	r.MethodNotAllowed(a.authenticate(a.handle(a.methodNotAllowed)).ServeHTTP)
	r.NotFound(a.handle(func(w http.ResponseWriter, r *http.Request) error {
		return apierr.Errorf(apierr.CodeUnknownResource, "no such resource %q; see /v1/openapi.json for the catalogue", r.URL.Path)
	}))
	return r
}

// handle adapts a handler that returns an error to the one error renderer.
func (a *API) handle(h func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			httpx.WriteError(w, r, a.cfg.Logger, err)
		}
	}
}

// authenticate enforces the apikey and bearer rules (docs/contract.md section 5.1, docs/decisions.md 3 step 1),
// then charges the call to the rate limits (docs/decisions.md 5), whose headers every response
// carries.
func (a *API) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.principal(r)
		if err != nil {
			// Only a credential refused is a failed authentication; a lookup that could not
			// run (database down) is the service's fault, answered 503 and not charged to
			// the client's IP, or an outage would lock out everyone behind it.
			if store.AsError(err).Code == apierr.CodeUnauthorized {
				err = a.limitFailure(r, w.Header(), err)
			}
			a.challenge(w.Header(), r, err)
			httpx.WriteError(w, r, a.cfg.Logger, err)
			return
		}
		if err := workspace.TakeCall(r.Context(), a.cfg.Limiter, p, w.Header()); err != nil {
			httpx.WriteError(w, r, a.cfg.Logger, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(httpx.WithPrincipal(r.Context(), p.WithVia(store.ViaREST))))
	})
}

// challenge sets the WWW-Authenticate header a 401 carries (RFC 6750 section 3):
// error="invalid_token" when a bearer token was sent and refused, a bare challenge when
// none was sent (or the apikey was missing, so the token was never looked at).
func (a *API) challenge(h http.Header, r *http.Request, err error) {
	if store.AsError(err).Code != apierr.CodeUnauthorized {
		return
	}
	v := `Bearer realm="workspaced"`
	if httpx.BearerToken(r) != "" && httpx.APIKeyValid(r, a.cfg.APIKey) {
		v += `, error="invalid_token"`
	}
	h.Set("WWW-Authenticate", v)
}

// principal resolves the request's credential: unauthorized, or the lookup's own failure.
func (a *API) principal(r *http.Request) (*auth.Principal, error) {
	if !httpx.APIKeyValid(r, a.cfg.APIKey) {
		return nil, apierr.Unauthorized("the apikey header (or apikey query parameter) is missing or unknown")
	}
	bearer := httpx.BearerToken(r)
	if bearer == "" {
		return nil, apierr.Unauthorized("send Authorization: Bearer <access token or agent key>")
	}
	p, err := a.cfg.Auth.Authenticate(r.Context(), bearer)
	if err != nil {
		return nil, err
	}
	// RFC 8707 section 2: a token bound to another resource (the MCP server) is not
	// accepted here; one bound to the origin names the whole service.
	if res := p.Credential.Resource; res != "" && !a.audience(res) {
		return nil, apierr.Unauthorized("this token was issued for %s; authorize again with resource=%s/v1", res,
			strings.TrimRight(a.cfg.PublicURL, "/"))
	}
	return p, nil
}

// audience reports whether resource names the REST API: the origin or the origin's /v1,
// compared in wellknown.NormalResource's form, the one the OAuth provider binds tokens with
// (docs/decisions.md 7); a value it refuses names nothing.
func (a *API) audience(resource string) bool {
	n, err := wellknown.NormalResource(resource)
	if err != nil || a.cfg.PublicURL == "" {
		return false
	}
	origin, err1 := wellknown.NormalResource(a.cfg.PublicURL)
	base, err2 := wellknown.NormalResource(a.cfg.PublicURL + "/v1")
	return err1 == nil && err2 == nil && (n == origin || n == base)
}

func (a *API) me(w http.ResponseWriter, r *http.Request) error {
	body, err := a.ops.Me(r.Context(), httpx.PrincipalFrom(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"data": body})
	return nil
}

// limitFailure charges a failed authentication to the client's IP, so token guessing is
// throttled, and turns the failure into a 429 once that budget is spent (a 503 when the
// store failed and the policy is fail-closed).
func (a *API) limitFailure(r *http.Request, h http.Header, failure error) error {
	if a.cfg.Limiter == nil {
		return failure
	}
	d, err := a.cfg.Limiter.TakeIP(r.Context(), ratelimit.BucketAuthFail, ratelimit.ClientIP(r, a.cfg.TrustedProxies))
	if err != nil {
		return failure
	}
	d.SetHeaders(h)
	if err := workspace.LimitError(d); err != nil {
		return err
	}
	return failure
}
