package restapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/imports"
	"github.com/agencyos/workspaced/imports/importfile"
	"github.com/agencyos/workspaced/queue"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// withImports has e's API serve /imports with a running import service.
func withImports(t testing.TB, e *env) *imports.Service {
	t.Helper()
	svc := imports.New(imports.Config{Store: e.store, Status: httpx.Status})
	svc.UseOps(e.ops)
	workers := river.NewWorkers()
	client, err := river.NewClient(queue.Driver(e.store), &river.Config{Queues: svc.Register(workers), Workers: workers,
		FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	svc.Use(client)
	ctx, cancel := context.WithCancel(context.Background())
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		stop, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = client.Stop(stop)
	})
	e.api.ServeImports(svc)
	return svc
}

// postImport sends POST /v1/imports as multipart: parts, then the file.
func (c client) postImport(file string, parts map[string]string) response {
	c.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range parts {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "people.csv")
	_, _ = io.WriteString(fw, file)
	_ = mw.Close()
	return c.raw("POST", "/imports", &body, mw.FormDataContentType())
}

// raw sends a request whose body is not JSON (multipart) or whose answer may not be (CSV),
// and checks the exchange against the OpenAPI document as doT does.
func (c client) raw(method, path string, body io.Reader, contentType string) response {
	c.t.Helper()
	var sent []byte
	if body != nil {
		sent, _ = io.ReadAll(body)
	}
	newReq := func() *http.Request {
		req, err := http.NewRequest(method, c.e.srv.URL+"/v1"+path, bytes.NewReader(sent))
		if err != nil {
			c.t.Fatal(err)
		}
		req.Header.Set("apikey", testAPIKey)
		req.Header.Set("Authorization", "Bearer "+c.token)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		return req
	}
	res, err := http.DefaultClient.Do(newReq())
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	c.e.checkOpenAPI(c.t, newReq(), res, raw)
	return out
}

