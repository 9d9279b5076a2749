package console

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/store"
)

// activityData is what the audit log shows.
type activityData struct {
	Rows    []store.ActivityRow
	Members []store.MemberRow
	Filter  store.ActivityFilter
	One     bool // a single record's page
}

// channels are activity.via as people read them.
var channels = map[string]string{store.ViaREST: "REST", store.ViaMCP: "MCP", store.ViaConsole: "Console", store.ViaCLI: "CLI"}

func channel(via string) string {
	if c, ok := channels[via]; ok {
		return c
	}
	return via
}

// recordPage is the console page that shows the record an administration record is about
// (store/audit.go's entity types), "" for the API's resources, which have none.
func recordPage(a store.ActivityRow) string {
	switch a.EntityType {
	case store.EntityUsers, store.EntityMemberLinks, store.EntityOAuthConnected:
		return "/console/members#member-" + a.EntityID
	case store.EntityAgents:
		return "/console/agents#agent-" + a.EntityID
	case store.EntityAgentKeys:
		return "/console/agents#key-" + a.EntityID
	case store.EntityOAuthClients:
		var c struct {
			ClientID string `json:"client_id"`
		}
		_ = json.Unmarshal([]byte(a.Changes), &c)
		return "/console/apps#app-" + c.ClientID
	case store.EntityOAuthSettings:
		return "/console/apps"
	case store.EntityCredits:
		return "/console/credits"
	}
	return ""
}

// activity is the audit log, filtered by the query's member, app, key, resource and
// record.
func (s *Server) activity(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	q := r.URL.Query()
	f := store.ActivityFilter{ActorID: strings.TrimSpace(q.Get("member")), ClientID: strings.TrimSpace(q.Get("app")),
		KeyID: strings.TrimSpace(q.Get("key")), EntityType: strings.TrimSpace(q.Get("resource")),
		EntityID: strings.TrimSpace(q.Get("record")), Limit: 200}
	rows, err := s.cfg.Admin.Activity(r.Context(), me.WorkspaceID, f)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	members, err := s.cfg.Admin.Members(r.Context(), me.WorkspaceID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "activity", page{Title: "Audit log", Nav: "activity", Me: me,
		Data: activityData{Rows: rows, Members: members, Filter: f}})
}

// activityRecord is one record's page; another workspace's record is 404.
func (s *Server) activityRecord(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	row, err := s.cfg.Admin.ActivityRecord(r.Context(), me.WorkspaceID, chi.URLParam(r, "id"))
	if err != nil {
		s.fail(w, r, me, err)
		return
	}
	s.render(w, r, http.StatusOK, "activity", page{Title: "Audit record", Nav: "activity", Me: me,
		Data: activityData{Rows: []store.ActivityRow{row}, One: true}})
}
