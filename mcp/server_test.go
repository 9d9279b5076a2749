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
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestAgentKeySeesEveryTool: an agent key on every protocol version lists, with
// X-MCP-Toolsets: all, every tool its scopes and its agent user's grants allow.
func TestAgentKeySeesEveryTool(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	for _, version := range []string{"", mcpgo.ProtocolVersion20251125, mcpgo.ProtocolVersion20250618} {
		t.Run("version "+version, func(t *testing.T) {
			c := e.client(t, f.Agent.Key, version, mcp.HeaderToolsets, "all")
			got := toolNames(t, c)
			if len(got) != 99 {
				t.Fatalf("tools/list for an agent key: %d tools, want 99", len(got))
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
	c := e.client(t, e.token(p), "", mcp.HeaderToolsets, "all")
	want := []string{"call_tool", "create_labels", "find_tools", "get_crm_files", "get_deals", "get_labels", "import_records", "list_crm_files",
		"list_deal_labels", "list_deal_people", "list_deals", "list_labels", "me", "search", "update_labels"}
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

// TestMemberWithoutCRMGrant: tools the member's grants cannot pass are not listed, and a
// call is still refused by the gate at call time.
func TestMemberWithoutCRMGrant(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.client(t, e.token(f.Member), "", mcp.HeaderToolsets, "all")
	if slices.Contains(toolNames(t, c), "list_deals") {
		t.Fatal("list_deals needs the crm grant this member lacks; it should not be listed")
	}
	wantToolError(t, call(t, c, "list_deals", nil), "insufficient_permission")
	wantToolError(t, call(t, c, "call_tool", map[string]any{"name": "list_deals"}), "insufficient_permission")
}

func TestToolsAnnotatedAndFlat(t *testing.T) {
	e := newEnv(t)
	for _, tl := range e.mcp.Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			a := tl.Annotations
			// MCP ToolAnnotations defaults: destructiveHint and openWorldHint true, so they
			// must be spelled (destructiveHint only where it means something, on tools
			// that are not read-only); readOnlyHint and idempotentHint false when absent,
			// idempotentHint meaningless on a read-only tool.
			readOnly := a.ReadOnlyHint != nil && *a.ReadOnlyHint
			if a.OpenWorldHint == nil || (!readOnly && a.DestructiveHint == nil) {
				t.Fatalf("destructiveHint and openWorldHint must be explicit: %+v", a)
			}
			idempotent := a.IdempotentHint != nil && *a.IdempotentHint
			if a.DestructiveHint != nil && *a.DestructiveHint {
				t.Fatal("no tool is destructive")
			}
			if readOnly && (a.DestructiveHint != nil || a.IdempotentHint != nil) {
				t.Fatalf("a read-only tool spells hints that mean nothing for it: %+v", a)
			}
			read := strings.HasPrefix(tl.Name, "list_") || strings.HasPrefix(tl.Name, "get_") || tl.Name == "me" || tl.Name == "find_tools" || tl.Name == "search"
			if readOnly != read {
				t.Fatalf("readOnlyHint %v", readOnly)
			}
			if strings.HasPrefix(tl.Name, "update_") && !idempotent {
				t.Fatal("updates are idempotent")
			}
			if *a.OpenWorldHint != (tl.Name == "enrich_company" || tl.Name == "call_tool") {
				t.Fatalf("openWorldHint %v", *a.OpenWorldHint)
			}
			// A description says what the tool does beyond its name: list_ adds the
			// resource's catalogue sentence, get_ names its list_. (Until tools/list listed
			// only the tools the caller may call, each also ended with what a call needs,
			// and this floor was 50 characters.)
			if len(tl.Description) < 25 {
				t.Fatalf("description too thin for a model: %q", tl.Description)
			}
			schemas := map[string]json.RawMessage{"input": tl.RawInputSchema, "output": tl.RawOutputSchema}
			for what, raw := range schemas {
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

// TestOnlyPOST: the endpoint pushes nothing and keeps no sessions, so GET (no event stream,
// MCP Streamable HTTP) and DELETE (no session to end) are 405s, as is every other method
// but POST: with Allow: POST and the service's JSON error envelope, on every view.
func TestOnlyPOST(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut, http.MethodHead} {
		for _, path := range []string{mcp.Path, mcp.Path + "/readonly"} {
			status, h, raw := e.post(t, method, path, "", "Authorization", "Bearer "+f.Agent.Key, "Accept", "text/event-stream")
			if status != http.StatusMethodNotAllowed || h.Get("Allow") != "POST" {
				t.Errorf("%s %s: %d, Allow %q, want 405 and Allow: POST", method, path, status, h.Get("Allow"))
			}
			if method == http.MethodHead {
				continue // no body
			}
			var body map[string]any
			if h.Get("Content-Type") != "application/json" || json.Unmarshal(raw, &body) != nil ||
				body["error"] != "method_not_allowed" || body["request_id"] != h.Get("X-Request-Id") ||
				!strings.Contains(body["message"].(string), method) {
				t.Errorf("%s %s: %s %s, want the JSON error envelope", method, path, h.Get("Content-Type"), raw)
			}
		}
	}
	// A browser's preflight is told the same: POST (and the preflight's OPTIONS) only.
	status, h, _ := e.post(t, http.MethodOptions, mcp.Path, "", "Origin", "http://localhost:6274", "Access-Control-Request-Method", "POST")
	if status != http.StatusNoContent || h.Get("Access-Control-Allow-Methods") != "POST, OPTIONS" {
		t.Errorf("preflight: %d, Access-Control-Allow-Methods %q, want 204 and POST, OPTIONS", status, h.Get("Access-Control-Allow-Methods"))
	}
}
