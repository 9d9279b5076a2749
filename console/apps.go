package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agencyos/workspaced/store"
)

// appsData is what the apps page shows.
type appsData struct {
	Apps          []store.AppRow
	AdminAppsOnly bool
}

func (s *Server) apps(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	s.appsPage(w, r, me, http.StatusOK, "")
}

func (s *Server) appsPage(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, status int, notice string) {
	rows, only, err := s.cfg.Admin.Apps(r.Context(), me.WorkspaceID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, status, "apps", page{Title: "Apps", Nav: "apps", Me: principalOf(me), Notice: notice,
		Data: appsData{Apps: rows, AdminAppsOnly: only}})
}

func (s *Server) appsBlock(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	if err := s.cfg.Admin.BlockApp(r.Context(), me.WorkspaceID, r.PostFormValue("client_id"), principalOf(me).By(store.ViaConsole)); err != nil {
		s.fail(w, r, me, err)
		return
	}
	s.appsPage(w, r, me, http.StatusOK, "App blocked: its tokens no longer work and members cannot authorize it.")
}

func (s *Server) appsUnblock(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	if err := s.cfg.Admin.UnblockApp(r.Context(), me.WorkspaceID, r.PostFormValue("client_id"), principalOf(me).By(store.ViaConsole)); err != nil {
		s.fail(w, r, me, err)
		return
	}
	s.appsPage(w, r, me, http.StatusOK, "App unblocked: members may authorize it again.")
}

func (s *Server) appsSetting(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	on := r.PostFormValue("admin_apps_only") == "on"
	if err := s.cfg.Admin.SetAdminAppsOnly(r.Context(), me.WorkspaceID, on, principalOf(me).By(store.ViaConsole)); err != nil {
		s.fail(w, r, me, err)
		return
	}
	s.appsPage(w, r, me, http.StatusOK, "Setting saved.")
}

// hosts returns the hosts of redirect URIs, each once, for the apps page.
func hosts(uris []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range uris {
		p, err := url.Parse(u)
		h := u
		if err == nil && p.Host != "" {
			h = p.Host
		} else if err == nil {
			h = p.Scheme + ":"
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// account is the member's own page: profile and connected apps.
func (s *Server) account(w http.ResponseWriter, r *http.Request) {
	if me := s.member(w, r); me != nil {
		s.accountPage(w, r, me, "")
	}
}

func (s *Server) accountPage(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, notice string) {
	conns, err := s.cfg.Admin.Connections(r.Context(), me.UserID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "account", page{Title: "Your account", Nav: "account", Me: principalOf(me), Notice: notice,
		Data: conns})
}

// accountSignOut is "Sign out everywhere": every session of the member ends, this one
// included, and every token they gave apps stops; the browser goes to the sign-in page.
func (s *Server) accountSignOut(w http.ResponseWriter, r *http.Request) {
	me := s.member(w, r)
	if me == nil {
		return
	}
	if err := s.cfg.Admin.SignOutEverywhere(r.Context(), me.UserID, principalOf(me).By(store.ViaConsole)); err != nil {
		s.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, "/oauth/login?"+url.Values{"return": {Path}}.Encode(), http.StatusSeeOther)
}

// accountRevoke revokes one connected app (client_id) or all of them (all=1).
func (s *Server) accountRevoke(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	var ids []string // nil: all
	if r.PostFormValue("all") == "" {
		ids = []string{strings.TrimSpace(r.PostFormValue("client_id"))}
	}
	if err := s.cfg.Admin.RevokeConnections(r.Context(), me.UserID, ids, principalOf(me).By(store.ViaConsole)); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.accountPage(w, r, me, "Access revoked: those apps' tokens no longer work.")
}
