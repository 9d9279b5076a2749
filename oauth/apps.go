package oauth

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/console/nav"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/oauth/permissions"
	"github.com/agencyos/workspaced/store"
)

// NewApp is an app a workspace admin registers (docs/contract.md section 4.3 rule 9).
type NewApp struct {
	WorkspaceID  string
	Name         string
	RedirectURIs []string
	Confidential bool   // a secret is issued, shown once
	LogoURI      string // https, optional
	ClientURI    string // https, optional
	// By is who registers it, recorded in the audit log with the app (the signed-in admin
	// through their session, or the CLI's operator).
	By store.By
}

// CreatedApp is a registered app; ClientSecret is shown once and never stored.
type CreatedApp struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	Name         string `json:"-"`
}

// CreateApp registers a verified app owned by a workspace, with a svcapp_ client id and,
// for a confidential app, a svc_sk_ secret of which only the hash is kept. It returns a
// apierr.Error with status 400 (code invalid_client_metadata or invalid_redirect_uri) for
// bad input, and not_found when the workspace does not exist.
func CreateApp(ctx context.Context, st Storage, app NewApp, now time.Time) (CreatedApp, error) {
	bad := func(e *Error) error {
		return &apierr.Error{Code: apierr.Code(e.Code), Message: e.Description}
	}
	ok, e := appRules.check(clientMetadata{Name: &app.Name, RedirectURIs: app.RedirectURIs, LogoURI: app.LogoURI,
		ClientURI: app.ClientURI})
	if e != nil {
		return CreatedApp{}, bad(e)
	}
	if _, err := st.WorkspaceName(ctx, app.WorkspaceID); err != nil {
		return CreatedApp{}, err
	}
	id, _ := store.NewSecret("")
	c := &Client{ID: PrefixAppClient + id[:24], WorkspaceID: app.WorkspaceID, Name: ok.Name, LogoURI: ok.LogoURI,
		ClientURI: ok.ClientURI, RedirectURIs: ok.RedirectURIs, Verified: true, CreatedAt: now}
	out := CreatedApp{ClientID: c.ID, Name: ok.Name}
	if app.Confidential {
		out.ClientSecret, c.SecretHash = store.NewSecret(store.PrefixClientSecret)
	}
	return out, st.InsertOAuthClient(ctx, (*store.OAuthClient)(c), app.By)
}

// adminMember returns the signed-in admin, or writes the page that explains why not.
func (s *Server) adminMember(w http.ResponseWriter, r *http.Request) *member {
	m, err := s.signedIn(r)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return nil
	}
	if m == nil {
		http.Redirect(w, r, "/oauth/login?return=/oauth/admin/apps", http.StatusSeeOther)
		return nil
	}
	if !principalOf(m).IsAdmin() {
		s.errorPage(w, http.StatusForbidden, "Admins only", "Only workspace admins manage the workspace's apps.", "")
		return nil
	}
	return m
}

// appForm is a refused registration's typed fields, shown again to fix.
type appForm struct {
	Name, RedirectURIs, LogoURI, ClientURI string
	Confidential                           bool
}

func (s *Server) adminPage(w http.ResponseWriter, r *http.Request, m *member, status int, created *CreatedApp, msg string) {
	s.adminPageForm(w, r, m, status, created, msg, appForm{})
}

func (s *Server) adminPageForm(w http.ResponseWriter, r *http.Request, m *member, status int, created *CreatedApp, msg string, form appForm) {
	ctx := r.Context()
	workspace, err := s.cfg.Store.WorkspaceName(ctx, m.WorkspaceID)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	rows, err := s.db.WorkspaceOAuthClients(ctx, m.WorkspaceID)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	apps := make([]*Client, len(rows))
	for i, c := range rows {
		apps[i] = (*Client)(c)
	}
	csrf := s.csrfToken(w, r)
	s.render(w, status, "admin_apps", map[string]any{"Workspace": workspace, "Apps": apps, "CSRF": csrf,
		"Created": created, "Error": msg, "Form": form, "Bar": nav.For(s.cfg.ServiceName, csrf, "apps", true)})
}

