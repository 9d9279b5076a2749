package console_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/internal/smtptest"
	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// axeScript is the pinned axe-core (console/testdata/axe, installed by npm ci as .ci/test
// does for every package-lock.json).
var axeScript = filepath.Join("testdata", "axe", "node_modules", "axe-core", "axe.min.js")

// axeRun runs axe-core on the page and returns its serious and critical violations, one
// line each with up to three of the elements at fault.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
	.filter(v => v.impact === "serious" || v.impact === "critical")
	.map(v => v.impact + " " + v.id + ": " + v.help + " at " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", ")))`

// overflowing lists the tables and forms wider than their box (a table inside a
// scrolling .table-wrap too, which the page's own width does not show), and the form
// controls that stick out of their form.
const overflowing = `[...document.querySelectorAll("main table, main form, main form input, main form select, main form textarea")].flatMap(el => {
	const box = (el.matches("table, form") ? el.parentElement : el.closest("form")).getBoundingClientRect();
	const r = el.getBoundingClientRect();
	const over = Math.max(r.right - box.right, box.left - r.left, el.matches("table, form") ? el.scrollWidth - el.clientWidth : 0);
	const id = e => e.getAttribute("id"), form = el.closest("form");
	return r.width > 0 && over > 1 ? [el.tagName.toLowerCase() + (id(el) ? "#" + id(el) : el.getAttribute("name") ? "[name=" + el.getAttribute("name") + "]" : "") +
		(form && form !== el && id(form) ? " in form#" + id(form) : "") + " overflows its box by " + Math.round(over) + " px"] : [];
})`

// inBoxes reports whether a page is held to the overflowing check: the console's own
// pages and the provider's apps pages it links to, the connected apps (/oauth/apps) and
// the registered ones (/oauth/admin/apps); the sign-in and consent pages are the OAuth
// provider's own.
func inBoxes(path string) bool {
	return strings.HasPrefix(path, "/console") && !strings.HasPrefix(path, "/console/invite") &&
		!strings.HasPrefix(path, "/console/forgot") || path == "/oauth/apps" || path == "/oauth/admin/apps"
}

// consolePage is one page the checks visit: a name for its screenshots, the path, the
// element that shows it has loaded, and optionally a button to click on the path first
// (a confirmation page answers a form) or a file to choose in the import form.
type consolePage struct{ name, path, ready, click, upload string }

// TestPagesAccessibleAndNarrow visits every console and sign-in page in Chromium at 1280
// and 390 px wide: axe-core finds no serious or critical violation, nothing scrolls
// sideways at 390 px, and a full-page screenshot of each is written to the test's artifact
// directory (go test -artifacts keeps them under -outputdir).
func TestPagesAccessibleAndNarrow(t *testing.T) {
	tooltest.Require(t, "headless Chromium and axe-core (console/testdata/axe)")
	axe, err := os.ReadFile(axeScript)
	if err != nil {
		t.Fatalf("axe-core is not installed; run: npm ci --prefix console/testdata/axe (%v)", err)
	}
	mailbox := smtptest.Start(t)
	e := newEnv(t, withSMTP(t, mailbox))
	ctx := context.Background()
	inv, err := e.ops.Invite(ctx, inviteOf(e))
	if err != nil {
		t.Fatal(err)
	}
	e.presentable(t, inv.UserID)
	// Records of every channel for the audit log: the console's, the CLI's, MCP's.
	byConsole := store.By{UserID: e.Admin.ID, Credential: "console:0123456789abcdef", Via: store.ViaConsole}
	if _, err := e.ops.CreateAgent(ctx, e.WorkspaceID, "Scout", map[string]string{"crm": "read"}, byConsole); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ops.GrantCredits(ctx, e.WorkspaceID, 25, store.By{Credential: "cli:operator", Via: store.ViaCLI}); err != nil {
		t.Fatal(err)
	}
	clientID := e.registerClient("MCP CLI Proxy")
	admin := e.agent().signIn(e.Admin)
	token := admin.authorize(clientID, "companies:read companies:write")
	e.mcpCall(token, "create_companies", map[string]any{"name": "Audited"})
	if err := e.usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// A webhook endpoint (nothing listens on port 9) with a failed ping delivery.
	e.startDelivery()
	created := admin.form("/console/webhooks", "/console/webhooks/create", url.Values{"url": {"http://127.0.0.1:9/hook"},
		"events": {"deals.*, companies.created"}, "description": {"CRM sync"}})
	hookID := regexp.MustCompile(`id="endpoint-([0-9a-f-]+)"`).FindStringSubmatch(created.Body)
	if hookID == nil {
		t.Fatalf("no endpoint created: %d %.300s", created.Status, created.Body)
	}
	admin.form("/console/webhooks", "/console/webhooks/test", url.Values{"id": {hookID[1]}})
	for deadline := time.Now().Add(15 * time.Second); e.count(`SELECT count(*) FROM webhook_deliveries
		WHERE endpoint_id = $1::text::uuid AND attempts > 0`, hookID[1]) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the ping was not attempted")
		}
	}
	// Custom fields on deals: a select with an archived option, a required text, an archived one.
	admin.form("/console/fields", "/console/fields/create", url.Values{"resource": {"deals"}, "key": {"tier"}, "label": {"Account tier"},
		"type": {"select"}, "description": {"the plan they are on"}, "opt-key-0": {"gold"}, "opt-label-0": {"Gold"},
		"opt-key-1": {"silver"}, "opt-label-1": {"Silver"}, "opt-key-2": {"legacy_bronze"}, "opt-label-2": {"Bronze (old plans)"}})
	admin.form("/console/fields", "/console/fields/create", url.Values{"resource": {"deals"}, "key": {"lead_source"},
		"label": {"Lead source"}, "type": {"text"}, "searchable": {"true"}, "required": {"true"}})
	admin.form("/console/fields", "/console/fields/create", url.Values{"resource": {"deals"}, "key": {"retainer"},
		"label": {"Retainer (monthly)"}, "type": {"money"}})
	legacy := admin.form("/console/fields", "/console/fields/create", url.Values{"resource": {"deals"}, "key": {"old_score"},
		"label": {"Old score"}, "type": {"number"}})
	if id := regexp.MustCompile(`<tr id="field-([0-9a-f-]+)">\n<td data-label="Field">Old score`).FindStringSubmatch(legacy.Body); id != nil {
		admin.form("/console/fields", "/console/fields/update", url.Values{"resource": {"deals"}, "id": {id[1]}, "archived": {"true"}})
	} else {
		t.Fatalf("fields not created: %d %.300s", legacy.Status, legacy.Body)
	}
	// An import of people, completed with a failed row, and the file to preview.
	e.startImports()
	admin.form("/console/fields?resource=people", "/console/fields/create", url.Values{"resource": {"people"}, "key": {"tier"},
		"label": {"Account tier"}, "type": {"text"}})
	importFile := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(importFile, []byte(importCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	imported := strings.TrimPrefix(admin.postImport(map[string]string{"resource": "people", "operation": "create"}, importCSV).Location, "/console/import/")
	if id, _, _ := strings.Cut(imported, "?"); !waitImport(admin, id) {
		t.Fatalf("import %s did not complete", imported)
	}
	rows, err := e.ops.Activity(ctx, e.WorkspaceID, activityAll())
	if err != nil || len(rows) == 0 {
		t.Fatalf("no activity to show: %v", err)
	}
	authorize := func(clientID, scope string) string {
		return "/oauth/authorize?" + url.Values{"client_id": {clientID}, "redirect_uri": {loopbackRedirect},
			"response_type": {"code"}, "code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"},
			"code_challenge_method": {"S256"}, "state": {"s"}, "scope": {scope}}.Encode()
	}
	consent := authorize(e.registerClient("Other Tool"), "deals:read deals:write people:read companies:write tasks:read enrich:write")
	verified, err := oauth.CreateApp(ctx, e.store, oauth.NewApp{WorkspaceID: e.WorkspaceID, Name: "Acme CRM sync",
		RedirectURIs: []string{loopbackRedirect}, ClientURI: "https://acme.example"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	verifiedConsent := authorize(verified.ClientID, "deals:read people:read")

	signedOut := []consolePage{
		{"sign-in", "/console", "#login", "", ""},
		{"sign-in-unverified-app", consent, "#unverified", "", ""},
		{"sign-in-verified-app", verifiedConsent, "#verified", "", ""},
		{"forgot-password", "/console/forgot", "#forgot", "", ""},
		{"invitation", strings.TrimPrefix(inv.Link, e.issuer), "#set-password", "", ""},
	}
	signedIn := []consolePage{
		{"overview", "/console", "#whoami", "", ""},
		{"members", "/console/members", "#members", "", ""},
		{"members-resend-invitation", "/console/members", "#confirm", "#resend-" + inv.UserID, ""},
		{"agents", "/console/agents", "#create-agent", "", ""},
		{"apps", "/console/apps", "#apps", "", ""},
		{"credits", "/console/credits", "#ledger", "", ""},
		{"webhooks", "/console/webhooks", "#create-endpoint", "", ""},
		{"fields", "/console/fields", "#create-field", "", ""},
		{"import", "/console/import", "#mapping", "", importFile},
		{"import-progress", "/console/import/" + imported, "#counts", "", ""},
		{"audit-log", "/console/activity", "#activity", "", ""},
		{"audit-record", "/console/activity/" + rows[0].ID, "#activity", "", ""},
		{"account", "/console/account", "#connected", "", ""},
		{"connect-an-assistant", "/console/connect", "#mcp-url", "", ""},
		{"consent", consent, "#consent", "", ""},
		{"consent-verified-app", verifiedConsent, "#verified", "", ""},
		{"connected-apps", "/oauth/apps", "#connected", "", ""},
		{"registered-apps", "/oauth/admin/apps", "h1", "", ""},
	}
	browser := newBrowser(t)
	check := func(p consolePage) {
		for _, width := range []int64{1280, 390} {
			open := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(width, 900), chromedp.Navigate(e.srv.URL + p.path)}
			if p.click != "" {
				open = append(open, chromedp.WaitVisible(chromedp.CSS(p.click)), chromedp.Click(chromedp.CSS(p.click)))
			}
			if p.upload != "" {
				open = append(open, chromedp.WaitVisible(chromedp.CSS("#import-file")), chromedp.SetUploadFiles(chromedp.CSS("#import-file"), []string{p.upload}))
			}
			run(t, browser, p.name, append(open, chromedp.WaitVisible(chromedp.CSS(p.ready)))...)
			inspect(t, browser, axe, p, width)
		}
	}
	for _, p := range signedOut {
		check(p)
	}
	browserSignIn(t, browser, e.srv.URL, e.Admin)
	for _, p := range signedIn {
		check(p)
	}
	// The check can fail: an image without alternative text is a critical violation.
	bad, err := chromedp.Run(browser, chromedp.Evaluate[[]string](
		`document.body.insertAdjacentHTML("beforeend", "<img src='data:,'>"); `+axeRun, chromedp.EvalAwaitPromise))
	if err != nil || !strings.Contains(strings.Join(bad, "\n"), "critical image-alt") {
		t.Fatalf("axe-core did not report an image without alt: %v %v", bad, err)
	}
	t.Logf("screenshots in %s", t.ArtifactDir())
}

// inspect checks the page the browser shows at width: axe-core finds no serious or
// critical violation, and at 390 px nothing scrolls sideways nor sticks out of its box
// (inBoxes pages); it writes a full-page screenshot to the test's artifact directory.
func inspect(t *testing.T, browser context.Context, axe []byte, p consolePage, width int64) {
	t.Helper()
	if _, err := chromedp.Run(browser, chromedp.Evaluate[bool](string(axe)+";true")); err != nil {
		t.Fatalf("%s: inject axe-core: %v", p.name, err)
	}
	found, err := chromedp.Run(browser, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: axe-core: %v", p.name, err)
	}
	for _, v := range found {
		t.Errorf("%s at %d px: %s", p.name, width, v)
	}
	if width == 390 {
		wide, err := chromedp.Run(browser, chromedp.Evaluate[int](
			`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if wide > 0 {
			t.Errorf("%s scrolls sideways at 390 px: %d px too wide", p.name, wide)
		}
		over, err := chromedp.Run(browser, chromedp.Evaluate[[]string](overflowing))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range over {
			if inBoxes(p.path) {
				t.Errorf("%s at 390 px: %s", p.name, o)
			}
		}
	}
	shot, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.ArtifactDir(), p.name+"-"+itoa(width)+".png")
	if err := os.WriteFile(name, shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// presentable gives the workspace and its three people the fixed, readable names the
// screenshots in docs/console show (Acme Agency, ana@acme.example ...), instead of the
// test's name and the unique addresses the package's other tests need; at the end the
// addresses are freed again, for another run in the same database (-count=2).
func (e *env) presentable(t *testing.T, invited string) {
	t.Helper()
	pool := storetest.Pool(t)
	if _, err := pool.Exec(t.Context(), `UPDATE workspaces SET name = 'Acme Agency' WHERE id = $1`, e.WorkspaceID); err != nil {
		t.Fatal(err)
	}
	people := []struct {
		id, email, name string
		user            *user
	}{
		{e.Admin.ID, "ana@acme.example", "Ana Admin", &e.Admin},
		{e.Member.ID, "mo@acme.example", "Mo Member", &e.Member},
		{invited, "ivy@acme.example", "Ivy Invited", nil},
	}
	var ids []string
	for _, p := range people {
		if _, err := pool.Exec(t.Context(), `UPDATE users SET email = $2, display_name = $3 WHERE id = $1`, p.id, p.email, p.name); err != nil {
			t.Fatalf("%s: %v", p.email, err)
		}
		if p.user != nil {
			p.user.Email = p.email
		}
		ids = append(ids, p.id)
	}
	t.Cleanup(func() {
		if _, err := pool.Exec(context.Background(), `UPDATE users SET email = id || '@freed.example.test' WHERE id = ANY($1::uuid[])`, ids); err != nil {
			t.Error(err)
		}
	})
}

func inviteOf(e *env) admin.Invite {
	return admin.Invite{WorkspaceID: e.WorkspaceID, Email: uniqueEmail("invited.person"), Name: "Invited Person"}
}

func activityAll() store.ActivityFilter { return store.ActivityFilter{} }
