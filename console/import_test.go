package console_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agencyos/workspaced/internal/tooltest"
)

// importCSV is a small file of people: a column named as a field, one named by a custom
// field's label, one named by nothing (left out), and a row without the required name.
const importCSV = "Name,Email,Account tier,Nickname\r\n" +
	"Ada Lovelace,ada@acme.example,gold,Countess\r\n" +
	"Bob Builder,bob@acme.example,silver,\r\n" +
	",nobody@acme.example,,\r\n"

// postImport sends the import form as multipart with the token of /console/import, the
// file last; it does not follow the redirect.
func (a *agent) postImport(parts map[string]string, file string) page {
	a.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if _, ok := parts["csrf"]; !ok {
		_ = mw.WriteField("csrf", csrf(a.t, a.get("/console/import")))
	}
	for k, v := range parts {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "people.csv")
	_, _ = io.WriteString(fw, file)
	_ = mw.Close()
	req, _ := http.NewRequest("POST", a.e.srv.URL+"/console/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return a.do(req)
}

// importState is the console's JSON of an import.
func (a *agent) importState(id string) map[string]any {
	a.t.Helper()
	p := a.get("/console/import/" + id + "/status")
	var imp map[string]any
	if err := json.Unmarshal([]byte(p.Body), &imp); p.Status != 200 || err != nil {
		a.t.Fatalf("status of %s: %d %v %.300s", id, p.Status, err, p.Body)
	}
	return imp
}

// waitImport waits for the import to end and reports whether it completed.
func waitImport(a *agent, id string) bool {
	a.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		switch a.importState(id)["status"] {
		case "completed":
			return true
		case "failed", "cancelled":
			return false
		}
	}
	return false
}

var importLocation = regexp.MustCompile(`^/console/import/([0-9a-f-]{36})\?rows=(\d+)$`)

