package mcp_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store/storetest"
)

func TestAgentKeySeesEveryTool(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	for _, version := range []string{"", mcpgo.ProtocolVersion20251125, mcpgo.ProtocolVersion20250618} {
		t.Run("version "+version, func(t *testing.T) {
			c := e.client(t, f.Agent.Key, version)
			var want []string
			for _, tl := range e.mcp.Tools() {
				want = append(want, tl.Name)
			}
			slices.Sort(want)
			got := toolNames(t, c)
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("tools/list for an agent key (-want +got):\n%s", diff)
			}
			me := wantOK(t, call(t, c, "me", nil))
			if user := me["user"].(map[string]any); user["id"] != f.Agent.UserID {
				t.Fatalf("me answers user %v, want the agent's %s", user["id"], f.Agent.UserID)
			}
		})
	}
}

func TestNarrowTokenSeesOnlyItsTools(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	p := storetest.AddUser(t, e.store, f.WorkspaceID, "member", map[string]string{"crm": "full"}, []string{"deals:read", "labels:*"})
	c := e.client(t, e.token(p), "")
	want := []string{"create_labels", "get_crm_files", "get_deals", "get_labels", "list_crm_files", "list_deal_labels",
		"list_deal_people", "list_deals", "list_labels", "me", "update_labels"}
	got := toolNames(t, c)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("tools/list for deals:read labels:* (-want +got):\n%s", diff)
	}
	body := wantToolError(t, call(t, c, "create_deals", map[string]any{"name": "x", "pipeline_id": "00000000-0000-0000-0000-000000000000"}),
		"insufficient_scope")
	if !strings.Contains(body["message"].(string), "deals:write") {
		t.Fatalf("message should name the missing scope: %v", body["message"])
	}
	wantToolError(t, call(t, c, "enrich_company", map[string]any{"domain": "example.com"}), "insufficient_scope")
}

func TestMemberWithoutCRMGrant(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, restapi.Scopes())
	c := e.client(t, e.token(f.Member), "")
	if !slices.Contains(toolNames(t, c), "list_deals") {
		t.Fatal("list_deals is in scope and should be listed")
	}
	wantToolError(t, call(t, c, "list_deals", nil), "insufficient_permission")
}

func TestToolsAnnotatedAndFlat(t *testing.T) {
	e := newEnv(t)
	for _, tl := range e.mcp.Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			a := tl.Annotations
			if a.Title == "" || a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
				t.Fatalf("annotations incomplete: %+v", a)
			}
			if *a.DestructiveHint {
				t.Fatal("no tool is destructive")
			}
			read := strings.HasPrefix(tl.Name, "list_") || strings.HasPrefix(tl.Name, "get_") || tl.Name == "me"
			if *a.ReadOnlyHint != read {
				t.Fatalf("readOnlyHint %v", *a.ReadOnlyHint)
			}
			if strings.HasPrefix(tl.Name, "update_") && !*a.IdempotentHint {
				t.Fatal("updates are idempotent")
			}
			if *a.OpenWorldHint != (tl.Name == "enrich_company") {
				t.Fatalf("openWorldHint %v", *a.OpenWorldHint)
			}
			if len(tl.Description) < 60 {
				t.Fatalf("description too thin for a model: %q", tl.Description)
			}
			for what, raw := range map[string]json.RawMessage{"input": tl.RawInputSchema, "output": tl.RawOutputSchema} {
				var schema map[string]any
				if err := json.Unmarshal(raw, &schema); err != nil {
					t.Fatalf("%s schema: %v", what, err)
				}
				if schema["type"] != "object" {
					t.Fatalf("%s schema type %v, want object", what, schema["type"])
				}
				for _, k := range []string{"anyOf", "oneOf", "allOf", "not"} {
					if _, ok := schema[k]; ok {
						t.Fatalf("%s schema has a top-level %s", what, k)
					}
				}
			}
		})
	}
}

func TestToolCount(t *testing.T) {
	e := newEnv(t)
	want := 1 // me
	for _, r := range restapi.Catalog {
		for _, ok := range []bool{r.CanList(), r.CanGet(), r.CanCreate(), r.CanUpdate(), r.CanDetach()} {
			if ok {
				want++
			}
		}
	}
	if got := len(e.mcp.Tools()); got != want {
		t.Fatalf("%d tools, want %d: one per operation of the catalogue plus me", got, want)
	}
	f := storetest.Workspace(t, e.store, nil)
	status, _, body := e.post(t, "POST", mcp.Path, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		"Authorization", "Bearer "+f.Agent.Key, "Content-Type", "application/json",
		"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", mcpgo.ProtocolVersion20250618)
	if status != http.StatusOK {
		t.Fatalf("tools/list: %d %s", status, body)
	}
	t.Logf("%d tools; tools/list answers %d bytes for a full-scope credential", want, len(body))
}
