package console

import (
	"net/http"

	"github.com/agencyos/workspaced/store"
)

// credits shows the balance, the ledger and the writes per credential per day.
func (s *Server) credits(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	c, err := s.cfg.Admin.Credits(r.Context(), me.WorkspaceID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "credits", page{Title: "Credits and usage", Nav: "credits", Me: me, Data: c})
}
