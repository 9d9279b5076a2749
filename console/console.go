// Package console is the workspace console at /console (docs/console.md): server-rendered
// pages, embedded in the binary, where a workspace's admins manage members and where
// invited members choose their password. People sign in through the OAuth provider's own
// sign-in page and session; every page keeps the provider's rules (strict CSP with no
// script but the import page's own, a CSRF token in every form, cross-origin posts
// refused). Every action is an admin.Ops operation, the same the `workspaced admin` CLI
// calls, but the webhooks, fields and import pages', which are the REST API's own
// (webhooks.go, fields.go, imports.go).
package console

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/console/nav"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/oauth/permissions"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// Path is where cmd mounts the console.
const Path = "/console"

// Sessions is the sign-in the console rides on; *oauth.Server implements it.
type Sessions interface {
	// SessionMember returns the active human member signed in on this browser, or nil.
	SessionMember(r *http.Request) (*store.OAuthMember, error)
	// StartSession signs the browser in as userID.
	StartSession(w http.ResponseWriter, r *http.Request, userID, method string) error
	// CSRFToken returns the token this browser's forms carry.
	CSRFToken(w http.ResponseWriter, r *http.Request) string
	// CSRFValid reports whether a parsed form carries this browser's token.
	CSRFValid(r *http.Request) bool
	// SameOrigin refuses requests the browser marks as cross-origin.
	SameOrigin(next http.Handler) http.Handler
	// SetPageHeaders sets the CSP and the other headers of an HTML page.
	SetPageHeaders(w http.ResponseWriter)
	// AllowAttempt charges one attempt to the sign-in budgets of r's client and account.
	AllowAttempt(r *http.Request, account string) (bool, error)
	// AllowResetMail charges a reset-link request to the account's budget, shared by
	// every address, and reports whether the link may be mailed.
	AllowResetMail(r *http.Request, account string) (bool, error)
}

// Workspaces names workspaces; *store.Store implements it.
type Workspaces interface {
	// WorkspaceName returns a workspace's name.
	WorkspaceName(ctx context.Context, id string) (string, error)
}

// Config is what the console needs; cmd builds it.
type Config struct {
	Sessions    Sessions
	Admin       *admin.Ops
	Workspaces  Workspaces
	ServiceName string // SERVICE_NAME
	// DescribeScope words scopes on the account and apps pages as the consent page does;
	// cmd passes workspace.DescribeScope, as to the OAuth provider. nil makes each scope's
	// name its own family.
	DescribeScope permissions.Describe
	// Records serves the webhooks page through the domain's operations (the ones REST and
	// MCP run); cmd builds it (workspace.NewOps).
	Records *workspace.Ops
	// Imports runs the import page's imports (imports.Service, as for REST).
	Imports Importer
	// PublicURL is the service's public URL (PUBLIC_URL), for the MCP URL the
	// "Connect an assistant" page shows; "" uses the request's host.
	PublicURL string
	Logger    *slog.Logger
}

