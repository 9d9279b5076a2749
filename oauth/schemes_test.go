package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
)

// osHandlerSchemes are link schemes operating systems and browsers hand to programs of
// their own (Windows, macOS, iOS, Android, desktop browsers, directory and phone
// handlers): a redirect there starts a system program, not the client.
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

// platformRedirects are private-use schemes with a dot that belong to an operating system
// or desktop (settings panes, file managers, system apps), or that are not a reversed
// domain at all; RFC 8252 section 7.1 lets a client use only a scheme from a domain it
// controls, so each is refused by registration and by an admin's app.
var platformRedirects = []string{
	"x-apple.systempreferences:/com.apple.preference.security",
	"x-apple.systempreferences:com.apple.preference.security?Privacy",
	"com.apple.systempreferences:/x",
	"com.apple.finder:/x",
	"apple.settings:/x",
	"microsoft.windows.camera:/x",
	"com.microsoft.teams:/cb",
	"ms-settings.privacy:/x",
	"windows.immersivecontrolpanel:/x",
	"android.settings:/x",
	"android-app.com.example:/x",
	"com.android.settings:/x",
	"com.google.android.gms:/x",
	"org.gnome.settings:/x",
	"org.gnome.nautilus:/x",
	"gnome-control-center.panel:/x",
	"org.kde.systemsettings:/x",
	"org.kde.dolphin:/x",
	"kde.kcm:/x",
	"org.freedesktop.filemanager1:/x",
	// Not reverse-domain: the first label of a domain name is a top-level domain, letters
	// (or an xn-- IDN label); labels are letters, digits and inner hyphens.
	"x-foo.bar:/cb",
	"1com.example:/cb",
	"com.-example:/cb",
	"com.example-.app:/cb",
	"com+x.example:/cb",
	"c.example:/cb",
}

// TestPlatformSchemesRefused: every URI of platformRedirects is refused by dynamic
// registration and by CreateApp (the admin page's and `workspaced admin create-app`'s),
// while reverse-domain schemes of a client's own domain still register.
func TestPlatformSchemesRefused(t *testing.T) {
	e := newEnv(t, func(c *oauth.Config) { c.RegisterLimiter = oauth.NewMemoryLimiter(1_000_000, time.Hour, nil) })
	for _, uri := range platformRedirects {
		t.Run(uri, func(t *testing.T) {
			r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{uri}})
			wantOAuthError(t, r, http.StatusBadRequest, "invalid_redirect_uri")
			_, err := oauthCreateApp(e, false, uri)
			var se *apierr.Error
			if !errors.As(err, &se) || se.Code != apierr.CodeInvalidRedirectURI {
				t.Fatalf("create-app: %v", err)
			}
		})
	}
	for _, uri := range []string{"com.example.app:/oauth2redirect", "io.github.someone.tool:/cb", "xn--bcher-kva.example.app:/cb",
		"com.applesauce.app:/cb", "org.gnomes-r-us.app:/cb", "dev.msft-fan.app:/cb"} {
		if r := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{uri}}); r.Status != http.StatusCreated {
			t.Errorf("%s: %d %s", uri, r.Status, r.Raw)
		}
		if _, err := oauthCreateApp(e, false, uri); err != nil {
			t.Errorf("create-app %s: %v", uri, err)
		}
	}
}
