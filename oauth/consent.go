package oauth

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
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

// scopeItem is one checkbox of the consent page, or one line of what is not available.
type scopeItem struct {
	Scope, ID, Label string
	Checked          bool
}

// scopeFamily is one group of the consent page: the family's name ("CRM"), one sentence
// that sums up what is asked of it ("Read and change deals, people and companies"), and
// its scopes.
type scopeFamily struct {
	Name, ID, Summary string
	Scopes            []scopeItem
}

// enrichScope spends workspace credits, which its line says.
const enrichScope = "enrich:write"

// describe returns a scope's family and the words of its line.
func (s *Server) describe(scope string) (family, label string) {
	if scope == enrichScope {
		return "Company lookups", "Look up company details (spends workspace credits)"
	}
	family, covers := s.cfg.DescribeScope(scope)
	if strings.HasSuffix(scope, ":read") {
		return family, "See " + joinWords(covers)
	}
	return family, "Create and change " + joinWords(covers)
}

// families groups scopes by family, in the order given; checked says which start ticked.
func (s *Server) families(scopes []string, checked func(string) bool) []scopeFamily {
	var out []scopeFamily
	for _, sc := range scopes {
		family, label := s.describe(sc)
		i := slices.IndexFunc(out, func(f scopeFamily) bool { return f.Name == family })
		if i < 0 {
			i = len(out)
			out = append(out, scopeFamily{Name: family, ID: htmlID(family)})
		}
		out[i].Scopes = append(out[i].Scopes, scopeItem{Scope: sc, ID: htmlID(sc), Label: label, Checked: checked(sc)})
	}
	for i := range out {
		out[i].Summary = summary(out[i].Scopes)
	}
	return out
}

// summary sums up a family's scopes in one sentence: the resources it may read and
// change, then those it may only read, then those it may only change. Company lookups
// need none: their one line says it all.
func summary(items []scopeItem) string {
	if len(items) == 1 && items[0].Scope == enrichScope {
		return ""
	}
	var names []string
	actions := map[string][]string{}
	for _, it := range items {
		name, action, _ := strings.Cut(it.Scope, ":")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		actions[name] = append(actions[name], action)
	}
	var both, read, change []string
	for _, n := range names {
		words := strings.ReplaceAll(n, "_", " ")
		switch a := actions[n]; {
		case slices.Contains(a, "read") && slices.Contains(a, "write"):
			both = append(both, words)
		case slices.Contains(a, "read"):
			read = append(read, words)
		default:
			change = append(change, words)
		}
	}
	var parts []string
	for _, p := range []struct {
		verb  string
		names []string
	}{{"read and change", both}, {"read", read}, {"change", change}} {
		if len(p.names) > 0 {
			parts = append(parts, p.verb+" "+joinWords(p.names))
		}
	}
	out := strings.Join(parts, "; ")
	return strings.ToUpper(out[:1]) + out[1:]
}

// joinWords joins words as a sentence lists them: "a", "a and b", "a, b and c".
func joinWords(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// htmlID turns a scope or family name into an element id: "deals:write" -> "deals-write",
// "Company lookups" -> "company-lookups".
func htmlID(s string) string {
	return strings.NewReplacer(":", "-", " ", "-").Replace(strings.ToLower(s))
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
		Offered                         []scopeFamily
		Unavailable                     []scopeItem
		ConnectedAppsURL                string
	}{App: appOf(req), Workspace: workspace, Email: m.Email, CSRF: s.csrfToken(w, r), Request: req.Raw,
		ConnectedAppsURL: s.cfg.ConnectedAppsURL}
	data.Offered = s.families(offered, func(sc string) bool {
		if prior != nil {
			return slices.Contains(prior.Scopes, sc)
		}
		return sc != enrichScope
	})
	for _, sc := range unavailable {
		_, label := s.describe(sc)
		data.Unavailable = append(data.Unavailable, scopeItem{Scope: sc, Label: label})
	}
	s.render(w, http.StatusOK, "consent", data, redirectOrigin(req.RedirectURI))
}