// Server serves the console.
type Server struct {
	cfg   Config
	log   *slog.Logger
	pages map[string]*template.Template
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/console.css
var consoleCSS []byte

// scripts are the console's only scripts, each served from /console/static/ to the pages
// that name it (page.Script); every other page runs none.
//
//go:embed static/import.js
var importJS []byte

// pageNames are the templates, each rendered inside layout.html.
var pageNames = []string{"error", "home", "members", "link", "agents", "forgot", "activity", "apps", "account", "credits", "webhooks", "confirm", "connect", "fields", "import", "import_status"}

// New builds the console.
func New(cfg Config) (*Server, error) {
	if cfg.Sessions == nil || cfg.Admin == nil || cfg.Workspaces == nil || cfg.Records == nil || cfg.Imports == nil {
		return nil, errors.New("console: Config needs Sessions, Admin, Workspaces, Records and Imports")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ServiceName == "" {
		cfg.ServiceName = "workspaced"
	}
	s := &Server{cfg: cfg, log: cfg.Logger, pages: map[string]*template.Template{}}
	funcs := template.FuncMap{"when": when, "channel": channel, "hosts": hosts, "recordPage": recordPage,
		"permissions": func(scopes []string) []permissions.Family { return permissions.Group(cfg.DescribeScope, scopes, nil) }}
	for _, name := range pageNames {
		t, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err == nil {
			t, err = t.Parse(permissions.Template)
		}
		if err == nil {
			t, err = t.Parse(nav.Template)
		}
		if err != nil {
			return nil, err
		}
		s.pages[name] = t
	}
	return s, nil
}

// Handler serves every path under Path, whole (mount it at Path and Path+"/*" without
// stripping the prefix: the pages send people back to the paths they asked for).
//
//	GET  /console                   home
//	GET  /console/members           members (admins)
//	POST /console/members/invite, /update, /suspend, /reactivate, /reset-link, /resend
//	(revoking a key or one's apps, blocking an app, suspending a member and rotating a
//	webhook secret first answer with a confirmation page: confirm.go)
//	GET  /console/agents            agents and keys (admins)
//	POST /console/agents/create, /key, /rotate, /revoke
//	GET  /console/apps              every OAuth client used in the workspace (admins)
//	POST /console/apps/block, /unblock, /setting
//	GET  /console/credits           balance, ledger, writes per credential per day (admins)
//	GET  /console/webhooks          webhook endpoints and their deliveries (admins)
//	POST /console/webhooks/create, /update, /test, /rotate, /retry
//	GET  /console/fields            custom fields by resource (admins)
//	POST /console/fields/create, /update
//	GET  /console/import            import a CSV file, Download CSV per resource (members, by grant)
//	POST /console/import            (multipart) start an import
//	GET  /console/import/{id}[/status, /errors.csv]   its progress (page, JSON), failed rows
//	POST /console/import/cancel     stop it (asked first)
//	GET  /console/export/{resource}.csv   every record the member may read, as CSV
//	GET  /console/connect            connecting an assistant to the MCP server (everyone)
//	GET  /console/account, POST /console/account/revoke, /sign-out-everywhere   the member's own page
//	GET  /console/activity[/{id}]   the audit log, filtered by member, app, key, resource
//	GET  /console/invite, POST /console/invite   an invitation link: choose a password
//	GET  /console/reset, POST /console/reset     a reset link: choose a new password
//	GET  /console/forgot, POST /console/forgot   "Forgot password?"
//	GET  /console/static/console.css, /console/static/import.js
func (s *Server) Handler() http.Handler {
	root := chi.NewRouter()
	root.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.errorPage(w, r, nil, http.StatusNotFound, "Not found", "There is no such page in the console.")
	})
	root.Route(Path, func(r chi.Router) {
		forms := r.With(s.cfg.Sessions.SameOrigin)
		r.Get("/", s.home)
		r.Get("/members", s.admin(s.members))
		forms.Post("/members/invite", s.adminForm(s.membersInvite))
		forms.Post("/members/update", s.adminForm(s.membersUpdate))
		forms.Post("/members/suspend", s.adminForm(s.confirmFirst(confirmSuspend, s.membersStatus("suspended"))))
		forms.Post("/members/reactivate", s.adminForm(s.membersStatus("active")))
		r.Get("/agents", s.admin(s.agents))
		forms.Post("/agents/create", s.adminForm(s.agentsCreate))
		forms.Post("/agents/key", s.adminForm(s.agentsKey))
		forms.Post("/agents/rotate", s.adminForm(s.agentsRotate))
		forms.Post("/agents/revoke", s.adminForm(s.confirmFirst(confirmRevokeKey, s.agentsRevoke)))
		forms.Post("/members/reset-link", s.adminForm(s.membersResetLink))
		forms.Post("/members/resend", s.adminForm(s.confirmFirst(confirmResend, s.membersResend)))
		r.Get("/apps", s.admin(s.apps))
		forms.Post("/apps/block", s.adminForm(s.confirmFirst(confirmBlockApp, s.appsBlock)))
		forms.Post("/apps/unblock", s.adminForm(s.appsUnblock))
		forms.Post("/apps/setting", s.adminForm(s.appsSetting))
		r.Get("/credits", s.admin(s.credits))
		r.Get("/webhooks", s.admin(s.webhooks))
		forms.Post("/webhooks/create", s.adminForm(s.webhooksCreate))
		forms.Post("/webhooks/update", s.adminForm(s.webhooksUpdate))
		forms.Post("/webhooks/test", s.adminForm(s.webhookAction(workspace.LookupAction(endpointsResource, workspace.ActionTest),
			"Ping queued: its delivery is listed under the endpoint.")))
		forms.Post("/webhooks/rotate", s.adminForm(s.confirmFirst(confirmRotate, s.webhookAction(workspace.LookupAction(endpointsResource, workspace.ActionRotateSecret),
			"Secret rotated: for 24 hours deliveries are signed with the new and the old secret, then with the new one only. "+secretNotice))))
		forms.Post("/webhooks/retry", s.adminForm(s.webhookAction(workspace.LookupAction(deliveriesResource, workspace.ActionRetry), "Delivery queued again.")))
		r.Get("/fields", s.admin(s.fields))
		forms.Post("/fields/create", s.adminForm(s.fieldsCreate))
		forms.Post("/fields/update", s.adminForm(s.fieldsUpdate))
		r.Get("/connect", s.signedIn(s.connect))
		r.Get("/account", s.account)
		forms.Post("/account/revoke", s.form(s.signedIn(s.confirmFirst(confirmRevokeApps, s.accountRevoke))))
		forms.Post("/account/sign-out-everywhere", s.form(s.accountSignOut))
		r.Get("/activity", s.admin(s.activity))
		r.Get("/activity/{id}", s.admin(s.activityRecord))
		r.Get("/invite", s.linkGet(admin.PurposeInvite))
		forms.Post("/invite", s.linkPost(admin.PurposeInvite))
		r.Get("/reset", s.linkGet(admin.PurposeReset))
		forms.Post("/reset", s.linkPost(admin.PurposeReset))
		r.Get("/forgot", s.forgotGet)
		forms.Post("/forgot", s.form(s.forgotPost))
		r.Get("/import", s.signedIn(s.importGet))
		forms.Post("/import", s.importPost)
		r.Get("/import/{id}", s.signedIn(s.importShow))
		r.Get("/import/{id}/status", s.signedIn(s.importJSON))
		r.Get("/import/{id}/errors.csv", s.signedIn(s.importErrors))
		forms.Post("/import/cancel", s.form(s.signedIn(s.confirmFirst(confirmCancelImport, s.importCancel))))
		r.Get("/export/{resource}.csv", s.signedIn(s.exportCSV))
		r.Get("/static/console.css", static("text/css; charset=utf-8", consoleCSS))
		r.Get("/static/import.js", static("text/javascript; charset=utf-8", importJS))
	})
	return root
}

