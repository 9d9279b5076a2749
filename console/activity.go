package console

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/store"
)

// activityData is what the audit log shows.
type activityData struct {
	Rows    []activityRow
	Members []store.MemberRow
	Filter  store.ActivityFilter
	One     bool // a single record's page
}

// activityRow is a record with its actor and credential named (names.go).
type activityRow struct {
	store.ActivityRow
	Who  string
	Cred credential
}

// named words rows' actors and credentials.
func (s *Server) named(ctx context.Context, workspaceID string, rows []store.ActivityRow) ([]activityRow, error) {
	n, err := s.names(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]activityRow, len(rows))
	for i, r := range rows {
		out[i] = activityRow{ActivityRow: r, Who: n.who(r.ActorID, r.ActorEmail), Cred: n.credential(r.Credential)}
	}
	return out, nil
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
	named, err := s.named(r.Context(), me.WorkspaceID, rows)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "activity", page{Title: "Audit log", Nav: "activity", Me: principalOf(me),
		Data: activityData{Rows: named, Members: members, Filter: f}})
}

// activityRecord is one record's page; another workspace's record is 404.
func (s *Server) activityRecord(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	row, err := s.cfg.Admin.ActivityRecord(r.Context(), me.WorkspaceID, chi.URLParam(r, "id"))
	if err != nil {
		s.fail(w, r, me, err)
		return
	}
	named, err := s.named(r.Context(), me.WorkspaceID, []store.ActivityRow{row})
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "activity", page{Title: "Audit record", Nav: "activity", Me: principalOf(me),
		Data: activityData{Rows: named, One: true}})
}
