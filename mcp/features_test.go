package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// versions are the protocol versions the feature tests run on: the stateless 2026-07-28
// core and the two versions of the handshake era the server serves.
var versions = []string{mcpgo.ProtocolVersion20260728, mcpgo.ProtocolVersion20251125, mcpgo.ProtocolVersion20250618}

// rpcReply is one JSON-RPC answer.
type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
	size int // bytes of the compact answer
}

// rpc posts one request on path as a client of version sends it (2026-07-28: the
// protocol version in _meta and the Mcp-Method and Mcp-Name headers) and returns the HTTP
// status and the answer.
func (e *env) rpc(t testing.TB, path, bearer, version, method string, params map[string]any, headers ...string) (int, rpcReply) {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	h := append(mcpHeaders(bearer), "MCP-Protocol-Version", version)
	if version == mcpgo.ProtocolVersion20260728 {
		params["_meta"] = map[string]any{mcpgo.MetaKeyProtocolVersion: version, mcpgo.MetaKeyClientInfo: map[string]any{"name": "t", "version": "1"},
			mcpgo.MetaKeyClientCapabilities: map[string]any{}}
		h = append(h, "Mcp-Method", method)
		switch method {
		case "prompts/get":
			h = append(h, "Mcp-Name", params["name"].(string))
		case "resources/read":
			h = append(h, "Mcp-Name", params["uri"].(string))
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	status, _, raw := e.post(t, "POST", path, string(body), append(h, headers...)...)
	var a rpcReply
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s %s: %d %s", version, method, status, raw)
	}
	var c bytes.Buffer
	_ = json.Compact(&c, raw)
	a.size = c.Len()
	return status, a
}

// ok asserts a result and decodes it into v.
func (a rpcReply) ok(t testing.TB, v any) {
	t.Helper()
	if a.Error != nil {
		t.Fatalf("want a result, got error %d %s %v", a.Error.Code, a.Error.Message, a.Error.Data)
	}
	if err := json.Unmarshal(a.Result, v); err != nil {
		t.Fatalf("result %s: %v", a.Result, err)
	}
}

// wantRPCError asserts a JSON-RPC error with code, and for 2026-07-28 the HTTP status its
// code maps to.
func wantRPCError(t testing.TB, version string, status int, a rpcReply, code int) {
	t.Helper()
	if a.Error == nil {
		t.Fatalf("want error %d, got result %s", code, a.Result)
	}
	if a.Error.Code != code {
		t.Fatalf("want error %d, got %d %s %v", code, a.Error.Code, a.Error.Message, a.Error.Data)
	}
	want := http.StatusOK
	if version == mcpgo.ProtocolVersion20260728 && code == mcpgo.INVALID_PARAMS {
		want = http.StatusBadRequest
	}
	if status != want {
		t.Fatalf("error %d on %s answered HTTP %d, want %d", code, version, status, want)
	}
}

// notFoundCode is the spec's "resource not found" of version.
func notFoundCode(version string) int {
	if version == mcpgo.ProtocolVersion20260728 {
		return mcpgo.INVALID_PARAMS
	}
	return mcpgo.RESOURCE_NOT_FOUND
}

// crmAdmin is an admin with every scope and the crm grant.
func crmAdmin(t testing.TB, e *env, workspaceID string) string {
	p := storetest.AddUser(t, e.store, workspaceID, "admin", map[string]string{"crm": "full"}, workspace.Scopes())
	return e.token(p)
}

type promptList struct {
	Prompts []struct {
		Name      string `json:"name"`
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	} `json:"prompts"`
}

func (pl promptList) names() []string {
	var out []string
	for _, p := range pl.Prompts {
		out = append(out, p.Name)
	}
	return out
}

type promptResult struct {
	Messages []struct {
		Role    string `json:"role"`
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messages"`
}

func (pr promptResult) text(t testing.TB) string {
	t.Helper()
	if len(pr.Messages) != 1 || pr.Messages[0].Role != "user" || pr.Messages[0].Content.Type != "text" {
		t.Fatalf("want one user text message, got %+v", pr.Messages)
	}
	return pr.Messages[0].Content.Text
}

// TestInitializeAdvertisesFeatures: a 2025-11-25 client learns of prompts, resources and
// completions from initialize.
func TestInitializeAdvertisesFeatures(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	status, _, raw := e.post(t, "POST", mcp.Path, strings.Replace(initialize, "2025-06-18", "2025-11-25", 1), mcpHeaders(f.Agent.Key)...)
	var res struct {
		Result struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &res); status != http.StatusOK || err != nil {
		t.Fatalf("initialize: %d %s", status, raw)
	}
	for _, c := range []string{"tools", "prompts", "resources", "completions"} {
		if _, ok := res.Result.Capabilities[c]; !ok {
			t.Errorf("initialize capabilities lack %s: %s", c, raw)
		}
	}
	// A 2026-07-28 client reads them from server/discover.
	c := e.client(t, f.Agent.Key, "")
	disc, err := c.Discover(context.Background(), mcpgo.DiscoverRequest{})
	if err != nil {
		t.Fatalf("server/discover: %v", err)
	}
	if caps := disc.Capabilities; caps.Prompts == nil || caps.Resources == nil || caps.Completions == nil || caps.Tools == nil {
		t.Fatalf("server/discover capabilities: %+v", caps)
	}
}

// TestPromptsFollowTheGates: prompts/list shows a prompt only when the caller may run the
// tools it names; prompts/get of a hidden one answers as an unknown prompt; the list stays
// within 8 KB.
func TestPromptsFollowTheGates(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	tasksOnly := storetest.AddUser(t, e.store, f.WorkspaceID, "member", nil, []string{"tasks:read"})
	all := []string{"account_brief", "meeting_prep", "overdue_triage", "pipeline_review", "weekly_client_update"}
	cases := []struct {
		name, bearer string
		want         []string
	}{
		{"agent key with crm", f.Agent.Key, all},
		{"member without grants", e.token(f.Member), []string{"overdue_triage", "weekly_client_update"}},
		{"tasks:read only", e.token(tasksOnly), []string{"overdue_triage"}},
	}
	for _, version := range versions {
		for _, c := range cases {
			t.Run(version+" "+c.name, func(t *testing.T) {
				_, a := e.rpc(t, mcp.Path, c.bearer, version, "prompts/list", nil)
				var pl promptList
				a.ok(t, &pl)
				if got := pl.names(); !slices.Equal(got, c.want) {
					t.Fatalf("prompts/list: %v, want %v", got, c.want)
				}
				if a.size > 8192 {
					t.Fatalf("prompts/list is %d bytes, over 8 KB", a.size)
				}
				t.Logf("prompts/list: %d prompts, %d bytes", len(pl.Prompts), a.size)
				if !slices.Contains(c.want, "pipeline_review") {
					status, a := e.rpc(t, mcp.Path, c.bearer, version, "prompts/get",
						map[string]any{"name": "pipeline_review", "arguments": map[string]any{"pipeline": "Sales"}})
					wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
				}
			})
		}
	}
}

// TestPromptGet: arguments name records by name or id, resolved through the operation
// layer; the text names the tools and the record's id; bad arguments, and a record of
// another workspace, are invalid params.
func TestPromptGet(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	tok := crmAdmin(t, e, f.WorkspaceID)
	acme := e.mustCreate(t, tok, "companies", `{"name": "Acme Rockets", "industry": "Aerospace"}`)
	other := storetest.Workspace(t, e.store, nil)
	hidden := e.mustCreate(t, crmAdmin(t, e, other.WorkspaceID), "companies", `{"name": "Acme Hidden"}`)
	space := e.mustCreate(t, tok, "spaces", `{"name": "Globex"}`)
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			for _, company := range []string{"acme", "Acme Rockets", acme["id"].(string)} {
				_, a := e.rpc(t, mcp.Path, tok, version, "prompts/get",
					map[string]any{"name": "account_brief", "arguments": map[string]any{"company": company}})
				var pr promptResult
				a.ok(t, &pr)
				text := pr.text(t)
				if strings.Contains(text, hidden["id"].(string)) {
					t.Fatalf("account_brief for %q names another workspace's company:\n%s", company, text)
				}
				for _, want := range []string{acme["id"].(string), `"Acme Rockets"`, "`get_companies`", "`list_people`", "`list_deals`",
					"workspaced://companies/" + acme["id"].(string)} {
					if !strings.Contains(text, want) {
						t.Fatalf("account_brief for %q lacks %s:\n%s", company, want, text)
					}
				}
			}
			// On the default view, spaces are not listed: the prompt says to use call_tool.
			_, a := e.rpc(t, mcp.Path, tok, version, "prompts/get",
				map[string]any{"name": "weekly_client_update", "arguments": map[string]any{"space": "glob"}})
			var pr promptResult
			a.ok(t, &pr)
			if text := pr.text(t); !strings.Contains(text, space["id"].(string)) || !strings.Contains(text, "`call_tool` with name `get_spaces`") ||
				!strings.Contains(text, "`list_tasks`") || !strings.Contains(text, "create_space_updates") {
				t.Fatalf("weekly_client_update:\n%s", text)
			}
			// A member by email, a space by id: the text filters list_tasks by both.
			_, a = e.rpc(t, mcp.Path, tok, version, "prompts/get", map[string]any{"name": "overdue_triage",
				"arguments": map[string]any{"assignee": f.Admin.Email, "space": space["id"]}})
			a.ok(t, &pr)
			if text := pr.text(t); !strings.Contains(text, `{field: assignee_id, op: eq, value: "`+f.Admin.UserID+`"}`) ||
				!strings.Contains(text, `{field: space_id, op: eq, value: "`+space["id"].(string)+`"}`) || !strings.Contains(text, "`update_tasks`") {
				t.Fatalf("overdue_triage:\n%s", text)
			}
			// Read-only: the prompt offers no write.
			_, a = e.rpc(t, mcp.Path+"/readonly", tok, version, "prompts/get",
				map[string]any{"name": "weekly_client_update", "arguments": map[string]any{"space": space["id"]}})
			a.ok(t, &pr)
			if text := pr.text(t); strings.Contains(text, "create_space_updates") {
				t.Fatalf("a read-only view's prompt offers a write:\n%s", text)
			}
			bad := []struct {
				name string
				args map[string]any
			}{
				{"missing required", map[string]any{}},
				{"unknown argument", map[string]any{"company": "acme", "colour": "red"}},
				{"no match", map[string]any{"company": "Initech"}},
				{"another workspace's id", map[string]any{"company": hidden["id"]}},
				{"another workspace's name", map[string]any{"company": "Acme Hidden"}},
			}
			for _, b := range bad {
				status, a := e.rpc(t, mcp.Path, tok, version, "prompts/get", map[string]any{"name": "account_brief", "arguments": b.args})
				wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
			}
			status, a := e.rpc(t, mcp.Path, tok, version, "prompts/get",
				map[string]any{"name": "pipeline_review", "arguments": map[string]any{"pipeline": "x", "period": "decade"}})
			wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
			if !strings.Contains(a.Error.Message, "week, month, quarter") {
				t.Fatalf("a bad period should name the valid ones: %s", a.Error.Message)
			}
		})
	}
}

