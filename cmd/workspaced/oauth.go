package main

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"net/netip"
	"strings"
	"time"

	adminops "github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/console"
	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/wellknown"
	"github.com/agencyos/workspaced/workspace"
)

// newOAuth builds the OAuth provider from the config (docs/decisions.md 7). Dynamic
// registration shares the process's rate limiter (20 an hour per client IP, counted in
// Redis across processes when configured) and its trusted-proxy rule for the client IP.
// revoked is called with each revocation before it is answered (oauth.Config.Revoked).
func (srv *server) newOAuth(ctx context.Context, scopes []string, limiter *ratelimit.Limiter, trusted []netip.Prefix,
	revoked func(string)) (*oauth.Server, error) {
	cfg := oauth.Config{
		Revoked:         revoked,
		RegisterLimiter: registerLimiter{limiter},
		LoginLimiter:    limiter,
		ClientIP:        func(r *http.Request) netip.Addr { return ratelimit.ClientIP(r, trusted) },
		Store:           srv.store,
		Issuer:          srv.cfg.PublicURL,
		APIKey:          srv.apiKey,
		Scopes:          scopes,
		// RFC 8707 resources: the origin (REST and MCP), the REST API, and every MCP path,
		// each of which its RFC 9728 document names.
		Resources:       resources(srv.cfg.PublicURL),
		GrantableScopes: workspace.GrantableScopes,
		DescribeScope:   workspace.DescribeScope,
		// Members revoke the apps they connected on the console's account page.
		ConnectedAppsURL: console.Path + "/account",
		RefreshGrace:     srv.cfg.RefreshGrace,
		ServiceName:      srv.cfg.ServiceName,
		Logger:           srv.log,
		// Client ID Metadata Documents are fetched behind the production SSRF guard.
		ClientMetadata: oauth.NewMetadataDocuments((&enrich.Guard{}).Transport(nil)),
	}
	if srv.cfg.RefreshGrace == 0 {
		cfg.RefreshGrace = time.Nanosecond // REFRESH_GRACE=0: no grace at all
	}
	if srv.cfg.SMTPURL != "" {
		cfg.PasswordResetURL = console.Path + "/forgot" // links can be emailed (docs/console.md)
	}
	if srv.cfg.OIDCIssuer != "" {
		cfg.Upstream = &oauth.Upstream{Issuer: srv.cfg.OIDCIssuer, ClientID: srv.cfg.OIDCClientID,
			ClientSecret: srv.cfg.OIDCClientSecret, Name: srv.cfg.OIDCName}
	}
	return oauth.New(ctx, cfg)
}

// resources lists the RFC 8707 resource values tokens may be bound to.
func resources(publicURL string) []string {
	out := []string{publicURL, publicURL + "/v1"}
	for _, p := range mcp.ResourcePaths() {
		out = append(out, publicURL+p)
	}
	return out
}

// registerLimiter spends the register bucket of the shared limiter.
type registerLimiter struct{ l *ratelimit.Limiter }

func (r registerLimiter) Allow(ctx context.Context, ip netip.Addr) (bool, error) {
	return decided(r.l.TakeIP(ctx, ratelimit.BucketRegister, ip))
}

// errLimitsDown is a refusal the limiter's failure policy made because Redis is down.
var errLimitsDown = errors.New("the rate-limit store is unreachable and RATE_LIMIT_FAIL_OPEN is false")

// decided reads a limiter decision for the OAuth provider's limiters: whether the event
// may go ahead, or an error when the limiter could not decide (TakeIP's own error, or a
// denial made by the failure policy rather than a spent budget), which the provider
// answers 503 rather than 429.
func decided(d ratelimit.Decision, err error) (bool, error) {
	switch {
	case err != nil:
		return false, err
	case !d.Allowed && d.Degraded:
		return false, errLimitsDown
	}
	return d.Allowed, nil
}

// wellKnown serves the discovery documents: RFC 8414, and the others given (the MCP
// server's RFC 9728 documents).
func (srv *server) wellKnown(scopes []string, others ...wellknown.Document) (http.Handler, error) {
	return wellknown.Handler(append([]wellknown.Document{wellknown.NewAuthorizationServer(wellknown.ASConfig{
		Issuer:               srv.cfg.PublicURL,
		APIKey:               srv.apiKey,
		Scopes:               scopes,
		GrantTypes:           oauth.GrantTypes(),
		ServiceDocumentation: srv.cfg.PublicURL + "/v1/openapi.json",
		// newOAuth resolves https client_ids as metadata documents.
		ClientIDMetadataDocuments: true,
	})}, others...)...)
}

// redirectURIs collects repeated --redirect-uri flags.
type redirectURIs []string

func (u *redirectURIs) String() string     { return strings.Join(*u, " ") }
func (u *redirectURIs) Set(s string) error { *u = append(*u, s); return nil }

// createAppCommand is `workspaced admin create-app`: an admin-registered app (docs/contract.md
// section 4.3 rule 9), printing {"client_id", "client_secret"?}; the secret is shown only here.
var createAppCommand = adminCommand{"--workspace W --name N --redirect-uri U [--redirect-uri U2]... [--confidential] [--logo-uri L] [--client-uri C]",
	func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws, name := fs.String("workspace", "", "workspace id"), fs.String("name", "", "app name shown on the consent page")
		logo, home := fs.String("logo-uri", "", "https logo URL"), fs.String("client-uri", "", "https home page")
		confidential := fs.Bool("confidential", false, "issue a client secret (server-side apps)")
		var uris redirectURIs
		fs.Var(&uris, "redirect-uri", "redirect URI, repeatable (up to 10)")
		return func(ctx context.Context, s *store.Store, _ *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			if strings.TrimSpace(*name) == "" {
				return nil, bad("--name is required")
			}
			if len(uris) == 0 {
				return nil, bad("--redirect-uri is required")
			}
			return oauth.CreateApp(ctx, s, oauth.NewApp{WorkspaceID: *ws, Name: *name, RedirectURIs: uris,
				Confidential: *confidential, LogoURI: *logo, ClientURI: *home, By: operator()}, time.Now())
		}
	}}