// static serves an embedded file.
func static(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(body)
	}
}

// page is what every page's layout reads.
type page struct {
	Service   string
	Title     string
	Nav       string          // the current section (a nav.Link's Section), for aria-current
	Me        *auth.Principal // the signed-in member, nil on a page for no one
	Workspace string
	CSRF      string
	Notice    string
	Error     string
	// Script names the page's script under /console/static/ ("" for none): its CSP then
	// allows scripts and fetches from this origin only (scriptCSP).
	Script string
	// Refresh reloads the page every 2 seconds in a browser that runs no script.
	Refresh bool
	Data    any
}

// Bar is the page's header: the navigation for its member (package nav), or the brand
// alone on a page for no one.
func (p page) Bar() nav.Bar {
	if p.Me == nil {
		return nav.Bar{Service: p.Service}
	}
	return nav.For(p.Service, p.CSRF, p.Nav, p.Me.IsAdmin())
}

// scriptCSP is what a page with a Script adds to the provider's policy: script from this
// origin only (no inline script, no eval) and fetches to this origin only.
const scriptCSP = "; script-src 'self'; connect-src 'self'"

// render writes a page with the provider's headers (strict CSP: no script at all, but the
// page's own Script).
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.Service = s.cfg.ServiceName
	if p.CSRF == "" {
		p.CSRF = s.cfg.Sessions.CSRFToken(w, r)
	}
	if p.Me != nil && p.Workspace == "" {
		name, err := s.cfg.Workspaces.WorkspaceName(r.Context(), p.Me.WorkspaceID)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		p.Workspace = name
	}
	var buf bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		s.log.ErrorContext(r.Context(), "console: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	s.cfg.Sessions.SetPageHeaders(w)
	if p.Script != "" {
		w.Header().Set("Content-Security-Policy", w.Header().Get("Content-Security-Policy")+scriptCSP)
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, status int, title, msg string) {
	s.render(w, r, status, "error", page{Title: title, Me: principalOf(me), Error: msg})
}

// serverError logs a failure with the request id and shows a page that says nothing of it.
func (s *Server) serverError(w http.ResponseWriter, r *http.Request, err error) {
	s.log.ErrorContext(r.Context(), "console: page", "request_id", store.RequestID(r.Context()), "err", err)
	s.cfg.Sessions.SetPageHeaders(w)
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte("<!doctype html><title>Something went wrong</title><p>Something failed on our side. Please try again."))
}