func (s *Server) adminApps(w http.ResponseWriter, r *http.Request) {
	if m := s.adminMember(w, r); m != nil {
		s.adminPage(w, r, m, http.StatusOK, nil, "")
	}
}

// adminForm checks the form's CSRF token and returns the signed-in admin.
func (s *Server) adminForm(w http.ResponseWriter, r *http.Request) *member {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil || !s.csrfValid(r) {
		s.errorPage(w, http.StatusForbidden, "Form expired", "This form was not sent from this browser's own page, so it was ignored.", "")
		return nil
	}
	return s.adminMember(w, r)
}

func (s *Server) adminAppsCreate(w http.ResponseWriter, r *http.Request) {
	m := s.adminForm(w, r)
	if m == nil {
		return
	}
	created, err := CreateApp(r.Context(), s.cfg.Store, NewApp{WorkspaceID: m.WorkspaceID, Name: r.PostFormValue("name"),
		RedirectURIs: strings.Fields(r.PostFormValue("redirect_uris")), Confidential: r.PostFormValue("confidential") != "",
		LogoURI: r.PostFormValue("logo_uri"), ClientURI: r.PostFormValue("client_uri"), By: principalOf(m).By(store.ViaConsole)}, s.now())
	if err != nil {
		if e := store.AsError(err); httpx.Status(e) < 500 {
			s.adminPageForm(w, r, m, http.StatusBadRequest, nil, e.Message, appForm{Name: r.PostFormValue("name"),
				RedirectURIs: r.PostFormValue("redirect_uris"), LogoURI: r.PostFormValue("logo_uri"),
				ClientURI: r.PostFormValue("client_uri"), Confidential: r.PostFormValue("confidential") != ""})
			return
		}
		s.serverErrorPage(w, r, err)
		return
	}
	s.adminPage(w, r, m, http.StatusOK, &created, "")
}

// adminAppsRotate replaces a confidential app's secret; the old one stops working at once.
func (s *Server) adminAppsRotate(w http.ResponseWriter, r *http.Request) {
	m := s.adminForm(w, r)
	if m == nil {
		return
	}
	secret, hash := store.NewSecret(store.PrefixClientSecret)
	name, err := s.db.RotateOAuthClientSecret(r.Context(), r.PostFormValue("client_id"), m.WorkspaceID, hash)
	if err != nil {
		s.adminPage(w, r, m, http.StatusBadRequest, nil, "No such confidential app in this workspace.")
		return
	}
	s.adminPage(w, r, m, http.StatusOK, &CreatedApp{ClientID: r.PostFormValue("client_id"), ClientSecret: secret, Name: name}, "")
}

// adminAppsDisable disables an app: its tokens stop working at once and it cannot start
// new authorizations.
func (s *Server) adminAppsDisable(w http.ResponseWriter, r *http.Request) {
	m := s.adminForm(w, r)
	if m == nil {
		return
	}
	id := r.PostFormValue("client_id")
	if !storable(id) {
		s.adminPage(w, r, m, http.StatusBadRequest, nil, "No such app in this workspace.")
		return
	}
	found, err := s.db.DisableOAuthClient(r.Context(), id, m.WorkspaceID, s.now())
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	if !found {
		s.adminPage(w, r, m, http.StatusBadRequest, nil, "No such app in this workspace.")
		return
	}
	s.notify(r.Context(), "oauth_client:"+id)
	s.adminPage(w, r, m, http.StatusOK, nil, "")
}

// connectedApp is one line of the Connected apps page; its permissions are grouped and
// worded as on the consent page (package permissions).
type connectedApp struct {
	ClientID, Name       string
	Verified             bool
	Permissions          []permissions.Family
	Authorised, LastUsed string
}

