package oauth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
)

// osHandlerSchemes are link schemes operating systems and browsers hand to programs of
// their own (Windows, macOS, iOS, Android, desktop browsers, directory and phone
// handlers): a redirect there starts a system program, not the client (issue 20 item 3).
var osHandlerSchemes = []string{
	"search-ms", "search", "shell", "microsoft-edge", "microsoft-edge-holographic", "mk", "its", "ms-its", "smb",
	"itms-services", "itms-apps", "intent", "chrome", "chrome-extension", "view-source", "ldap", "ldaps", "tel",
	"sms", "callto", "facetime", "x-apple-helpviewer", "res", "jar", "feed", "nfs", "afp", "vnc", "rdp", "ssh",
	"telnet", "git", "steam", "zoommtg", "skype", "calculator", "settings", "onenote", "excel", "market",
}

// TestOperatingSystemSchemesRefused: RFC 8252 section 7.1 (docs/oauth.md, "Redirect
// URIs"): a private-use scheme is reverse-domain or on the documented list of desktop
// clients; every scheme of osHandlerSchemes is refused by registration and in a Client ID
// Metadata Document, and a client stored before with one is never redirected there, by
// Deny or by the error page's link.
func TestOperatingSystemSchemesRefused(t *testing.T) {
	if len(osHandlerSchemes) < 25 {
		t.Fatalf("%d schemes; the audit tried 25", len(osHandlerSchemes))
	}
	docs := map[string]func(string) string{}
	for _, sc := range osHandlerSchemes {
		docs["/"+sc+".json"] = func(self string) string {
			return `{"client_id":"` + self + `","client_name":"Desktop","redirect_uris":["` + sc + `://callback/x"],` +
				`"token_endpoint_auth_method":"none"}`
		}
	}
	e, base := cimdEnv(t, docs, func(c *oauth.Config) { c.RegisterLimiter = oauth.NewMemoryLimiter(1_000_000, time.Hour, nil) })
	_, challenge := pkce()
	for _, sc := range osHandlerSchemes {
		t.Run(sc, func(t *testing.T) {
			for _, uri := range []string{sc + "://callback/x", sc + ":/callback", sc + ":callback"} {
				r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{uri}})
				wantOAuthError(t, r, http.StatusBadRequest, "invalid_redirect_uri")
			}
			r := e.browser().get(e.authURL(base+"/"+sc+".json", sc+"://callback/x", challenge, "deals:read", "s"))
			if r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" || strings.Contains(r.Raw, `href="`+sc+":") {
				t.Fatalf("metadata document with %s: want the error page without a link there, got %d %s", sc, r.Status, r.Raw)
			}
		})
	}
	t.Run("a client stored with one is not sent there", func(t *testing.T) {
		c := &store.OAuthClient{ID: "svcdyn_legacyclientwithshell0", Name: "Legacy", RedirectURIs: []string{"search-ms:query=x"}, Dynamic: true}
		if err := e.store.InsertOAuthClient(context.Background(), c, store.By{}); err != nil {
			t.Fatal(err)
		}
		// An error found before the member acts (a bad scope) and the consent page's Deny
		// both end on the client's redirect URI when it is allowed.
		r := e.browser().get(e.authURL(c.ID, "search-ms:query=x", challenge, "no-such:scope", "s"))
		if r.Header.Get("Location") != "" || strings.Contains(r.Raw, "search-ms:") {
			t.Fatalf("the error answer leads to search-ms: %d %v %s", r.Status, r.Header, r.Raw)
		}
		b := e.browser()
		b.get("/oauth/apps")
		b.login(e.Member)
		r = b.get(e.authURL(c.ID, "search-ms:query=x", challenge, "deals:read", "s"))
		if strings.Contains(r.Raw, "search-ms:") || r.Header.Get("Location") != "" {
			t.Fatalf("the consent page offers search-ms: %d %s", r.Status, r.Raw)
		}
	})
}

// TestDesktopSchemesAccepted: reverse-domain private-use schemes and the documented
// single-word schemes of desktop clients register.
func TestDesktopSchemesAccepted(t *testing.T) {
	e := newEnv(t)
	for _, uri := range []string{"cursor://anysphere.cursor-retrieval/oauth/callback", "vscode://vscode.github-authentication/did-authenticate",
		"vscode-insiders://x/cb", "claude://oauth/callback", "windsurf://codeium.windsurf/cb", "com.example.app:/oauth2redirect"} {
		if r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{uri}}); r.Status != http.StatusCreated {
			t.Errorf("%s: %d %s", uri, r.Status, r.Raw)
		}
	}
}