// waitImport polls the import until it ends and returns it.
func waitImport(t testing.TB, c client, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		imp := must(t, c.raw("GET", "/imports/"+id, nil, ""), http.StatusOK).data()
		switch imp["status"] {
		case "completed", "failed", "cancelled":
			return imp
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("import %s did not end", id)
	return nil
}

func wantCounts(t testing.TB, imp map[string]any, read, created, updated, failed int) {
	t.Helper()
	got := fmt.Sprint(imp["rows_read"], imp["rows_created"], imp["rows_updated"], imp["rows_failed"])
	if want := fmt.Sprint(read, created, updated, failed); got != want {
		t.Fatalf("rows read/created/updated/failed %s, want %s: %v", got, want, imp)
	}
}

const peopleMapping = `{"Full name": "name", "E-mail": "email", "Job": "position", "Score": "custom_fields.score", "Since": "custom_fields.since"}`

// TestImportCSV: a CSV of people upserted by email, with every kind of row error; the
// import's counts, its first errors, errors.csv and the database agree.
func TestImportCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	withImports(t, e)
	tm := newTeam(t, e)
	a, admin := e.as(t, tm.a), e.as(t, tm.admin)
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "score", "label": "Score", "type": "number"})
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "since", "label": "Since", "type": "date"})
	existing := create(t, a, "/people", map[string]any{"name": "Old Ada", "email": "ada@acme.example"})["id"].(string)

	file := "Full name,E-mail,Job,Score,Since,Ignored\n" +
		"Ada Lovelace,ADA@acme.example,Engineer,12.5,31/01/2026,x\n" + // updates the existing person
		"Grace Hopper,grace@navy.example,Admiral,7,01/02/2026,y\n" +
		"Bad Score,bad@x.example,,lots,,\n" + // not a number
		"Grace Again,grace@navy.example,,,,\n" + // the same key twice in the file
		",\"=HYPERLINK(\"\"http://evil.example\"\")\",,,,\n" + // name is required: the batch refuses it
		"Alan Turing,alan@bletchley.example,,,,\n"
	r := must(t, a.postImport(file, map[string]string{"resource": "people", "operation": "upsert", "match": "email",
		"mapping": peopleMapping, "date_format": "DD/MM/YYYY"}), http.StatusAccepted)
	id := r.data()["id"].(string)
	imp := waitImport(t, a, id)
	if imp["status"] != "completed" {
		t.Fatalf("import %v", imp)
	}
	wantCounts(t, imp, 6, 2, 1, 3)
	firsts := imp["first_errors"].([]any)
	if len(firsts) != 3 {
		t.Fatalf("first errors %v", firsts)
	}
	for i, want := range []string{"custom_fields.score", "also on row 2", "name"} {
		if e := firsts[i].(map[string]any); !strings.Contains(e["error"].(string), want) {
			t.Fatalf("error %d %v does not name %q", i, e, want)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws); n != 3 {
		t.Fatalf("%d people, want 3 (one updated, two created)", n)
	}
	if n := e.count(t, `SELECT count(*) FROM people WHERE id = $1 AND name = 'Ada Lovelace' AND position = 'Engineer'`, existing); n != 1 {
		t.Fatal("the existing person was not updated")
	}
	if n := e.count(t, `SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'people'`, tm.ws); n < 4 {
		t.Fatalf("%d activity rows for people, want one per write", n)
	}
	got := a.raw("GET", "/imports/"+id+"/errors.csv", nil, "")
	if got.Status != http.StatusOK || !strings.HasPrefix(got.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("errors.csv: %d %s", got.Status, got.Raw)
	}
	recs, err := csv.NewReader(bytes.NewReader(got.Raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || strings.Join(recs[0], ",") != "row,error,Full name,E-mail,Job,Score,Since,Ignored" ||
		recs[1][0] != "3" || recs[1][2] != "Bad Score" || recs[2][0] != "4" || recs[3][0] != "5" ||
		recs[3][3] != `'=HYPERLINK("http://evil.example")` {
		t.Fatalf("errors.csv:\n%s", got.Raw)
	}
}

// TestImportPreview: dry_run answers the first rows as they would be written, and why
// not, and writes nothing.
func TestImportPreview(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	withImports(t, e)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	var file strings.Builder
	file.WriteString("name;email\n")
	for i := range 30 {
		fmt.Fprintf(&file, "Person %d;p%d@x.example\n", i, i)
	}
	r := must(t, a.postImport(file.String(), map[string]string{"resource": "people", "operation": "create",
		"mapping": `{"name": "name", "email": "email"}`, "delimiter": ";", "dry_run": "true"}), http.StatusOK)
	rows := r.data()["rows"].([]any)
	if len(rows) != imports.PreviewRows {
		t.Fatalf("%d rows previewed, want %d", len(rows), imports.PreviewRows)
	}
	first := rows[0].(map[string]any)
	if first["status"].(float64) != 201 || first["record"].(map[string]any)["email"] != "p0@x.example" {
		t.Fatalf("first row %v", first)
	}
	r = must(t, a.postImport("name,email\n,a@x.example\nOk,b@x.example\n", map[string]string{"resource": "people", "operation": "create",
		"mapping": `{"name": "name", "email": "email"}`, "dry_run": "true"}), http.StatusOK)
	rows = r.data()["rows"].([]any)
	if rows[0].(map[string]any)["status"].(float64) != 422 || rows[1].(map[string]any)["status"].(float64) != 201 {
		t.Fatalf("preview %s", r.Raw)
	}
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws); n != 0 {
		t.Fatalf("a dry run wrote %d people", n)
	}
	if n := e.count(t, `SELECT count(*) FROM activity WHERE workspace_id = $1`, tm.ws); n != 0 {
		t.Fatalf("a dry run wrote %d activity rows", n)
	}
}

// TestImportRefusals: what POST /imports refuses before any row is read, and who may see
// an import.
func TestImportRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	withImports(t, e)
	tm := newTeam(t, e)
	a, b := e.as(t, tm.a), e.as(t, tm.b)
	ok := map[string]string{"resource": "people", "operation": "create", "mapping": `{"name": "name"}`}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for k, v := range ok {
			m[k] = v
		}
		m[k] = v
		return m
	}
	for name, c := range map[string]struct {
		parts  map[string]string
		file   string
		status int
		code   string
	}{
		"unknown field":         {with("mapping", `{"name": "name", "Age": "age"}`), "name\nA\n", 400, "bad_request"},
		"unknown custom field":  {with("mapping", `{"name": "custom_fields.nope"}`), "name\nA\n", 400, "bad_request"},
		"read-only field":       {with("mapping", `{"name": "id"}`), "name\nA\n", 400, "bad_request"},
		"mapping not an object": {with("mapping", `["name"]`), "name\nA\n", 400, "bad_request"},
		"unknown resource":      {with("resource", "nope"), "name\nA\n", 404, "unknown_resource"},
		"operation":             {with("operation", "delete"), "name\nA\n", 400, "bad_request"},
		"upsert without match":  {with("operation", "upsert"), "name\nA\n", 400, "bad_request"},
		"match not a key":       {with("match", "name"), "name\nA\n", 400, "bad_request"},
		"empty file":            {ok, "", 400, "bad_request"},
		"not CSV":               {ok, "name\n\"unterminated\nA\n", 400, "bad_request"},
		"NUL in mapping":        {with("mapping", "{\"na\x00me\": \"name\"}"), "name\nA\n", 400, "bad_request"},
		"delimiter":             {with("delimiter", "ab"), "name\nA\n", 400, "bad_request"},
		"date format":           {with("date_format", "YY"), "name\nA\n", 400, "bad_request"},
	} {
		r := a.postImport(c.file, c.parts)
		if r.Status != c.status || r.Body["error"] != c.code {
			t.Errorf("%s: %d %s, want %d %s", name, r.Status, r.Raw, c.status, c.code)
		}
	}
	// The limits: rows past 200,000, bytes past 50 MB.
	rows := "name\n" + strings.Repeat("a\n", importfile.MaxRows+1)
	if r := a.postImport(rows, ok); r.Status != http.StatusBadRequest || !strings.Contains(r.Body["message"].(string), "200000 rows") {
		t.Errorf("too many rows: %d %s", r.Status, r.Raw)
	}
	if r := a.postImport(rows[:len(rows)-2], ok); r.Status != http.StatusAccepted {
		t.Errorf("exactly %d rows: %d %s", importfile.MaxRows, r.Status, r.Raw)
	}
	big := "name\n" + strings.Repeat(strings.Repeat("b", 1023)+"\n", importfile.MaxFileBytes/1024+1)
	if r := a.postImport(big, ok); r.Status != http.StatusBadRequest || !strings.Contains(r.Body["message"].(string), "50 MB") {
		t.Errorf("too big: %d %.300s", r.Status, r.Raw)
	}
	if n := e.count(t, `SELECT count(*) FROM imports WHERE workspace_id = $1`, tm.ws); n != 1 {
		t.Fatalf("%d imports stored, want only the one within the limits", n)
	}
	if n := e.count(t, `SELECT count(*) FROM import_parts`); n == 0 {
		t.Fatal("the accepted file was not stored")
	}
	must(t, a.raw("POST", "/imports/"+e.lastImport(t, tm.ws)+"/cancel", nil, ""), http.StatusOK)

	// Who may import: the member's grant and the token's scope.
	noGrant := e.as(t, storetest.AddUser(t, e.store, tm.ws, "member", map[string]string{"crm": "read"}, workspace.Scopes()))
	readOnly := e.as(t, storetest.AddUser(t, e.store, tm.ws, "member", grantsAll("full"), []string{"people:read"}))
	for name, c := range map[string]client{"read grant": noGrant, "read scope": readOnly} {
		if r := c.postImport("name\nA\n", ok); r.Status != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403", name, r.Status, r.Raw)
		}
	}

	// Who may see it: its member only; another member, another workspace: 404.
	id := must(t, a.postImport("name\nA\n", ok), http.StatusAccepted).data()["id"].(string)
	waitImport(t, a, id)
	// An agent imports as a member does; a suspended one is refused at the door.
	ak, err := e.store.CreateAgent(context.Background(), tm.ws, "Importer", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	agent := client{e: e, t: t, token: ak.Key}
	aid := must(t, agent.postImport("name\nFrom agent\n", ok), http.StatusAccepted).data()["id"].(string)
	wantCounts(t, waitImport(t, agent, aid), 1, 1, 0, 0)
	if err := e.store.SetMember(context.Background(), ak.UserID, store.Member{Status: "suspended"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the key cache hears of the suspension
	if r := agent.postImport("name\nA\n", ok); r.Status != http.StatusUnauthorized {
		t.Errorf("suspended agent: %d %s", r.Status, r.Raw)
	}
	other := newTeam(t, e)
	for name, c := range map[string]client{"other member": b, "other workspace": e.as(t, other.admin)} {
		for _, path := range []string{"/imports/" + id, "/imports/" + id + "/errors.csv"} {
			if r := c.raw("GET", path, nil, ""); r.Status != http.StatusNotFound {
				t.Errorf("%s GET %s: %d %s", name, path, r.Status, r.Raw)
			}
		}
		if r := c.raw("POST", "/imports/"+id+"/cancel", nil, ""); r.Status != http.StatusNotFound {
			t.Errorf("%s cancel: %d", name, r.Status)
		}
	}
	if r := a.raw("GET", "/imports/not-a-uuid", nil, ""); r.Status != http.StatusNotFound {
		t.Errorf("malformed id: %d", r.Status)
	}
	if r := a.raw("POST", "/imports", strings.NewReader(`{"resource": "people"}`), "application/json"); r.Status != http.StatusBadRequest {
		t.Errorf("JSON body: %d %s", r.Status, r.Raw)
	}
}

// TestImportNDJSONAndCancel: NDJSON rows import as CSV ones do; a cancelled import
// stops after its current chunk.
func TestImportNDJSONAndCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	withImports(t, e)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	nd := `{"n": "Ada", "mail": "ada@x.example"}` + "\n" + `{"n": "Grace", "mail": null}` + "\n"
	id := must(t, a.postImport(nd, map[string]string{"resource": "people", "operation": "create", "format": "ndjson",
		"mapping": `{"n": "name", "mail": "email"}`}), http.StatusAccepted).data()["id"].(string)
	wantCounts(t, waitImport(t, a, id), 2, 2, 0, 0)
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1 AND email = 'ada@x.example'`, tm.ws); n != 1 {
		t.Fatal("NDJSON row not written")
	}

	var file strings.Builder
	file.WriteString("name\n")
	for i := range 5000 {
		fmt.Fprintf(&file, "P%d\n", i)
	}
	id = must(t, a.postImport(file.String(), map[string]string{"resource": "companies", "operation": "create",
		"mapping": `{"name": "name"}`}), http.StatusAccepted).data()["id"].(string)
	must(t, a.raw("POST", "/imports/"+id+"/cancel", nil, ""), http.StatusOK)
	imp := waitImport(t, a, id)
	if imp["status"] != "cancelled" {
		t.Fatalf("import %v", imp)
	}
	read := int(imp["rows_read"].(float64))
	if read%imports.ChunkRows != 0 || read >= 5000 {
		t.Fatalf("a cancelled import read %d rows", read)
	}
	if n := e.count(t, `SELECT count(*) FROM companies WHERE workspace_id = $1`, tm.ws); n != read {
		t.Fatalf("%d companies written, import says %d", n, read)
	}
}

// lastImport is the id of the workspace's latest import.
func (e *env) lastImport(t testing.TB, ws string) string {
	t.Helper()
	var id string
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT id::text FROM imports WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1`, ws).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestImportStopsForASuspendedMember: an import whose member is suspended ends failed at
// its next slice (every job run reads the member afresh) instead of writing as them.
func TestImportStopsForASuspendedMember(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	withImports(t, e)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	// The harness's tokens skip the member's status, so the import is accepted from a
	// member suspended already: the job, which looks, must not write as them.
	if err := e.store.SetMember(context.Background(), tm.a.UserID, store.Member{Status: "suspended"}); err != nil {
		t.Fatal(err)
	}
	id := must(t, a.postImport("name\nA\nB\n", map[string]string{"resource": "people", "operation": "create",
		"mapping": `{"name": "name"}`}), http.StatusAccepted).data()["id"].(string)
	deadline := time.Now().Add(30 * time.Second)
	var status string
	for time.Now().Before(deadline) {
		if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT status FROM imports WHERE id = $1`, id).Scan(&status); err != nil {
			t.Fatal(err)
		}
		if status != "queued" && status != "running" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status != "failed" {
		t.Fatalf("import of a suspended member: %s", status)
	}
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws); n != 0 {
		t.Fatalf("%d people written for a suspended member", n)
	}
}

// xlsx builds an XLSX file of the rows (the first a header), strings shared; extra is
// written into the worksheet before its rows (a bomb's padding).
func xlsx(t testing.TB, rows [][]string, padding int) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	var strs []string
	sheet, _ := zw.Create("xl/worksheets/sheet1.xml")
	io.WriteString(sheet, `<?xml version="1.0"?><worksheet><sheetData>`)
	for pad := padding; pad > 0; pad -= 1 << 20 {
		sheet.Write(bytes.Repeat([]byte(" "), min(pad, 1<<20)))
	}
	for i, row := range rows {
		fmt.Fprintf(sheet, `<row r="%d">`, i+1)
		for j, v := range row {
			if v == "" {
				continue
			}
			fmt.Fprintf(sheet, `<c r="%c%d" t="s"><v>%d</v></c>`, 'A'+j, i+1, len(strs))
			strs = append(strs, v)
		}
		io.WriteString(sheet, `</row>`)
	}
	io.WriteString(sheet, `</sheetData></worksheet>`)
	ss, _ := zw.Create("xl/sharedStrings.xml")
	io.WriteString(ss, `<?xml version="1.0"?><sst>`)
	for _, v := range strs {
		fmt.Fprintf(ss, `<si><t>%s</t></si>`, v)
	}
	io.WriteString(ss, `</sst>`)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestImportXLSX: a spreadsheet's first worksheet imports as a CSV file would, a missing
// cell left empty; a file that unpacks past the limit, or is no zip, is refused.
func TestImportXLSX(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	withImports(t, e)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	parts := map[string]string{"resource": "people", "operation": "create", "format": "xlsx",
		"mapping": `{"Name": "name", "Email": "email", "Job": "position"}`}
	file := xlsx(t, [][]string{{"Name", "Email", "Job"}, {"Ada", "ada@x.example", "Engineer"}, {"Grace", "", "Admiral"}}, 0)
	id := must(t, a.postImport(file, parts), http.StatusAccepted).data()["id"].(string)
	wantCounts(t, waitImport(t, a, id), 2, 2, 0, 0)
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1 AND ((name = 'Ada' AND email = 'ada@x.example')
		OR (name = 'Grace' AND email IS NULL AND position = 'Admiral'))`, tm.ws); n != 2 {
		t.Fatalf("%d of 2 people as the spreadsheet has them", n)
	}
	bomb := xlsx(t, [][]string{{"Name"}, {"A"}}, importfile.MaxXLSXInflated+1)
	if len(bomb) > 2<<20 {
		t.Fatalf("the bomb is %d bytes, not small", len(bomb))
	}
	if r := a.postImport(bomb, parts); r.Status != http.StatusBadRequest || !strings.Contains(r.Body["message"].(string), "unpacks") {
		t.Fatalf("bomb: %d %s", r.Status, r.Raw)
	}
	if r := a.postImport("name\nA\n", parts); r.Status != http.StatusBadRequest {
		t.Fatalf("not a zip: %d %s", r.Status, r.Raw)
	}
}
