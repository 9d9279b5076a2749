package console

import (
	"net/http"

	"github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/store"
)

// creditsData is what the credits page shows: usage with each credential named.
type creditsData struct {
	admin.Credits
	Usage []usageRow
}

// usageRow is a day of one credential's requests, the credential named (names.go).
type usageRow struct {
	store.CredentialDay
	Cred credential
}

// credits shows the balance, the ledger and the writes per credential per day.
func (s *Server) credits(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	c, err := s.cfg.Admin.Credits(r.Context(), me.WorkspaceID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	n, err := s.names(r.Context(), me.WorkspaceID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	d := creditsData{Credits: c, Usage: make([]usageRow, len(c.Usage))}
	for i, u := range c.Usage {
		d.Usage[i] = usageRow{CredentialDay: u, Cred: n.credential(u.Credential)}
	}
	s.render(w, r, http.StatusOK, "credits", page{Title: "Credits and usage", Nav: "credits", Me: principalOf(me), Data: d})
}
