package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// listedTool is one tool of a tools/list answer, its schemas as sent.
type listedTool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// toolsByName posts tools/list to path with bearer and returns its tools by name and the
// compact answer's size.
func (e *env) toolsByName(t testing.TB, path, bearer string) (map[string]listedTool, int) {
	t.Helper()
	h := append(mcpHeaders(bearer), "MCP-Protocol-Version", mcpgo.ProtocolVersion20250618)
	status, _, body := e.post(t, "POST", path, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, h...)
	if status != http.StatusOK {
		t.Fatalf("tools/list on %s: %d %s", path, status, body)
	}
	var res struct {
		Result struct {
			Tools []listedTool `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	out := map[string]listedTool{}
	for _, tl := range res.Result.Tools {
		out[tl.Name] = tl
	}
	_, size := e.listTools(t, path, bearer)
	return out, size
}

// schemaOf decodes a raw schema into nested maps.
func schemaOf(t testing.TB, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	return m
}

// dig walks nested maps by keys.
func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// defineField creates a custom field definition as admin over REST.
func (e *env) defineField(t testing.TB, admin, body string) string {
	t.Helper()
	return e.mustCreate(t, admin, "custom_fields", body)["id"].(string)
}

// TestCustomFieldsInToolSchemas: tools/list and find_tools describe the caller's
// workspace: create_deals takes custom_fields with its keys typed and labelled, list_deals
// filters and sorts on them; another workspace, and an archived field, show nothing of them.
// A workspace without fields lists exactly the tools as built.
func TestCustomFieldsInToolSchemas(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	other := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.token(f.Admin)

	// Before any field: the listing is the built tools, byte for byte.
	builtBefore, sizeBefore := e.toolsByName(t, "/mcp/x/all", admin)
	for _, tl := range e.mcp.Tools() {
		if got, ok := builtBefore[tl.Name]; ok && string(got.InputSchema) != string(tl.RawInputSchema) {
			t.Fatalf("%s listed %s, built %s", tl.Name, got.InputSchema, tl.RawInputSchema)
		}
	}

	e.defineField(t, admin, `{"resource":"deals","key":"tier","label":"Account tier","type":"select","required":true,
		"options":[{"key":"gold","label":"Gold","order":1},{"key":"silver","label":"Silver","order":2}]}`)
	e.defineField(t, admin, `{"resource":"deals","key":"renewal","label":"Contract renewal","type":"date"}`)
	e.defineField(t, admin, `{"resource":"deals","key":"brief","label":"Brief","type":"long_text"}`)
	e.defineField(t, admin, `{"resource":"deals","key":"retainer","label":"Retainer (monthly)","type":"money"}`)
	old := e.defineField(t, admin, `{"resource":"deals","key":"legacy","label":"Legacy","type":"text"}`)
	if status, out := e.rest(t, "PATCH", "/custom_fields/"+old, admin, `{"archived":true}`); status != http.StatusOK {
		t.Fatalf("archive: %d %v", status, out)
	}

	tools, _ := e.toolsByName(t, "/mcp/x/all", admin)
	create := schemaOf(t, tools["create_deals"].InputSchema)
	cf, _ := dig(create, "properties", "custom_fields").(map[string]any)
	if cf == nil {
		t.Fatalf("create_deals has no custom_fields: %s", tools["create_deals"].InputSchema)
	}
	props := cf["properties"].(map[string]any)
	if keys := slices.Sorted(func(yield func(string) bool) {
		for k := range props {
			if !yield(k) {
				return
			}
		}
	}); !slices.Equal(keys, []string{"brief", "renewal", "retainer", "tier"}) {
		t.Errorf("create_deals custom_fields keys %v, want brief, renewal, retainer, tier (legacy archived)", keys)
	}
	if d := dig(props, "tier", "description"); d != "Account tier" {
		t.Errorf("tier described %v, want its label", d)
	}
	if enum := fmt.Sprint(dig(props, "tier", "anyOf")); !strings.Contains(enum, "gold silver") {
		t.Errorf("tier schema %v, want the enum gold, silver", props["tier"])
	}
	if req := fmt.Sprint(cf["required"]); req != "[tier]" {
		t.Errorf("create_deals custom_fields required %s, want [tier]", req)
	}
	if cf["additionalProperties"] != false {
		t.Errorf("custom_fields takes keys it does not list: %v", cf["additionalProperties"])
	}
	update := schemaOf(t, tools["update_deals"].InputSchema)
	if dig(update, "properties", "custom_fields", "properties", "renewal") == nil || dig(update, "properties", "custom_fields", "required") != nil {
		t.Errorf("update_deals custom_fields: %v", dig(update, "properties", "custom_fields"))
	}
	list := schemaOf(t, tools["list_deals"].InputSchema)
	where := regexp.MustCompile(dig(list, "properties", "where", "items", "properties", "field", "pattern").(string))
	sort := regexp.MustCompile(dig(list, "properties", "sort", "pattern").(string))
	for _, c := range []struct {
		re   *regexp.Regexp
		s    string
		want bool
	}{
		{where, "custom_fields.tier", true}, {where, "custom_fields.renewal", true}, {where, "custom_fields.brief", true},
		{where, "value", true}, {where, "custom_fields.legacy", false}, {where, "custom_fields.nope", false},
		{sort, "-custom_fields.renewal", true}, {sort, "custom_fields.tier", true}, {sort, "custom_fields.brief", false},
		{sort, "-value", true},
	} {
		if c.re.MatchString(c.s) != c.want {
			t.Errorf("%s matches %q: %v, want %v", c.re, c.s, !c.want, c.want)
		}
	}
	if req := fmt.Sprint(dig(schemaOf(t, tools["get_deals"].OutputSchema), "required")); !strings.Contains(req, "custom_fields") {
		t.Errorf("get_deals output requires %s, want custom_fields too", req)
	}
	// Resources without fields in this workspace keep their built tools.
	for _, tl := range e.mcp.Tools() {
		if strings.HasSuffix(tl.Name, "_people") && string(tools[tl.Name].InputSchema) != string(tl.RawInputSchema) {
			t.Errorf("%s changed though people has no fields", tl.Name)
		}
	}

	// Another workspace sees the tools as built, and as many bytes as before.
	otherTools, otherSize := e.toolsByName(t, "/mcp/x/all", e.token(other.Admin))
	if otherSize != sizeBefore || strings.Contains(string(otherTools["create_deals"].InputSchema), "custom_fields") {
		t.Errorf("another workspace's tools/list: %d bytes (before: %d), create_deals %s", otherSize, sizeBefore, otherTools["create_deals"].InputSchema)
	}

	// find_tools answers the workspace's schema too.
	c := e.client(t, admin, "")
	res := wantOK(t, call(t, c, "find_tools", map[string]any{"query": "list deals", "limit": 3}))
	var found []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	raw, _ := json.Marshal(res["tools"])
	_ = json.Unmarshal(raw, &found)
	i := slices.IndexFunc(found, func(x struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}) bool {
		return x.Name == "list_deals"
	})
	if i < 0 || !strings.Contains(string(found[i].InputSchema), `custom_fields\\.(brief|renewal|retainer|tier)`) {
		t.Errorf("find_tools list deals: %s", raw)
	}
}

// TestCustomFieldsWithTheTypeScriptSDK: the official SDK lists the tools with the
// workspace's fields in create_deals, creates deals with custom values and filters
// "deals in tier gold renewing before 2027" and sorts by a custom field in one list_deals
// call each.
func TestCustomFieldsWithTheTypeScriptSDK(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin, key := e.token(f.Admin), f.Agent.Key
	e.defineField(t, admin, `{"resource":"deals","key":"tier","label":"Account tier","type":"select",
		"options":[{"key":"gold","label":"Gold","order":1},{"key":"silver","label":"Silver","order":2}]}`)
	e.defineField(t, admin, `{"resource":"deals","key":"renewal","label":"Contract renewal","type":"date"}`)
	pipeline := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	deal := func(name, tier, renewal string) map[string]any {
		return map[string]any{"name": name, "pipeline_id": pipeline, "custom_fields": map[string]any{"tier": tier, "renewal": renewal}}
	}
	where := []any{
		map[string]any{"field": "custom_fields.tier", "op": "eq", "value": "gold"},
		map[string]any{"field": "custom_fields.renewal", "op": "lt", "value": "2027-01-01"},
	}
	calls := []sdkCall{
		{Name: "create_deals", Arguments: deal("Acme", "gold", "2026-12-15")},
		{Name: "create_deals", Arguments: deal("Globex", "gold", "2027-06-01")},
		{Name: "create_deals", Arguments: deal("Initech", "silver", "2026-12-20")},
		{Name: "list_deals", Arguments: map[string]any{"where": where, "fields": "name,custom_fields.tier,custom_fields.renewal"}},
		{Name: "list_deals", Arguments: map[string]any{"sort": "-custom_fields.renewal", "fields": "name"}},
		{Name: "create_deals", Arguments: deal("Bad", "bronze", "2026-01-01")},
	}
	t.Setenv("SCHEMAS", "create_deals,list_deals")
	out := runAgentKeySDK(t, e, key, calls)
	for i, r := range out.Results[:5] {
		if r.IsError || r.StructuredContent == nil {
			t.Fatalf("%s %v: error %v, text %s", calls[i].Name, calls[i].Arguments, r.IsError, r.Text)
		}
	}
	create := schemaOf(t, out.Schemas["create_deals"])
	if d := dig(create, "properties", "custom_fields", "properties", "renewal", "description"); d != "Contract renewal" {
		t.Errorf("the SDK's create_deals custom_fields.renewal: %v", dig(create, "properties", "custom_fields"))
	}
	if p := fmt.Sprint(dig(schemaOf(t, out.Schemas["list_deals"]), "properties", "where", "items", "properties", "field", "pattern")); !strings.Contains(p, "custom_fields") {
		t.Errorf("the SDK's list_deals where: %s", p)
	}
	names := func(i int) []string {
		var s []string
		for _, r := range out.Results[i].StructuredContent["data"].([]any) {
			s = append(s, r.(map[string]any)["name"].(string))
		}
		return s
	}
	if got := names(3); !slices.Equal(got, []string{"Acme"}) {
		t.Errorf("gold renewing before 2027: %v, want [Acme]", got)
	}
	if rec := out.Results[3].StructuredContent["data"].([]any)[0].(map[string]any); fmt.Sprint(rec["custom_fields"]) != "map[renewal:2026-12-15 tier:gold]" {
		t.Errorf("fields=name,custom_fields.tier,custom_fields.renewal: %v", rec)
	}
	if got := names(4); !slices.Equal(got, []string{"Globex", "Initech", "Acme"}) {
		t.Errorf("sort -custom_fields.renewal: %v", got)
	}
	if r := out.Results[5]; !r.IsError || !strings.Contains(r.Text, "tier") {
		t.Errorf("tier bronze: error %v, %s", r.IsError, r.Text)
	}
}

// TestToolsListSizeWithCustomFields measures the default tools/list of a workspace with
// 20 custom fields on deals and on people, of every type, and keeps docs/mcp.md's figure
// (go test ./mcp/ -run TestToolsListSizeWithCustomFields -update).
func TestToolsListSizeWithCustomFields(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.token(f.Admin)
	_, before := e.listTools(t, "/mcp", f.Agent.Key)
	types := []string{"text", "long_text", "number", "money", "date", "timestamp", "boolean", "select", "multi_select",
		"url", "email", "phone", "member", "reference"}
	for _, res := range []string{"deals", "people"} {
		for i := range 20 {
			typ := types[i%len(types)]
			body := fmt.Sprintf(`{"resource":%q,"key":"field_%02d","label":"Field %d (%s)","type":%q`, res, i, i, typ, typ)
			switch typ {
			case "select", "multi_select":
				body += `,"options":[{"key":"small","label":"Small","order":1},{"key":"medium","label":"Medium","order":2},{"key":"large","label":"Large","order":3}]`
			case "reference":
				body += `,"reference_resource":"companies"`
			}
			e.defineField(t, admin, body+"}")
		}
	}
	names, after := e.listTools(t, "/mcp", f.Agent.Key)
	t.Logf("default tools/list: %d tools, %d bytes without custom fields, %d bytes with 20 on deals and 20 on people", len(names), before, after)
	if after <= before || len(names) != 30 {
		t.Fatalf("%d tools, %d bytes with fields, %d without", len(names), after, before)
	}
	row := "default (`/mcp`), full-scope agent key, 20 custom fields on deals and on people"
	checkDocTable(t, "../docs/mcp.md", map[string]string{row: fmt.Sprintf("| %s | %d | %s |", row, len(names), thousands(after))})
}

// TestCustomFieldsInTheFieldCatalogue: workspaced://fields lists the workspace's custom
// fields of each record type after its own, as custom_fields.<key> with type, schema and
// label; another workspace's catalogue has none of them.
func TestCustomFieldsInTheFieldCatalogue(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	other := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.token(f.Admin)
	e.defineField(t, admin, `{"resource":"people","key":"lead_source","label":"Lead source","type":"select",
		"description":"where we met them","options":[{"key":"event","label":"Event","order":1}]}`)
	read := func(bearer string) (string, string) {
		t.Helper()
		c := e.client(t, bearer, "")
		req := mcpgo.ReadResourceRequest{}
		req.Params.URI = "workspaced://fields"
		res, err := c.ReadResource(t.Context(), req)
		if err != nil || len(res.Contents) != 2 {
			t.Fatalf("read fields: %v %v", res, err)
		}
		return res.Contents[0].(mcpgo.TextResourceContents).Text, res.Contents[1].(mcpgo.TextResourceContents).Text
	}
	doc, md := read(admin)
	var cat struct {
		Records []struct {
			Type   string `json:"type"`
			Fields []struct {
				Name       string          `json:"name"`
				Schema     json.RawMessage `json:"schema"`
				Writable   bool            `json:"writable"`
				Filter     bool            `json:"filter"`
				Doc        string          `json:"doc"`
				CustomType string          `json:"custom_type"`
			} `json:"fields"`
		} `json:"records"`
	}
	if err := json.Unmarshal([]byte(doc), &cat); err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	found := false
	for _, r := range cat.Records {
		for _, fl := range r.Fields {
			if fl.Name != "custom_fields.lead_source" {
				continue
			}
			found = r.Type == "people"
			if fl.CustomType != "select" || !fl.Writable || !fl.Filter || fl.Doc != "Lead source: where we met them" ||
				!strings.Contains(string(fl.Schema), `"event"`) {
				t.Errorf("custom_fields.lead_source in the catalogue: %+v %s", fl, fl.Schema)
			}
		}
	}
	if !found || !strings.Contains(md, "- `custom_fields.lead_source` (select): Lead source") {
		t.Errorf("catalogue of people lacks custom_fields.lead_source:\n%s", md)
	}
	if otherDoc, _ := read(e.token(other.Admin)); strings.Contains(otherDoc, "lead_source") {
		t.Errorf("another workspace's catalogue names lead_source")
	}
}