// connectedApps lists the apps the member has authorised and not revoked.
func (s *Server) connectedApps(w http.ResponseWriter, r *http.Request) {
	m, err := s.signedIn(r)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	if m == nil {
		http.Redirect(w, r, "/oauth/login?return=/oauth/apps", http.StatusFound)
		return
	}
	s.appsPage(w, r, m, "")
}

func (s *Server) appsPage(w http.ResponseWriter, r *http.Request, m *member, notice string) {
	ctx := r.Context()
	workspace, err := s.cfg.Store.WorkspaceName(ctx, m.WorkspaceID)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	rows, err := s.db.OAuthConnections(ctx, m.UserID)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	apps := make([]connectedApp, len(rows))
	for i, c := range rows {
		apps[i] = connectedApp{ClientID: c.ClientID, Name: c.Name, Verified: c.Verified,
			Permissions: permissions.Group(s.cfg.DescribeScope, c.Scopes, nil),
			Authorised:  c.Authorised.UTC().Format("2006-01-02 15:04 UTC"), LastUsed: "never"}
		if c.LastUsed != nil {
			apps[i].LastUsed = c.LastUsed.UTC().Format("2006-01-02 15:04 UTC")
		}
	}
	s.render(w, http.StatusOK, "apps", map[string]any{"Email": m.Email, "Workspace": workspace, "IsAdmin": principalOf(m).IsAdmin(),
		"Apps": apps, "CSRF": s.csrfToken(w, r), "Notice": notice})
}

// connectedAppsRevoke revokes every token family the member gave an app, and forgets the
// consent, so the app must ask again.
func (s *Server) connectedAppsRevoke(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil || !s.csrfValid(r) {
		s.errorPage(w, http.StatusForbidden, "Form expired", "This form was not sent from this browser's own page, so it was ignored.", "")
		return
	}
	m, err := s.signedIn(r)
	if err != nil || m == nil {
		http.Redirect(w, r, "/oauth/login?return=/oauth/apps", http.StatusSeeOther)
		return
	}
	id := r.PostFormValue("client_id")
	if err := s.RevokeApp(r.Context(), m.UserID, id); err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	s.appsPage(w, r, m, "Access revoked. The app's tokens no longer work.")
}

// RevokeApp revokes every token family userID granted clientID and forgets the consent.
func (s *Server) RevokeApp(ctx context.Context, userID, clientID string) error {
	if !storable(clientID) {
		return nil // no client has such an id, so there is nothing to revoke
	}
	err := s.db.RevokeOAuthConnection(ctx, userID, clientID, s.now())
	if err != nil {
		return err
	}
	s.notify(ctx, "oauth_user_client:"+userID)
	return nil
}

// PurgeResult counts what Purge removed.
type PurgeResult = store.OAuthPurge

// Purge deletes dynamically registered clients never used within UnusedClientTTL of their
// registration (docs/decisions.md 7), and expired codes, sessions and tokens.
func (s *Server) Purge(ctx context.Context) (PurgeResult, error) {
	now := s.now()
	return s.db.PurgeOAuth(ctx, now, now.Add(-UnusedClientTTL))
}

// PurgeEvery is how often Purge runs (cmd's loop, in one replica per interval): expired
// rows cost nothing but space, and an unused client's UnusedClientTTL is counted in days.
const PurgeEvery = time.Hour

// PurgeLogged runs Purge and logs what it removed; cmd runs it every PurgeEvery, in one
// replica per interval.
func (s *Server) PurgeLogged(ctx context.Context) error {
	res, err := s.Purge(ctx)
	if err == nil && res != (PurgeResult{}) {
		s.log.Info("oauth: purged", "clients", res.Clients, "codes", res.Codes, "sessions", res.Sessions,
			"families", res.Families, "access_tokens", res.AccessTokens)
	}
	return err
}
