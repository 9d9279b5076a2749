package console

import (
	"net/http"
	"strings"
)

// forgotSent is the one answer to "Forgot password?", whether or not the address has an
// account, so the page cannot be used to find out who does.
const forgotSent = "If an account uses this address, a link to choose a new password is on its way. It works once, for an hour."

func (s *Server) forgotGet(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "forgot", page{Title: "Forgot password", Data: s.cfg.Admin.CanEmail()})
}

// forgotPost emails a reset link when the address belongs to an active member. It is
// charged to the sign-in budget of the client's IP address, as a sign-in attempt is (429
// when spent), the same for known and unknown addresses. It is also charged to the
// account's reset-mail budget, which every address shares: beyond it the answer is the
// usual one and nothing is mailed, so many addresses cannot flood one inbox, and the
// answer still says nothing about whether the address has an account.
func (s *Server) forgotPost(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	ok, err := s.cfg.Sessions.AllowAttempt(r, email)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if !ok {
		w.Header().Set("Retry-After", "60")
		s.render(w, r, http.StatusTooManyRequests, "forgot", page{Title: "Forgot password", Data: s.cfg.Admin.CanEmail(),
			Error: "Too many requests from this network or for this address. Wait a few minutes, then try again."})
		return
	}
	mail, err := s.cfg.Sessions.AllowResetMail(r, email)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if mail {
		if err := s.cfg.Admin.RequestReset(r.Context(), email); err != nil {
			s.serverError(w, r, err)
			return
		}
	}
	s.render(w, r, http.StatusOK, "forgot", page{Title: "Forgot password", Data: s.cfg.Admin.CanEmail(), Notice: forgotSent})
}