type readResult struct {
	Contents []struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"contents"`
}

// TestRecordResources: workspaced://<resource>/{id} reads what get_ reads, as JSON and as
// markdown; a record of another workspace, or one that does not exist, is the spec's
// "resource not found" with data.uri, never an empty content list; a member without the
// grant is refused as get_ refuses it; a token bound to another view finds nothing.
func TestRecordResources(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	tok := crmAdmin(t, e, f.WorkspaceID)
	acme := e.mustCreate(t, tok, "companies", `{"name": "Acme Rockets", "industry": "Aerospace", "notes": "`+strings.Repeat("long ", 100)+`"}`)
	other := storetest.Workspace(t, e.store, nil)
	hidden := e.mustCreate(t, crmAdmin(t, e, other.WorkspaceID), "companies", `{"name": "Acme Hidden"}`)
	bound := func() string {
		p := storetest.AddUser(t, e.store, f.WorkspaceID, "admin", map[string]string{"crm": "full", "hr": "full"}, workspace.Scopes())
		p.Credential.Resource = e.srv.URL + "/mcp/x/hr"
		return e.token(p)
	}()
	uri := "workspaced://companies/" + acme["id"].(string)
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			_, a := e.rpc(t, mcp.Path, tok, version, "resources/read", map[string]any{"uri": uri})
			var rr readResult
			a.ok(t, &rr)
			if len(rr.Contents) != 2 || rr.Contents[0].MIMEType != "application/json" || rr.Contents[1].MIMEType != "text/markdown" {
				t.Fatalf("want JSON and markdown contents, got %+v", rr.Contents)
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(rr.Contents[0].Text), &rec); err != nil || rec["id"] != acme["id"] || rec["industry"] != "Aerospace" {
				t.Fatalf("JSON content %s", rr.Contents[0].Text)
			}
			md := rr.Contents[1].Text
			if !strings.HasPrefix(md, "# Acme Rockets\n") || !strings.Contains(md, "- **industry**: Aerospace") || len(md) > 1500 {
				t.Fatalf("markdown content (%d bytes):\n%s", len(md), md)
			}
			for _, c := range rr.Contents {
				if c.URI != uri {
					t.Fatalf("content uri %s, want %s", c.URI, uri)
				}
			}
			missing := []string{
				"workspaced://companies/" + hidden["id"].(string),             // RLS: another workspace's record
				"workspaced://companies/00000000-0000-4000-8000-000000000000", // no such record
				"workspaced://companies/not-an-id",
				"workspaced://companies/" + acme["id"].(string) + "/people", // no template matches
				"workspaced://nothing/" + acme["id"].(string),
			}
			for _, u := range missing {
				status, a := e.rpc(t, mcp.Path, tok, version, "resources/read", map[string]any{"uri": u})
				wantRPCError(t, version, status, a, notFoundCode(version))
				if a.Error.Data["uri"] != u {
					t.Fatalf("not found for %s: data %v, want data.uri", u, a.Error.Data)
				}
			}
			// A token bound to /mcp/x/hr reads no company.
			status, a := e.rpc(t, "/mcp/x/hr", bound, version, "resources/read", map[string]any{"uri": uri})
			wantRPCError(t, version, status, a, notFoundCode(version))
			// A member without the crm grant: refused as get_companies is.
			status, a = e.rpc(t, mcp.Path, e.token(f.Member), version, "resources/read", map[string]any{"uri": uri})
			wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
			if a.Error.Data["error"] != "insufficient_permission" || a.Error.Data["uri"] != uri || a.Error.Data["request_id"] == "" {
				t.Fatalf("a member without the grant: data %v, want insufficient_permission with uri and request_id", a.Error.Data)
			}
			get := e.callOn(t, mcp.Path, e.token(f.Member), "get_companies", `{"id":"`+acme["id"].(string)+`"}`)
			if !get.Result.IsError || !strings.Contains(get.Result.Content[0].Text, "insufficient_permission") {
				t.Fatalf("get_companies for the same member: %+v", get.Result)
			}
		})
	}
}

type resourceList struct {
	Resources []struct {
		URI string `json:"uri"`
	} `json:"resources"`
	ResourceTemplates []struct {
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
	} `json:"resourceTemplates"`
}

// TestResourceListings: resources/list names the overview, the pipelines and the field
// catalogue the caller may read, within 8 KB; templates follow the caller's gates and the
// connection's toolsets.
func TestResourceListings(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	tok := crmAdmin(t, e, f.WorkspaceID)
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			for _, c := range []struct {
				name, bearer string
				want         []string
			}{
				{"crm admin", tok, []string{"workspaced://fields", "workspaced://overview", "workspaced://pipelines"}},
				{"member without grants", e.token(f.Member), []string{"workspaced://fields", "workspaced://overview"}},
			} {
				_, a := e.rpc(t, mcp.Path, c.bearer, version, "resources/list", nil)
				var rl resourceList
				a.ok(t, &rl)
				var got []string
				for _, r := range rl.Resources {
					got = append(got, r.URI)
				}
				if !slices.Equal(got, c.want) {
					t.Fatalf("%s: resources/list %v, want %v", c.name, got, c.want)
				}
				if a.size > 8192 {
					t.Fatalf("resources/list is %d bytes, over 8 KB", a.size)
				}
				t.Logf("%s: resources/list %d bytes", c.name, a.size)
			}
			templates := func(bearer string, headers ...string) []string {
				_, a := e.rpc(t, mcp.Path, bearer, version, "resources/templates/list", nil, headers...)
				var rl resourceList
				a.ok(t, &rl)
				var got []string
				for _, tl := range rl.ResourceTemplates {
					if tl.URITemplate != "workspaced://"+tl.Name+"/{id}" {
						t.Fatalf("template %s named %s", tl.URITemplate, tl.Name)
					}
					got = append(got, tl.Name)
				}
				t.Logf("resources/templates/list %v: %d bytes", headers, a.size)
				return got
			}
			if got := templates(tok); !slices.Equal(got, []string{"companies", "deal_tasks", "deals", "people", "tasks"}) {
				t.Fatalf("default templates: %v", got)
			}
			if got := templates(e.token(f.Member)); !slices.Equal(got, []string{"tasks"}) {
				t.Fatalf("default templates for a member without grants: %v", got)
			}
			if got := templates(tok, mcp.HeaderToolsets, "all"); !slices.Contains(got, "team_members") && len(got) < 30 {
				t.Fatalf("templates of all toolsets: %v", got)
			}
		})
	}
}

// TestDocumentResources: the overview names the caller and the records it may read; the
// pipelines document carries each pipeline's stages in position order.
func TestDocumentResources(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	tok := crmAdmin(t, e, f.WorkspaceID)
	pl := e.mustCreate(t, tok, "pipelines", `{"name": "New business"}`)
	for i, name := range []string{"Won", "Lead", "Proposal"} {
		e.mustCreate(t, tok, "pipeline_stages", fmt.Sprintf(`{"pipeline_id": %q, "name": %q, "position": %d}`, pl["id"], name, []int{3, 1, 2}[i]))
	}
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			_, a := e.rpc(t, mcp.Path, tok, version, "resources/read", map[string]any{"uri": "workspaced://pipelines"})
			var rr readResult
			a.ok(t, &rr)
			var doc struct {
				Pipelines []struct {
					ID     string `json:"id"`
					Stages []struct {
						Name string `json:"name"`
					} `json:"stages"`
				} `json:"pipelines"`
			}
			if err := json.Unmarshal([]byte(rr.Contents[0].Text), &doc); err != nil || len(doc.Pipelines) != 1 {
				t.Fatalf("pipelines document: %s", rr.Contents[0].Text)
			}
			var stages []string
			for _, s := range doc.Pipelines[0].Stages {
				stages = append(stages, s.Name)
			}
			if !slices.Equal(stages, []string{"Lead", "Proposal", "Won"}) {
				t.Fatalf("stages %v, want Lead, Proposal, Won", stages)
			}
			if !strings.Contains(rr.Contents[1].Text, "1. Lead") {
				t.Fatalf("pipelines markdown:\n%s", rr.Contents[1].Text)
			}
			_, a = e.rpc(t, mcp.Path, tok, version, "resources/read", map[string]any{"uri": "workspaced://overview"})
			a.ok(t, &rr)
			if !strings.Contains(rr.Contents[0].Text, `"uri_template":"workspaced://deals/{id}"`) || !strings.Contains(rr.Contents[0].Text, `"account_brief"`) {
				t.Fatalf("overview: %s", rr.Contents[0].Text)
			}
			status, a := e.rpc(t, mcp.Path, e.token(f.Member), version, "resources/read", map[string]any{"uri": "workspaced://pipelines"})
			wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
			if a.Error.Data["error"] != "insufficient_scope" && a.Error.Data["error"] != "insufficient_permission" {
				t.Fatalf("pipelines for a member without scopes: %v", a.Error.Data)
			}
		})
	}
}

type completion struct {
	Completion struct {
		Values  []string `json:"values"`
		HasMore bool     `json:"hasMore"`
	} `json:"completion"`
}

// TestCompletions: prompt arguments complete to names, template ids to ids, at most 10,
// only over records the caller can read.
func TestCompletions(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	tok := crmAdmin(t, e, f.WorkspaceID)
	acme := e.mustCreate(t, tok, "companies", `{"name": "Acme Rockets"}`)
	for i := range 12 {
		e.mustCreate(t, tok, "companies", fmt.Sprintf(`{"name": "Zeta %d"}`, i))
	}
	other := storetest.Workspace(t, e.store, nil)
	e.mustCreate(t, crmAdmin(t, e, other.WorkspaceID), "companies", `{"name": "Acme Hidden"}`)
	complete := func(t *testing.T, version, bearer string, ref map[string]any, arg, value string) (int, rpcReply) {
		return e.rpc(t, mcp.Path, bearer, version, "completion/complete",
			map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}})
	}
	prompt := map[string]any{"type": "ref/prompt", "name": "account_brief"}
	template := map[string]any{"type": "ref/resource", "uri": "workspaced://companies/{id}"}
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			var c completion
			_, a := complete(t, version, tok, prompt, "company", "acm")
			a.ok(t, &c)
			if !slices.Equal(c.Completion.Values, []string{"Acme Rockets"}) {
				t.Fatalf("company acm: %v", c.Completion.Values)
			}
			_, a = complete(t, version, tok, prompt, "company", "zeta")
			a.ok(t, &c)
			if len(c.Completion.Values) != 10 || !c.Completion.HasMore {
				t.Fatalf("company zeta: %d values, hasMore %v; want 10 and more", len(c.Completion.Values), c.Completion.HasMore)
			}
			_, a = complete(t, version, tok, template, "id", "acme")
			a.ok(t, &c)
			if !slices.Equal(c.Completion.Values, []string{acme["id"].(string)}) {
				t.Fatalf("template id acme: %v", c.Completion.Values)
			}
			_, a = complete(t, version, tok, map[string]any{"type": "ref/prompt", "name": "pipeline_review"}, "period", "m")
			a.ok(t, &c)
			if !slices.Equal(c.Completion.Values, []string{"month"}) {
				t.Fatalf("period m: %v", c.Completion.Values)
			}
			// Members complete by name or email.
			_, a = complete(t, version, tok, map[string]any{"type": "ref/prompt", "name": "overdue_triage"}, "assignee", strings.Split(f.Member.Email, "@")[0])
			a.ok(t, &c)
			if !slices.Contains(c.Completion.Values, f.Member.Email) {
				t.Fatalf("assignee %s: %v", f.Member.Email, c.Completion.Values)
			}
			// A member without the crm grant has neither the prompt nor the template.
			status, a := complete(t, version, e.token(f.Member), prompt, "company", "acm")
			wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
			status, a = complete(t, version, e.token(f.Member), template, "id", "acm")
			wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
			status, a = complete(t, version, tok, prompt, "colour", "r")
			wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
		})
	}
}

// TestFeatureReadsShareTheBudget: a record read, a prompt that names a record and a record
// completion are each charged as one tool call; listings are not. Over budget, the
// answer is invalid params saying how long to wait.
func TestFeatureReadsShareTheBudget(t *testing.T) {
	lim, err := ratelimit.New(ratelimit.Config{PerCredential: 3, PerWorkspace: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lim.Close() })
	e := newEnv(t, func(c *envConfig) { c.limiter = lim })
	f := storetest.Workspace(t, e.store, nil)
	space := e.mustCreate(t, f.Agent.Key, "spaces", `{"name": "Globex"}`) // REST: 1
	v := mcpgo.ProtocolVersion20251125
	_, a := e.rpc(t, mcp.Path, f.Agent.Key, v, "resources/read", map[string]any{"uri": "workspaced://spaces/" + space["id"].(string)}) // 2
	a.ok(t, &readResult{})
	_, a = e.rpc(t, mcp.Path, f.Agent.Key, v, "prompts/list", nil) // not charged
	a.ok(t, &promptList{})
	_, a = e.rpc(t, mcp.Path, f.Agent.Key, v, "completion/complete", map[string]any{ // 3
		"ref": map[string]any{"type": "ref/prompt", "name": "weekly_client_update"}, "argument": map[string]any{"name": "space", "value": "glo"}})
	a.ok(t, &completion{})
	status, a := e.rpc(t, mcp.Path, f.Agent.Key, v, "prompts/get",
		map[string]any{"name": "weekly_client_update", "arguments": map[string]any{"space": "Globex"}})
	wantRPCError(t, v, status, a, mcpgo.INVALID_PARAMS)
	if a.Error.Data["error"] != "rate_limited" || a.Error.Data["retry_after"] == nil || !strings.Contains(a.Error.Message, "retry in") {
		t.Fatalf("over budget: %s %v", a.Error.Message, a.Error.Data)
	}
}

// TestRecordResourcesPassGetsGates: resources/read of a record answers as get_ of it for
// the same caller: a token whose scopes do not cover the record's type is refused with
// get_'s insufficient_scope (-32602, data.error and data.uri), and a record of the caller's
// own workspace that row-level security hides from it (another member's private task) is
// "resource not found" with data.uri, as get_ answers not_found.
func TestRecordResourcesPassGetsGates(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := crmAdmin(t, e, f.WorkspaceID)
	acme := e.mustCreate(t, admin, "companies", `{"name": "Acme Rockets"}`)["id"].(string)
	space := e.mustCreate(t, admin, "spaces", `{"name": "Client"}`)["id"].(string)
	secret := e.mustCreate(t, admin, "tasks", `{"name": "Acme secret", "space_id": "`+space+`", "is_private": true}`)["id"].(string)
	open := e.mustCreate(t, admin, "tasks", `{"name": "Acme kickoff", "space_id": "`+space+`"}`)["id"].(string)
	// Every feature grant, but only the deals scopes: companies:read is not among them.
	narrow := e.token(storetest.AddUser(t, e.store, f.WorkspaceID, "admin", map[string]string{"crm": "full"},
		[]string{"deals:read", "deals:write"}))
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			uri := "workspaced://companies/" + acme
			status, a := e.rpc(t, mcp.Path, narrow, version, "resources/read", map[string]any{"uri": uri})
			wantRPCError(t, version, status, a, mcpgo.INVALID_PARAMS)
			get := e.callOn(t, mcp.Path, narrow, "get_companies", `{"id":"`+acme+`"}`)
			if a.Error.Data["error"] != "insufficient_scope" || a.Error.Data["uri"] != uri ||
				!get.Result.IsError || !strings.Contains(get.Result.Content[0].Text, `"insufficient_scope"`) {
				t.Fatalf("a token without companies:read: read data %v; get_companies %+v", a.Error.Data, get.Result)
			}
			// The agent reads the space's open task, not the admin's private one.
			_, a = e.rpc(t, mcp.Path, f.Agent.Key, version, "resources/read", map[string]any{"uri": "workspaced://tasks/" + open})
			var rr readResult
			a.ok(t, &rr)
			uri = "workspaced://tasks/" + secret
			status, a = e.rpc(t, mcp.Path, f.Agent.Key, version, "resources/read", map[string]any{"uri": uri})
			wantRPCError(t, version, status, a, notFoundCode(version))
			get = e.callOn(t, mcp.Path, f.Agent.Key, "get_tasks", `{"id":"`+secret+`"}`)
			if a.Error.Data["uri"] != uri || !get.Result.IsError || !strings.Contains(get.Result.Content[0].Text, `"not_found"`) {
				t.Fatalf("another member's private task: read data %v; get_tasks %+v", a.Error.Data, get.Result)
			}
		})
	}
}
