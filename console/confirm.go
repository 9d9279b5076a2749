package console

import (
	"net/http"
	"sort"

	"github.com/agencyos/workspaced/store"
)

// confirmation is the question asked before an action that cannot be undone from the
// page that offered it.
type confirmation struct {
	Title    string // the page's title, a question
	Message  string // what will happen
	Button   string // the confirming button's words
	Back     string // the page the action was offered on (Cancel)
	Nav      string
	Action   string // filled in: the form's path
	Hidden   []field
	Question string // filled in: the Title
}

// field is a form field the confirmation posts again.
type field struct{ Name, Value string }

// confirmFirst answers a form without confirm=yes with a confirmation page: a form that
// posts the same fields and confirm=yes to the same path (no script needed), and a link
// back. Nothing is done until the confirmed form arrives. It runs after the CSRF and the
// role checks, so a refused form is refused before it is confirmed.
func (s *Server) confirmFirst(c confirmation, next func(http.ResponseWriter, *http.Request, *store.OAuthMember)) func(http.ResponseWriter, *http.Request, *store.OAuthMember) {
	return func(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
		if r.PostFormValue("confirm") == "yes" {
			next(w, r, me)
			return
		}
		c.Action = r.URL.Path
		c.Hidden = nil
		for name, values := range r.PostForm {
			if name == "csrf" || name == "confirm" || len(values) == 0 {
				continue
			}
			c.Hidden = append(c.Hidden, field{name, values[0]})
		}
		sort.Slice(c.Hidden, func(i, j int) bool { return c.Hidden[i].Name < c.Hidden[j].Name })
		s.render(w, r, http.StatusOK, "confirm", page{Title: c.Title, Nav: c.Nav, Me: principalOf(me), Data: c})
	}
}

// signedIn wraps a handler for any signed-in member.
func (s *Server) signedIn(next func(http.ResponseWriter, *http.Request, *store.OAuthMember)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if m := s.member(w, r); m != nil {
			next(w, r, m)
		}
	}
}

// The confirmations of the console's irreversible actions.
var (
	confirmRevokeKey = confirmation{Title: "Revoke this key?", Back: "/console/agents", Nav: "agents", Button: "Revoke the key",
		Message: "Whatever uses this key stops working at once; a revoked key cannot be brought back (issue a new one instead)."}
	confirmBlockApp = confirmation{Title: "Block this app?", Back: "/console/apps", Nav: "apps", Button: "Block the app",
		Message: "Its tokens stop working at once for every member, and no member can authorize it until it is unblocked."}
	confirmRevokeApps = confirmation{Title: "Revoke access?", Back: "/console/account", Nav: "account", Button: "Revoke access",
		Message: "The app's tokens stop working at once; to use it again you will have to authorize it again."}
	confirmSuspend = confirmation{Title: "Suspend this member?", Back: "/console/members", Nav: "members", Button: "Suspend the member",
		Message: "Their sessions and tokens stop working at once and they cannot sign in until reactivated."}
	confirmResend = confirmation{Title: "Re-send the invitation?", Back: "/console/members", Nav: "members", Button: "Re-send the invitation",
		Message: "A new invitation link is made, shown to you once and emailed to them when email is configured. " +
			"Their earlier link works until it expires; whichever is used first retires the others."}
	confirmCancelImport = confirmation{Title: "Cancel this import?", Back: "/console/import", Nav: "import", Button: "Cancel the import",
		Message: "The import stops after the rows it is writing now; rows already written stay. To bring in the rest, import the file again."}
	confirmRotate = confirmation{Title: "Rotate the signing secret?", Back: "/console/webhooks", Nav: "webhooks", Button: "Rotate the secret",
		Message: "A new secret is shown once. For 24 hours deliveries are signed with both secrets; after that the old one no longer verifies."}
)