// TestImportPageWithoutScript: the import page works with no script at all. An admin
// sends a CSV file; its columns are mapped by name (a custom field's label too, an
// unknown column left out) by the same import service REST runs, as the admin with via =
// console; the status page reloads itself until the import ends and then shows counts,
// the failed rows' report and 100%; a queued import is cancelled after a confirmation;
// Download CSV streams the export; an upsert on email updates. The page alone runs a
// script, from this origin only. A member holding the CRM grant imports as themselves;
// one without it is refused and sees nothing of the admin's import.
func TestImportPageWithoutScript(t *testing.T) {
	e := newEnv(t)
	admin := e.agent().signIn(e.Admin)
	admin.form("/console/fields?resource=people", "/console/fields/create", url.Values{"resource": {"people"}, "key": {"tier"},
		"label": {"Account tier"}, "type": {"text"}})

	req, _ := http.NewRequest("GET", e.srv.URL+"/console/import", nil)
	res, err := admin.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); res.StatusCode != 200 || csp !=
		"default-src 'none'; style-src 'self'; img-src https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; script-src 'self'; connect-src 'self'" {
		t.Fatalf("import page: %d, CSP %q", res.StatusCode, csp)
	}
	for _, want := range []string{`<script src="/console/static/import.js" defer></script>`, `"custom_fields.tier"`,
		`"account_tier":"custom_fields.tier"`, `href="/console/export/people.csv"`, `href="/console/import" aria-current="page"`} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("import page lacks %s: %.2000s", want, body)
		}
	}
	if strings.Contains(string(body), "<script>") || strings.Contains(string(body), "onclick") {
		t.Fatal("the page carries inline script")
	}
	if js := admin.get("/console/static/import.js"); js.Status != 200 || !strings.Contains(js.Body, "function matchKey") {
		t.Fatalf("import.js: %d", js.Status)
	}
	// Other pages still run no script.
	req, _ = http.NewRequest("GET", e.srv.URL+"/console/fields", nil)
	if res, err := admin.c.Do(req); err != nil || strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src") {
		t.Fatalf("fields page CSP: %v %q", err, res.Header.Get("Content-Security-Policy"))
	}

	// Without the form's token: refused, nothing stored.
	if p := admin.postImport(map[string]string{"csrf": "forged", "resource": "people", "operation": "create"}, importCSV); p.Status != http.StatusForbidden {
		t.Fatalf("forged token: %d", p.Status)
	}
	// A file whose columns name no field: the page again, 400, nothing stored.
	if p := admin.postImport(map[string]string{"resource": "people", "operation": "create"}, "Foo,Bar\n1,2\n"); p.Status != http.StatusBadRequest ||
		!strings.Contains(p.Body, "no column of the file is mapped") {
		t.Fatalf("unmapped file: %d %.500s", p.Status, p.Body)
	}

	// A queued import (no job runs yet): the page reloads itself; cancelled after asking.
	p := admin.postImport(map[string]string{"resource": "people", "operation": "create"}, importCSV)
	m := importLocation.FindStringSubmatch(p.Location)
	if p.Status != http.StatusSeeOther || m == nil || m[2] != "3" {
		t.Fatalf("import: %d %q %.300s", p.Status, p.Location, p.Body)
	}
	queued := m[1]
	if p := admin.get(p.Location); p.Status != 200 || !strings.Contains(p.Body, `<noscript><meta http-equiv="refresh" content="2"></noscript>`) ||
		!strings.Contains(p.Body, `id="status">queued<`) || !strings.Contains(p.Body, "0 of 3 rows (0%)") {
		t.Fatalf("queued import's page: %d %.2000s", p.Status, p.Body)
	}
	ask := admin.form("/console/import/"+queued, "/console/import/cancel", url.Values{"id": {queued}})
	if ask.Status != 200 || !strings.Contains(ask.Body, `id="confirm"`) || admin.importState(queued)["status"] != "queued" {
		t.Fatalf("cancel without confirming: %d %.500s", ask.Status, ask.Body)
	}
	if p := admin.form("/console/import/"+queued, "/console/import/cancel", url.Values{"id": {queued}, "confirm": {"yes"}}); p.Status != http.StatusSeeOther ||
		admin.importState(queued)["status"] != "cancelled" {
		t.Fatalf("cancel: %d %v", p.Status, admin.importState(queued)["status"])
	}

	// The import runs: the job writes the rows as the admin.
	e.startImports()
	p = admin.postImport(map[string]string{"resource": "people", "operation": "create"}, importCSV)
	m = importLocation.FindStringSubmatch(p.Location)
	if m == nil {
		t.Fatalf("import: %d %q %.300s", p.Status, p.Location, p.Body)
	}
	id := m[1]
	if !waitImport(admin, id) {
		t.Fatalf("import did not complete: %v", admin.importState(id))
	}
	if imp := admin.importState(id); imp["rows_read"] != 3.0 || imp["rows_created"] != 2.0 || imp["rows_failed"] != 1.0 {
		t.Fatalf("counts: %v", imp)
	}
	if n := e.count(`SELECT count(*) FROM people WHERE workspace_id = $1 AND email = 'ada@acme.example' AND name = 'Ada Lovelace'
		AND custom_fields::text LIKE '%gold%'`, e.WorkspaceID); n != 1 {
		t.Fatalf("%d people Ada with tier gold", n)
	}
	if n := e.count(`SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'people' AND action = 'created'
		AND actor_id = $2::text::uuid AND via = 'console'`, e.WorkspaceID, e.Admin.ID); n != 2 {
		t.Fatalf("%d console activity rows for the imported people", n)
	}
	if p := admin.get("/console/import/" + id + "?rows=3"); !strings.Contains(p.Body, `id="status">completed<`) ||
		!strings.Contains(p.Body, "3 of 3 rows (100%)") || strings.Contains(p.Body, `http-equiv="refresh"`) ||
		!strings.Contains(p.Body, `id="first-errors"`) || !strings.Contains(p.Body, `<form method="post" action="/console/import/cancel" id="cancel-form" hidden>`) {
		t.Fatalf("completed import's page: %.3000s", p.Body)
	}
	errs := admin.get("/console/import/" + id + "/errors.csv")
	if errs.Status != 200 || !strings.HasPrefix(errs.Body, "row,error,Name,Email,Account tier,Nickname\n3,") ||
		!strings.Contains(errs.Body, "nobody@acme.example") {
		t.Fatalf("errors.csv: %d %q", errs.Status, errs.Body)
	}
	export := admin.get("/console/export/people.csv")
	if export.Status != 200 || !strings.Contains(export.Body, "ada@acme.example") || !strings.Contains(export.Body, "bob@acme.example") {
		t.Fatalf("export: %d %.500s", export.Status, export.Body)
	}
	if p := admin.get("/console/export/nothing.csv"); p.Status != http.StatusNotFound {
		t.Fatalf("export of an unknown resource: %d", p.Status)
	}

	// An upsert on email updates Ada rather than adding her again.
	p = admin.postImport(map[string]string{"resource": "people", "operation": "upsert", "match": "email"}, "Name,Email\nAda King,ada@acme.example\n")
	if m = importLocation.FindStringSubmatch(p.Location); m == nil || !waitImport(admin, m[1]) {
		t.Fatalf("upsert: %d %q %.300s", p.Status, p.Location, p.Body)
	}
	if p := admin.get("/console/import/" + m[1]); !strings.Contains(p.Body, "updates matched on <code>email</code>") {
		t.Fatalf("upsert's page: %.2000s", p.Body)
	}
	if imp := admin.importState(m[1]); imp["rows_updated"] != 1.0 || imp["rows_created"] != 0.0 ||
		e.count(`SELECT count(*) FROM people WHERE workspace_id = $1 AND email = 'ada@acme.example'`, e.WorkspaceID) != 1 ||
		e.count(`SELECT count(*) FROM people WHERE workspace_id = $1 AND name = 'Ada King'`, e.WorkspaceID) != 1 {
		t.Fatalf("upsert on email: %v", imp)
	}

	// A member holding the CRM grant imports people as themselves.
	member := e.agent().signIn(e.Member)
	p = member.postImport(map[string]string{"resource": "people", "operation": "create"}, "Name,Email\nCara Member,cara@acme.example\n")
	if m = importLocation.FindStringSubmatch(p.Location); m == nil || !waitImport(member, m[1]) {
		t.Fatalf("member's import: %d %q %.300s", p.Status, p.Location, p.Body)
	}
	if n := e.count(`SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'people' AND action = 'created'
		AND actor_id = $2::text::uuid AND via = 'console'`, e.WorkspaceID, e.Member.ID); n != 1 {
		t.Fatalf("%d people created by the member", n)
	}

	// A member who may read the CRM but not write it: people is not offered, importing
	// them is refused with the gate's message, nothing is written; the admin's import is
	// not theirs to see.
	reader := e.agent().signIn(e.addUser(e.WorkspaceID, "member", "active", map[string]string{"crm": "read"}))
	if p := reader.get("/console/import"); p.Status != 200 || strings.Contains(p.Body, `<option value="people"`) {
		t.Fatalf("reader's import page: %d %.1000s", p.Status, p.Body)
	}
	before := e.count(`SELECT count(*) FROM people WHERE workspace_id = $1`, e.WorkspaceID)
	if p := reader.postImport(map[string]string{"resource": "people", "operation": "create"}, importCSV); p.Status != http.StatusForbidden ||
		!strings.Contains(p.Body, "writing people") {
		t.Fatalf("reader importing people: %d %.1000s", p.Status, p.Body)
	}
	if n := e.count(`SELECT count(*) FROM people WHERE workspace_id = $1`, e.WorkspaceID); n != before {
		t.Fatalf("the refused import wrote %d people", n-before)
	}
	for _, path := range []string{"/console/import/" + id, "/console/import/" + id + "/status", "/console/import/" + id + "/errors.csv"} {
		if p := reader.get(path); p.Status != http.StatusNotFound {
			t.Fatalf("reader on %s: %d", path, p.Status)
		}
	}
}

