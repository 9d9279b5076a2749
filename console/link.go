package console

import (
	"net/http"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
)

// linkData is what the choose-a-password page shows.
type linkData struct {
	Purpose string // invite or reset
	Token   string
	Email   string
}

// linkGet shows the form of a live invitation or reset link. The token stays in the page
// only (no referrer leaves it, and the access log never records query strings).
func (s *Server) linkGet(purpose string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.linkForm(w, r, purpose, r.URL.Query().Get("token"), http.StatusOK, "")
	}
}

// linkForm renders the choose-a-password form of a live link with status and msg, or the
// page saying the link is dead.
func (s *Server) linkForm(w http.ResponseWriter, r *http.Request, purpose, token string, status int, msg string) {
	m, err := s.cfg.Admin.LinkMember(r.Context(), token, purpose)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if m == nil {
		s.errorPage(w, r, nil, http.StatusNotFound, "Link expired",
			"This link was already used or has expired. Ask a workspace admin for a new one.")
		return
	}
	s.render(w, r, status, "link", page{Title: linkTitle(purpose), Error: msg,
		Data: linkData{Purpose: purpose, Token: token, Email: m.Email}})
}

// linkPost sets the password, uses the link up and signs the member in.
func (s *Server) linkPost(purpose string) http.HandlerFunc {
	return s.form(func(w http.ResponseWriter, r *http.Request) {
		token, password := r.PostFormValue("token"), r.PostFormValue("password")
		if password != r.PostFormValue("confirm") {
			s.linkForm(w, r, purpose, token, http.StatusBadRequest, "The two passwords differ.")
			return
		}
		m, err := s.cfg.Admin.UseLink(r.Context(), token, purpose, password)
		if e := store.AsError(err); err != nil && httpx.Status(e) == http.StatusBadRequest {
			s.linkForm(w, r, purpose, token, http.StatusBadRequest, "Password: "+e.Message+".")
			return
		} else if err != nil {
			s.fail(w, r, nil, err)
			return
		}
		if err := s.cfg.Sessions.StartSession(w, r, m.UserID, "link"); err != nil {
			s.serverError(w, r, err)
			return
		}
		http.Redirect(w, r, Path, http.StatusSeeOther)
	})
}

func linkTitle(purpose string) string {
	if purpose == "reset" {
		return "Choose a new password"
	}
	return "Accept your invitation"
}
