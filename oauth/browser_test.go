package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agencyos/workspaced/internal/tooltest"
)

// TestRealBrowser drives headless Chromium through sign-in and consent: the unverified
// warning is visible above the password field and on the consent page, one scope is unticked, and the token carries exactly the ticked
// scopes. It also proves the pages work under their CSP with no script at all.
func TestRealBrowser(t *testing.T) {
	tooltest.Require(t, "headless Chromium")
	path := tooltest.ChromiumPath(t)
	e := newEnv(t)

	// The client's loopback redirect endpoint (RFC 8252 7.3).
	codes := make(chan url.Values, 1)
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callback" {
			select {
			case codes <- r.URL.Query():
			default:
			}
			_, _ = w.Write([]byte("<!doctype html><title>done</title><p id=done>You can close this window.</p>"))
			return
		}
		http.NotFound(w, r)
	}))
	defer client.Close()
	redirect := client.URL + "/callback"
	clientID := e.register("http://127.0.0.1/callback")
	verifier, challenge := pkce()
	authURL := e.srv.URL + e.authURL(clientID, redirect, challenge, "deals:read deals:write people:read enrich:write", "browser-state")

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	if err := chromedp.Do(ctx, chromedp.Navigate(authURL), chromedp.WaitVisible(chromedp.CSS("#unverified"))); err != nil {
		t.Fatalf("browser: the sign-in page shows no unverified warning: %v", err)
	}
	// The warning is read before the password is typed: it sits above the password field.
	above, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`document.getElementById("unverified").getBoundingClientRect().bottom <= document.getElementById("password").getBoundingClientRect().top`))
	if err != nil || !above {
		t.Fatalf("browser: the unverified warning is not above the password field (%v)", err)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS("#login")),
		chromedp.SendKeys(chromedp.CSS("#email"), e.Member.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), e.Member.Password),
		chromedp.Click(chromedp.CSS("#sign-in")),
		chromedp.WaitVisible(chromedp.CSS("#consent")),
	)
	if err != nil {
		t.Fatalf("browser: sign-in: %v", err)
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("browser: text of %s: %v", sel, err)
		}
		return v
	}
	checked := func(id string) bool {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("`+id+`").checked`))
		if err != nil {
			t.Fatalf("browser: %s: %v", id, err)
		}
		return v
	}
	warning, workspace, appName := text("#unverified"), text("#workspace"), text("#app-name")
	enrichChecked := checked("scope-enrich-write")
	if !checked("scope-deals-write") {
		t.Fatal("deals:write should start ticked")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#scope-deals-write"))); err != nil {
		t.Fatalf("browser: untick: %v", err)
	}
	writeChecked := checked("scope-deals-write")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#done"))); err != nil {
		t.Fatalf("browser: approve: %v", err)
	}
	if !strings.Contains(warning, "not verified") || appName != "Test App" || !strings.HasPrefix(workspace, "Acme") {
		t.Fatalf("consent page: warning %q, app %q, workspace %q", warning, appName, workspace)
	}
	if enrichChecked || writeChecked {
		t.Fatalf("enrich:write must start unticked (%v) and deals:write was unticked (%v)", enrichChecked, writeChecked)
	}
	var q url.Values
	select {
	case q = <-codes:
	case <-time.After(5 * time.Second):
		t.Fatal("the client never received the redirect")
	}
	if q.Get("state") != "browser-state" || q.Get("iss") != e.issuer {
		t.Fatalf("redirect: %v", q)
	}
	tk := e.exchange(clientID, q.Get("code"), verifier, redirect)
	if tk.Scope != "deals:read people:read" {
		t.Fatalf("token scope %q, want exactly the ticked deals:read people:read", tk.Scope)
	}
	p, err := e.oauth.Verifier().Authenticate(context.Background(), tk.Access)
	if err != nil || strings.Join(p.Scopes, " ") != "deals:read people:read" {
		t.Fatalf("principal scopes %v %v", p, err)
	}
}
