package console

import (
	"net/http"
	"strings"

	"github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/store"
)

// membersData is what the members page shows.
type membersData struct {
	Members  []store.MemberRow
	Features []string
	Levels   []string          // the grant levels, lowest (an unset grant's) first
	Roles    []string          // the member roles
	NewRole  string            // the role the invitation form starts at
	Link     *admin.Invitation // a link just made, shown once
	LinkKind string            // "Invitation link" or "Password reset link"
	CanEmail bool
}

func (s *Server) members(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	s.membersPage(w, r, me, http.StatusOK, nil, "", "")
}

func (s *Server) membersPage(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, status int, link *admin.Invitation, notice, msg string) {
	rows, err := s.cfg.Admin.Members(r.Context(), me.WorkspaceID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, status, "members", page{Title: "Members", Nav: "members", Me: principalOf(me), Notice: notice, Error: msg,
		Data: membersData{Members: rows, Features: store.Features, Levels: store.GrantLevels(), Roles: store.Roles(), NewRole: store.RoleMember, Link: link, LinkKind: linkKind(link), CanEmail: s.cfg.Admin.CanEmail()}})
}

// grantsOf reads the form's grant_<feature> selects; features left out are unchanged.
func grantsOf(r *http.Request) map[string]string {
	g := map[string]string{}
	for _, f := range store.Features {
		if v := r.PostFormValue("grant_" + f); v != "" {
			g[f] = v
		}
	}
	return g
}

// formError answers a refused form on the members page (see refused).
func (s *Server) formError(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, err error) {
	s.refused(w, r, me, err, func(status int, msg string) { s.membersPage(w, r, me, status, nil, "", msg) })
}

func (s *Server) membersInvite(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	inv, err := s.cfg.Admin.Invite(r.Context(), admin.Invite{WorkspaceID: me.WorkspaceID, Email: r.PostFormValue("email"),
		Name: r.PostFormValue("name"), Role: r.PostFormValue("role"), Grants: grantsOf(r), By: principalOf(me).By(store.ViaConsole)})
	if err != nil {
		s.formError(w, r, me, err)
		return
	}
	notice := "Invitation made. Copy the link below and send it to them; it is shown only now."
	switch {
	case inv.Resent && inv.Emailed:
		notice = "They were already invited: the invitation was emailed again, with a new link (shown only now)."
	case inv.Resent:
		notice = "They were already invited: here is a new invitation link. Copy it and send it to them; it is shown only now."
	case inv.Emailed:
		notice = "Invitation made and emailed. The link below is shown only now."
	}
	s.membersPage(w, r, me, http.StatusOK, &inv, notice, "")
}

func (s *Server) membersUpdate(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	err := s.cfg.Admin.SetMember(r.Context(), me.WorkspaceID, principalOf(me).By(store.ViaConsole), strings.TrimSpace(r.PostFormValue("user_id")),
		admin.Change{Role: r.PostFormValue("role"), Grants: grantsOf(r)})
	if err != nil {
		s.formError(w, r, me, err)
		return
	}
	s.membersPage(w, r, me, http.StatusOK, nil, "Member updated.", "")
}

// membersStatus suspends or reactivates a member; a suspended member's tokens and
// sessions stop at once.
func (s *Server) membersStatus(status string) func(http.ResponseWriter, *http.Request, *store.OAuthMember) {
	return func(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
		err := s.cfg.Admin.SetMember(r.Context(), me.WorkspaceID, principalOf(me).By(store.ViaConsole), strings.TrimSpace(r.PostFormValue("user_id")),
			admin.Change{Status: status})
		if err != nil {
			s.formError(w, r, me, err)
			return
		}
		notice := "Member suspended: their sessions and tokens no longer work."
		if status == "active" {
			notice = "Member reactivated."
		}
		s.membersPage(w, r, me, http.StatusOK, nil, notice, "")
	}
}

func linkKind(l *admin.Invitation) string {
	if l != nil && strings.Contains(l.Link, "/console/"+admin.PurposeReset+"?") {
		return "Password reset link"
	}
	return "Invitation link"
}

// membersResetLink makes a password-reset link for an active member, shown once.
func (s *Server) membersResetLink(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	link, err := s.cfg.Admin.ResetLink(r.Context(), me.WorkspaceID, strings.TrimSpace(r.PostFormValue("user_id")), principalOf(me).By(store.ViaConsole))
	if err != nil {
		s.formError(w, r, me, err)
		return
	}
	s.membersPage(w, r, me, http.StatusOK, &link, "Reset link made. Copy it and send it to them; it is shown only now and works for an hour.", "")
}

// membersResend sends an invited member who has not joined their invitation again, with a
// new link shown once (the earlier links work until they expire; the first used retires
// the others).
func (s *Server) membersResend(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	inv, err := s.cfg.Admin.ResendInvite(r.Context(), me.WorkspaceID, strings.TrimSpace(r.PostFormValue("user_id")), principalOf(me).By(store.ViaConsole))
	if err != nil {
		s.formError(w, r, me, err)
		return
	}
	notice := "New invitation link made. Copy it and send it to them; it is shown only now."
	if inv.Emailed {
		notice = "Invitation emailed again, with a new link (shown only now)."
	}
	s.membersPage(w, r, me, http.StatusOK, &inv, notice, "")
}
