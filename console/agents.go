package console

import (
	"net/http"
	"strings"

	"github.com/agencyos/workspaced/store"
)

// agentsData is what the agents page shows; NewKey is a key just issued, shown once.
type agentsData struct {
	Agents   []store.AgentRow
	Features []string
	Levels   []string // the grant levels, lowest (the new agent's) first
	NewKey   *store.AgentKey
}

func (s *Server) agents(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	s.agentsPage(w, r, me, http.StatusOK, nil, "", "")
}

func (s *Server) agentsPage(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, status int, key *store.AgentKey, notice, msg string) {
	rows, err := s.cfg.Admin.Agents(r.Context(), me.WorkspaceID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, status, "agents", page{Title: "Agents and keys", Nav: "agents", Me: principalOf(me), Notice: notice, Error: msg,
		Data: agentsData{Agents: rows, Features: store.Features, Levels: store.GrantLevels(), NewKey: key}})
}

// agentsAnswer shows the agents page after an action: a new key once, or why it was
// refused (see refused).
func (s *Server) agentsAnswer(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, key *store.AgentKey, notice string, err error) {
	if err == nil {
		s.agentsPage(w, r, me, http.StatusOK, key, notice, "")
		return
	}
	s.refused(w, r, me, err, func(status int, msg string) { s.agentsPage(w, r, me, status, nil, "", msg) })
}

const keyNotice = "Copy the key now: it is shown only once."

func (s *Server) agentsCreate(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	key, err := s.cfg.Admin.CreateAgent(r.Context(), me.WorkspaceID, r.PostFormValue("name"), grantsOf(r), principalOf(me).By(store.ViaConsole))
	s.agentsAnswer(w, r, me, &key, "Agent created. "+keyNotice, err)
}

func (s *Server) agentsKey(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	key, err := s.cfg.Admin.CreateKey(r.Context(), me.WorkspaceID, strings.TrimSpace(r.PostFormValue("agent_id")), principalOf(me).By(store.ViaConsole))
	s.agentsAnswer(w, r, me, &key, "Key created. "+keyNotice, err)
}

func (s *Server) agentsRotate(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	key, err := s.cfg.Admin.RotateKey(r.Context(), me.WorkspaceID, strings.TrimSpace(r.PostFormValue("key_id")), principalOf(me).By(store.ViaConsole))
	s.agentsAnswer(w, r, me, &key, "Key rotated: the old key no longer works. "+keyNotice, err)
}

func (s *Server) agentsRevoke(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	err := s.cfg.Admin.RevokeKey(r.Context(), me.WorkspaceID, strings.TrimSpace(r.PostFormValue("key_id")), principalOf(me).By(store.ViaConsole))
	s.agentsAnswer(w, r, me, nil, "Key revoked: it no longer works.", err)
}
