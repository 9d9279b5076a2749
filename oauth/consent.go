package oauth

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/agencyos/workspaced/oauth/permissions"
)

// appView is how the sign-in and consent pages present the app asking for access, by one
// rule on both pages.
type appView struct {
	Name, LogoURI string
	// Verified reports whether a workspace's admin registered the app: the pages show a
	// badge (Badge) instead of the unverified warning.
	Verified bool
	// Badge says who verified it: "Verified by your workspace" on the consent page, where
	// the member is known to belong to the app's workspace (memberMayAuthorize); before
	// sign-in nobody is known yet, and an admin of any workspace on the server can
	// register an app, so the sign-in page says only that a workspace admin did.
	Badge string
	// Host is the "From" line: a verified app's home page host; for any other app the host
	// the member will be sent to, never one taken from its own client_uri, which could
	// name anyone's site ("From trusted-bank.example" above a redirect elsewhere).
	Host string
	// RedirectHost is where the member is sent after deciding.
	RedirectHost string
}

// appOf presents the client of an authorization request to a member of its workspace.
func appOf(req *authRequest) appView {
	v := appView{Name: req.Client.Name, LogoURI: req.Client.LogoURI, Verified: req.Client.adminRegistered(),
		Badge: "Verified by your workspace", RedirectHost: redirectHost(req.RedirectURI)}
	if !v.Verified {
		v.Host = v.RedirectHost
	} else if u, err := url.Parse(req.Client.ClientURI); err == nil && req.Client.ClientURI != "" {
		v.Host = u.Host
	}
	return v
}

// consentPage asks the member which of the requested scopes to grant (docs/decisions.md 7):
// one checkbox per scope they can grant, grouped by family, enrich:write unticked by
// default, the ones they cannot grant listed apart, a warning for apps nobody verified,
// and where the access can be revoked later. When the member approved this client before
// (at another redirect URI, or fewer scopes), the scopes they chose then start ticked and
// the others unticked.
func (s *Server) consentPage(w http.ResponseWriter, r *http.Request, req *authRequest, m *member, offered, unavailable []string,
	prior *consent) {
	workspace, err := s.cfg.Store.WorkspaceName(r.Context(), m.WorkspaceID)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return
	}
	data := struct {
		App                             appView
		Workspace, Email, CSRF, Request string
		Offered                         []permissions.Family
		Unavailable                     []permissions.Item
		ConnectedAppsURL                string
	}{App: appOf(req), Workspace: workspace, Email: m.Email, CSRF: s.csrfToken(w, r), Request: req.Raw,
		ConnectedAppsURL: s.cfg.ConnectedAppsURL}
	data.Offered = permissions.Group(s.cfg.DescribeScope, offered, func(sc string) bool {
		if prior != nil {
			return slices.Contains(prior.Scopes, sc)
		}
		return sc != permissions.EnrichScope
	})
	for _, sc := range unavailable {
		_, label := permissions.Label(s.cfg.DescribeScope, sc)
		data.Unavailable = append(data.Unavailable, permissions.Item{Scope: sc, Label: label})
	}
	s.render(w, http.StatusOK, "consent", data, redirectOrigin(req.RedirectURI))
}
