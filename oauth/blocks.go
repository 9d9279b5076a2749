package oauth

import (
	"context"
	"net/http"
)

// AppPolicyStore is a workspace's say over which apps its members may authorize, set from
// the console (docs/console.md).
type AppPolicyStore interface {
	// OAuthClientRefusal reports whether the workspace blocked the client, and whether it
	// allows only apps its admins registered.
	OAuthClientRefusal(ctx context.Context, workspaceID, clientID string) (blocked, adminAppsOnly bool, err error)
}

// refusedByWorkspace shows the page saying the member's workspace refuses this app, and
// reports whether it did: the app is blocked there, or the workspace allows only its own
// apps. Nothing is redirected to the app: its redirect URI is fine, it is the workspace
// that says no, and the member should learn who to ask.
func (s *Server) refusedByWorkspace(w http.ResponseWriter, r *http.Request, req *authRequest, m *member) bool {
	blocked, adminOnly, err := s.db.OAuthClientRefusal(r.Context(), m.WorkspaceID, req.Client.ID)
	if err != nil {
		s.serverErrorPage(w, r, err)
		return true
	}
	switch {
	case blocked:
		s.render(w, http.StatusForbidden, "error", map[string]string{"Title": "This app is blocked",
			"Message": "Your workspace's admins blocked " + req.Client.Name + ", so it cannot be given access.",
			"Hint":    "Ask a workspace admin if you need it."})
	case adminOnly && req.Client.WorkspaceID != m.WorkspaceID:
		s.render(w, http.StatusForbidden, "error", map[string]string{"Title": "Only your workspace's own apps",
			"Message": "Your workspace allows only apps its admins registered, and " + req.Client.Name + " is not one of them.",
			"Hint":    "Ask a workspace admin to register it."})
	default:
		return false
	}
	return true
}