// fail shows a apierr.Error's message with its status (4xx), or the server error page.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, err error) {
	e := store.AsError(err)
	if httpx.Status(e) >= 500 {
		s.serverError(w, r, err)
		return
	}
	title := "Not possible"
	if httpx.Status(e) == http.StatusNotFound {
		title = "Not found"
	}
	s.errorPage(w, r, me, httpx.Status(e), title, e.Message)
}

// refused answers a form the operations refused: a 4xx apierr.Error other than not_found
// is shown on the form's own page (again, by page, with its status and message); not_found
// (an id of another workspace, or none) and 5xx get a page of their own.
func (s *Server) refused(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, err error, again func(status int, msg string)) {
	if e := store.AsError(err); httpx.Status(e) < 500 && httpx.Status(e) != http.StatusNotFound {
		again(httpx.Status(e), e.Message)
		return
	}
	s.fail(w, r, me, err)
}

// member returns the signed-in member, or sends the browser to the sign-in page and
// returns nil.
func (s *Server) member(w http.ResponseWriter, r *http.Request) *store.OAuthMember {
	m, err := s.cfg.Sessions.SessionMember(r)
	if err != nil {
		s.serverError(w, r, err)
		return nil
	}
	if m == nil {
		ret := r.URL.Path
		if r.Method != http.MethodGet {
			ret = Path
		}
		http.Redirect(w, r, "/oauth/login?"+url.Values{"return": {ret}}.Encode(), http.StatusSeeOther)
		return nil
	}
	return m
}

// admin wraps a page for admins only: a member gets 403.
func (s *Server) admin(next func(http.ResponseWriter, *http.Request, *store.OAuthMember)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m := s.member(w, r)
		if m == nil {
			return
		}
		if !principalOf(m).IsAdmin() {
			s.errorPage(w, r, m, http.StatusForbidden, "Admins only", "Only the workspace's admins can open this page.")
			return
		}
		next(w, r, m)
	}
}

// adminForm wraps a form's handler for admins only: the CSRF token is checked first.
func (s *Server) adminForm(next func(http.ResponseWriter, *http.Request, *store.OAuthMember)) http.HandlerFunc {
	return s.form(s.admin(next))
}

// form reads a posted form (at most 64 KiB) and refuses it without this browser's CSRF
// token.
func (s *Server) form(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil || !s.cfg.Sessions.CSRFValid(r) {
			s.errorPage(w, r, nil, http.StatusForbidden, "Form expired",
				"This form was not sent from this browser's own page, so it was ignored. Open the page again and retry.")
			return
		}
		next(w, r)
	}
}

// when formats an optional time for a table cell.
func when(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// principalOf is the principal of a signed-in member, for the rules that read one (its
// role, the By of its changes, the channel of its operations), nil for no member.
func principalOf(m *store.OAuthMember) *auth.Principal {
	if m == nil {
		return nil
	}
	return auth.FromIdentity(&m.Identity)
}