// TestImportPageInBrowser: in Chromium, choosing a file shows its columns and first rows
// beside the fields, matched by name (a custom field by its label, an unknown column left
// out); a column mapped by hand is imported too; after sending, the progress bar follows
// the import to completed without reloading the page, and the rows are in the database.
func TestImportPageInBrowser(t *testing.T) {
	tooltest.Require(t, "headless Chromium")
	e := newEnv(t)
	admin := e.agent().signIn(e.Admin)
	admin.form("/console/fields?resource=people", "/console/fields/create", url.Values{"resource": {"people"}, "key": {"tier"},
		"label": {"Account tier"}, "type": {"text"}})
	file := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(file, []byte(importCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	browser := newBrowser(t)
	browserSignIn(t, browser, e.srv.URL, e.Admin)
	run(t, browser, "choose the file",
		chromedp.Navigate(e.srv.URL+"/console/import"),
		chromedp.WaitVisible(chromedp.CSS("#import-file")),
		chromedp.SetUploadFiles(chromedp.CSS("#import-file"), []string{file}),
		chromedp.WaitVisible(chromedp.CSS("#mapping")))
	mapped, err := chromedp.Run(browser, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#mapping-rows tr")].map(tr => tr.cells[0].textContent + "=" + tr.querySelector("select").value + " " + tr.cells[2].textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name=name Ada Lovelace · Bob Builder", "Email=email ada@acme.example · bob@acme.example · nobody@acme.example",
		"Account tier=custom_fields.tier gold · silver", "Nickname= Countess"}
	if strings.Join(mapped, "\n") != strings.Join(want, "\n") {
		t.Fatalf("mapping shown:\n%s\nwant:\n%s", strings.Join(mapped, "\n"), strings.Join(want, "\n"))
	}
	// Nickname goes into position, chosen by hand; then send. The job does not run yet, so
	// the page shows the import queued before the bar moves.
	run(t, browser, "map by hand and send",
		chromedp.SetValue(chromedp.CSS("#map-3"), "position"),
		chromedp.Click(chromedp.CSS("#import-button")),
		chromedp.WaitVisible(chromedp.CSS("#progress")))
	if _, err := chromedp.Run(browser, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatal(err)
	}
	e.startImports()
	if _, err := chromedp.Run(browser, chromedp.Poll[bool](`document.getElementById("status").textContent === "completed"`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the page never showed completed: %v", err)
	}
	shown, err := chromedp.Run(browser, chromedp.Evaluate[[]string](`[String(window.notReloaded), document.getElementById("progress-text").textContent,
		String(document.getElementById("progress").value), document.getElementById("rows-created").textContent,
		document.getElementById("rows-failed").textContent, String(document.getElementById("cancel-form").hidden)]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(shown, "|"); got != "true|3 of 3 rows (100%)|3|2|1|true" {
		t.Fatalf("progress shown: %s", got)
	}
	if n := e.count(`SELECT count(*) FROM people WHERE workspace_id = $1 AND email = 'ada@acme.example' AND position = 'Countess'
		AND custom_fields::text LIKE '%gold%'`, e.WorkspaceID); n != 1 {
		t.Fatalf("%d people Ada with position Countess and tier gold", n)
	}
}
