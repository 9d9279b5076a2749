package restapi_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// customDoc is the part of an OpenAPI document these tests read.
type customDoc struct {
	Components struct {
		Schemas map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"schemas"`
	} `json:"components"`
	Paths map[string]map[string]struct {
		Parameters []struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"parameters"`
	} `json:"paths"`
}

// customFieldsOf returns a schema's custom_fields property, decoded.
func (d customDoc) customFieldsOf(schema string) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(d.Components.Schemas[schema].Properties["custom_fields"], &m)
	return m
}

func (d customDoc) param(path, name string) json.RawMessage {
	for _, p := range d.Paths[path]["get"].Parameters {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// defineWorkspaceFields gives the team's workspace a few fields on deals and people.
func defineWorkspaceFields(t *testing.T, admin client) {
	t.Helper()
	for _, body := range []map[string]any{
		{"resource": "deals", "key": "tier", "label": "Account tier", "type": "select", "required": true,
			"options": []map[string]any{{"key": "gold", "label": "Gold", "order": 1}, {"key": "silver", "label": "Silver", "order": 2}}},
		{"resource": "deals", "key": "renewal", "label": "Contract renewal", "type": "date"},
		{"resource": "deals", "key": "retainer", "label": "Retainer (monthly)", "type": "money"},
		{"resource": "deals", "key": "tags", "label": "Tags", "type": "multi_select",
			"options": []map[string]any{{"key": "a", "label": "A", "order": 1}}},
		{"resource": "deals", "key": "brief", "label": "Brief", "type": "long_text"},
		{"resource": "deals", "key": "vip", "label": "VIP", "type": "boolean"},
		{"resource": "people", "key": "lead_source", "label": "Lead source", "type": "text", "searchable": true},
	} {
		create(t, admin, "/custom_fields", body)
	}
	old := create(t, admin, "/custom_fields", map[string]any{"resource": "deals", "key": "legacy", "label": "Legacy", "type": "text"})
	must(t, admin.patch("/custom_fields/"+old["id"].(string), map[string]any{"archived": true}), http.StatusOK)
}

// TestWorkspaceOpenAPI: GET /openapi.json?workspace=current answers the caller's
// workspace's document, its custom fields typed in records, bodies, filters and sorts;
// only the fields of resources the caller may list, never archived ones; without a
// credential 401 in the error envelope, with another value 400; another workspace's
// document has none of them; the plain document stays generic and public.
func TestWorkspaceOpenAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	admin := e.as(t, tm.admin)
	defineWorkspaceFields(t, admin)

	wantError(t, e.do("GET", "/openapi.json?workspace=current", "", "", ""), http.StatusUnauthorized, "unauthorized")
	wantError(t, e.do("GET", "/openapi.json?workspace=current", "", testAPIKey, ""), http.StatusUnauthorized, "unauthorized")
	wantError(t, e.do("GET", "/openapi.json?workspace=current", "tst_nope", testAPIKey, ""), http.StatusUnauthorized, "unauthorized")
	wantError(t, admin.get("/openapi.json?workspace=other"), http.StatusBadRequest, "bad_request")
	wantError(t, admin.get("/openapi.json?workspace=current&workspace=current"), http.StatusBadRequest, "bad_request")
	wantError(t, admin.get("/openapi.json?workspace="+strings.Repeat("x", 4000)), http.StatusBadRequest, "bad_request")
	wantError(t, admin.get("/openapi.json?workspace=current%00"), http.StatusBadRequest, "bad_request")

	read := func(c client) (customDoc, response) {
		t.Helper()
		r := must(t, c.get("/openapi.json?workspace=current"), http.StatusOK)
		var d customDoc
		if err := json.Unmarshal(r.Raw, &d); err != nil {
			t.Fatal(err)
		}
		return d, r
	}
	doc, r := read(admin)
	if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "private") {
		t.Errorf("Cache-Control %q, want private", cc)
	}
	rec := doc.customFieldsOf("deals")
	props, _ := rec["properties"].(map[string]any)
	var keys []string
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"brief", "renewal", "retainer", "tags", "tier", "vip"}) || rec["additionalProperties"] != false {
		t.Fatalf("deals.custom_fields: %v", rec)
	}
	tier, _ := json.Marshal(props["tier"])
	if !strings.Contains(string(tier), `"gold"`) || !strings.Contains(string(tier), `"Account tier"`) {
		t.Errorf("deals.custom_fields.tier: %s", tier)
	}
	if c := doc.customFieldsOf("deals_create"); slices.Compare(anyStrings(c["required"]), []string{"tier"}) != 0 {
		t.Errorf("deals_create.custom_fields required %v, want [tier]", c["required"])
	}
	if c := doc.customFieldsOf("deals_update"); c["required"] != nil || c["properties"] == nil {
		t.Errorf("deals_update.custom_fields: %v", c)
	}
	if c := doc.customFieldsOf("deals_fields"); c["properties"] == nil {
		t.Errorf("deals_fields.custom_fields is not typed: %v", c)
	}
	if c := doc.customFieldsOf("people"); c["properties"].(map[string]any)["lead_source"] == nil {
		t.Errorf("people.custom_fields: %v", c)
	}
	for _, p := range []string{"custom_fields.tier", "custom_fields.tier[in]", "custom_fields.renewal[lt]", "custom_fields.brief[null]",
		"custom_fields.retainer[gte]", "custom_fields.tags[eq]", "custom_fields.vip"} {
		if doc.param("/deals", p) == nil {
			t.Errorf("GET /deals has no parameter %s", p)
		}
	}
	if doc.param("/deals", "custom_fields.legacy") != nil || doc.param("/deals", "custom_fields.brief") != nil {
		t.Errorf("GET /deals names the archived legacy or an exact filter on long text")
	}
	if s := string(doc.param("/deals", "custom_fields.renewal[lt]")); !strings.Contains(s, `"date"`) {
		t.Errorf("custom_fields.renewal[lt] schema %s, want a date", s)
	}
	if s := string(doc.param("/deals", "sort")); !strings.Contains(s, `"-custom_fields.renewal"`) || strings.Contains(s, "custom_fields.brief") {
		t.Errorf("sort of the workspace's deals: %s", s)
	}

	// A member without the crm grant reads no field of deals or people; tasks stay generic.
	noneDoc, _ := read(e.as(t, tm.none))
	if c := noneDoc.customFieldsOf("deals"); c["properties"] != nil {
		t.Errorf("a member without the crm grant sees deals' fields: %v", c)
	}
	// A narrower token (tasks only) reads no field of deals; the workspace's agent key
	// (crm full) reads them.
	narrow := *tm.admin
	narrow.Scopes = []string{"tasks:read"}
	if c := must(t, e.as(t, &narrow).get("/openapi.json?workspace=current"), http.StatusOK); strings.Contains(string(c.Raw), "Account tier") {
		t.Errorf("a tasks:read token's document names deals' field tier")
	}
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	agentAdmin := e.as(t, f.Admin)
	create(t, agentAdmin, "/custom_fields", map[string]any{"resource": "deals", "key": "stage_note", "label": "Stage note", "type": "text"})
	if c := must(t, (client{e: e, t: t, token: f.Agent.Key}).get("/openapi.json?workspace=current"), http.StatusOK); !strings.Contains(string(c.Raw), "custom_fields.stage_note") {
		t.Errorf("the agent key's document lacks its workspace's field stage_note")
	}
	// Another workspace's document, and the public one, name none of them.
	other := storetest.Workspace(t, e.store, nil)
	for _, raw := range [][]byte{must(t, e.as(t, other.Admin).get("/openapi.json?workspace=current"), http.StatusOK).Raw,
		e.do("GET", "/openapi.json", "", "", "").Raw} {
		if strings.Contains(string(raw), "Account tier") || strings.Contains(string(raw), "custom_fields.tier") {
			t.Errorf("a document outside the workspace names its field tier")
		}
	}
	if cc := e.do("GET", "/openapi.json", "", "", "").Header.Get("Cache-Control"); !strings.Contains(cc, "public") {
		t.Errorf("the generic document's Cache-Control %q", cc)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestWorkspaceOpenAPITools: the workspace's document is lint-clean (Spectral, Redocly),
// and openapi-typescript's types from it type custom_fields: tsc --strict compiles
// testdata/openapi-tools/custom.ts, which would not compile against the generic
// document (its @ts-expect-error lines need the narrow types), and the program creates a
// deal with custom values and lists it by a custom filter and sort.
func TestWorkspaceOpenAPITools(t *testing.T) {
	t.Parallel()
	dir := openAPITools(t)
	e := newEnv(t)
	tm := newTeam(t, e)
	admin := e.as(t, tm.admin)
	defineWorkspaceFields(t, admin)
	served := must(t, admin.get("/openapi.json?workspace=current"), http.StatusOK)
	build, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(build) })
	doc := filepath.Join(build, "openapi.json")
	writeFile(t, doc, served.Raw)
	lintOpenAPI(t, dir, doc)

	writeFile(t, filepath.Join(build, "custom.ts"), readFile(t, filepath.Join(dir, "custom.ts")))
	npxTool(t, dir, "openapi-typescript", doc, "--output", filepath.Join(build, "schema.d.ts"))
	tsc := exec.Command(filepath.Join(dir, "node_modules", ".bin", "tsc"), "--strict", "--noUncheckedIndexedAccess",
		"--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck",
		"--outDir", filepath.Join(build, "out"), filepath.Join(build, "custom.ts"))
	tsc.Dir = dir
	if out, err := tsc.CombinedOutput(); err != nil {
		t.Fatalf("tsc --strict rejects custom.ts against the workspace's types: %v\n%s", err, out)
	}
	run := exec.Command("node", filepath.Join(build, "out", "custom.js"))
	run.Env = append(os.Environ(), "BASE_URL="+e.srv.URL+"/v1", "APIKEY="+testAPIKey, "TOKEN="+admin.token)
	var stderr strings.Builder
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("the compiled client failed: %v\n%s", err, stderr.String())
	}
	if got := strings.TrimSpace(string(out)); got != `[{"name":"Acme","tier":"gold","renewal":"2026-12-01"}]` {
		t.Fatalf("custom.ts listed %s", got)
	}

	// The same program does not compile against the generic document's types.
	generic := filepath.Join(build, "generic")
	if err := os.MkdirAll(generic, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(generic, "openapi.json"), e.do("GET", "/openapi.json", "", "", "").Raw)
	writeFile(t, filepath.Join(generic, "custom.ts"), readFile(t, filepath.Join(dir, "custom.ts")))
	npxTool(t, dir, "openapi-typescript", filepath.Join(generic, "openapi.json"), "--output", filepath.Join(generic, "schema.d.ts"))
	tsc = exec.Command(filepath.Join(dir, "node_modules", ".bin", "tsc"), "--strict", "--noEmit", "--target", "es2022",
		"--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck", filepath.Join(generic, "custom.ts"))
	tsc.Dir = dir
	if out, err := tsc.CombinedOutput(); err == nil || !strings.Contains(string(out), "TS2578") {
		t.Fatalf("custom.ts compiles against the generic types (its @ts-expect-error lines are unused only with the workspace's): %v\n%s", err, out)
	}
}
