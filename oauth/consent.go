package oauth

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// scopeItem is one line of the consent page.
type scopeItem struct {
	Scope, ID, Label string
	Checked          bool
}

// scopeLabel says in words what a scope allows.
func scopeLabel(scope string) string {
	res, action, _ := strings.Cut(scope, ":")
	name := strings.ReplaceAll(res, "_", " ")
	switch {
	case scope == "enrich:write":
		return "Look up company details (spends workspace credits)"
	case scope == "directory:write":
		return "Change your profile (admins: member profiles and workspace settings)"
	case action == "read":
		return "View " + name
	default:
		return "Create and change " + name
	}
}

// consentPage asks the member which of the requested scopes to grant (docs/decisions.md 7):
// one checkbox per scope they can grant, enrich:write unticked by default, the ones they
// cannot grant listed apart, and a warning for apps nobody verified. When the member
// approved this client before (at another redirect URI, or fewer scopes), the scopes they
// chose then start ticked and the others unticked.
func (s *Server) consentPage(w http.ResponseWriter, r *http.Request, req *authRequest, m *member, offered, unavailable []string,
	prior *consent) {
	workspace, err := s.cfg.Store.WorkspaceName(r.Context(), m.WorkspaceID)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	data := struct {
		App                                        *Client
		ClientHost, RedirectHost, Workspace, Email string
		CSRF, Request                              string
		Offered, Unavailable                       []scopeItem
	}{App: req.Client, RedirectHost: redirectHost(req.RedirectURI), Workspace: workspace, Email: m.Email,
		CSRF: s.csrfToken(w, r), Request: req.Raw}
	// An unverified client names itself: its client_uri could name anyone's site, so
	// "From" is where the member will be sent. A verified app's home page is shown.
	if u, err := url.Parse(req.Client.ClientURI); req.Client.Verified && err == nil && req.Client.ClientURI != "" {
		data.ClientHost = u.Host
	} else if !req.Client.Verified {
		data.ClientHost = data.RedirectHost
	}
	for _, sc := range offered {
		checked := sc != "enrich:write"
		if prior != nil {
			checked = slices.Contains(prior.Scopes, sc)
		}
		data.Offered = append(data.Offered, scopeItem{Scope: sc, ID: strings.ReplaceAll(sc, ":", "-"), Label: scopeLabel(sc),
			Checked: checked})
	}
	for _, sc := range unavailable {
		data.Unavailable = append(data.Unavailable, scopeItem{Scope: sc, Label: scopeLabel(sc)})
	}
	s.render(w, http.StatusOK, "consent", data, redirectOrigin(req.RedirectURI))
}
