package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// homeData is what the overview shows besides the sections: an admin's webhooks summary.
type homeData struct {
	Hooks *hooksSummary
}

// hooksSummary counts the workspace's webhook endpoints and lists those failing or
// disabled.
type hooksSummary struct {
	Count   string // "2 endpoints, 1 failing"
	Total   int
	Failing []endpoint
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	m := s.member(w, r)
	if m == nil {
		return
	}
	var d homeData
	if principalOf(m).IsAdmin() {
		var eps []endpoint
		if err := s.list(r.Context(), hookPrincipal(m), endpointsResource, workspace.ListParams{Limit: 200}, &eps); err != nil {
			s.serverError(w, r, err)
			return
		}
		h := &hooksSummary{Total: len(eps)}
		for _, ep := range eps {
			if ep.FailingSince != nil || !ep.Enabled {
				h.Failing = append(h.Failing, ep)
			}
		}
		h.Count = plural(len(eps), "endpoint") + ", " + strconv.Itoa(len(h.Failing)) + " failing"
		d.Hooks = h
	}
	s.render(w, r, http.StatusOK, "home", page{Title: "Overview", Nav: "home", Me: principalOf(m), Data: d})
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// connectData is the "Connect an assistant" page: the MCP URL and the README's snippets
// for it.
type connectData struct {
	URL string
}

// connect shows every member how to connect an assistant to the MCP server.
func (s *Server) connect(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	base := strings.TrimRight(s.cfg.PublicURL, "/")
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	s.render(w, r, http.StatusOK, "connect", page{Title: "Connect an assistant", Nav: "connect", Me: principalOf(me),
		Data: connectData{URL: base + "/mcp"}})
}
