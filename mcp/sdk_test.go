package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// sdkDir holds the pinned MCP TypeScript SDK; .ci/test runs
// npm ci --prefix mcp/testdata/sdk-client before the Go tests.
var sdkDir = filepath.Join("testdata", "sdk-client")

// requireSDK fails (never skips) when node or the SDK's modules are missing: the test is
// part of the suite, and a silent skip would hide a broken client contract.
func requireSDK(t testing.TB) string {
	tooltest.Require(t, "node and the MCP TypeScript SDK (mcp/testdata/sdk-client)")
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required for the MCP TypeScript SDK tests: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the MCP TypeScript SDK is not installed; run: npm ci --prefix %s (%v)", sdkDir, err)
	}
	return node
}

// sdkCall is one tool call the SDK script makes.
type sdkCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// sdkAnswer is what agent-key.mjs prints.
type sdkAnswer struct {
	Protocol string   `json:"protocol"`
	Tools    []string `json:"tools"`
	Results  []struct {
		Name              string         `json:"name"`
		Asked             bool           `json:"asked"` // answered confirmation_required first
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Text              string         `json:"text"`
	} `json:"results"`
	Schemas map[string]json.RawMessage `json:"schemas"` // the listed input schemas of the tools SCHEMAS names
}

// runAgentKeySDK runs the SDK script against the env with key and calls.
func runAgentKeySDK(t testing.TB, e *env, key string, calls []sdkCall) sdkAnswer {
	t.Helper()
	node := requireSDK(t)
	callsJSON, _ := json.Marshal(calls)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "agent-key.mjs")
	cmd.Dir = sdkDir
	cmd.Env = append(os.Environ(), "MCP_URL="+e.srv.URL+"/mcp/x/all", "AGENT_KEY="+key, "CALLS="+string(callsJSON))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent-key.mjs: %v\n%s", err, stderr.String())
	}
	var out sdkAnswer
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("agent-key.mjs printed %q: %v", stdout.String(), err)
	}
	return out
}

// TestTypeScriptSDKWithAgentKey: the official SDK, configured with the agent-key header on
// /mcp/x/all, lists every tool and calls each kind on real records, also through
// call_tool and find_tools; it validates every result against the tool's output schema.
func TestTypeScriptSDKWithAgentKey(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	key := f.Agent.Key
	pipeline := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	deal := e.mustCreate(t, key, "deals", `{"name":"Acme","pipeline_id":"`+pipeline+`","value":1200.5}`)["id"].(string)
	label := e.mustCreate(t, key, "labels", `{"name":"VIP"}`)["id"].(string)
	e.mustCreate(t, key, "deal_labels", `{"deal_id":"`+deal+`","label_id":"`+label+`"}`)
	calls := []sdkCall{
		{Name: "me"},
		{Name: "list_deals", Arguments: map[string]any{"limit": 5, "pipeline_id": pipeline}},
		{Name: "get_deals", Arguments: map[string]any{"id": deal}},
		{Name: "create_people", Arguments: map[string]any{"name": "Ann", "email": "ann@example.com"}},
		{Name: "update_labels", Arguments: map[string]any{"id": label, "name": "Gold"}},
		{Name: "detach_deal_labels", Arguments: map[string]any{"deal_id": deal, "label_id": label}},
		{Name: "list_credits"},
		{Name: "get_workspace", Arguments: map[string]any{"id": f.WorkspaceID}},
		{Name: "enrich_company", Arguments: map[string]any{"domain": "example.com"}},
	}
	calls = append(calls, sdkCall{Name: "call_tool", Arguments: map[string]any{"name": "list_deals",
		"arguments": map[string]any{"pipeline_id": pipeline}}})
	calls = append(calls, sdkCall{Name: "find_tools", Arguments: map[string]any{"query": "add a label to a deal"}})
	out := runAgentKeySDK(t, e, key, calls)
	if want, _ := e.listTools(t, "/mcp/x/all", key); len(out.Tools) != len(want) || len(want) != 99 {
		t.Fatalf("the SDK sees %d tools on /mcp/x/all, want the agent key's 99", len(out.Tools))
	}
	for i, r := range out.Results {
		if r.IsError || r.StructuredContent == nil {
			t.Errorf("%s: error %v, structured %v, text %s", calls[i].Name, r.IsError, r.StructuredContent, r.Text)
		}
		// Detaching and enriching ask the user first; this client cannot show a form, so
		// it was answered confirmation_required and confirmed with the token.
		if want := calls[i].Name == "detach_deal_labels" || calls[i].Name == "enrich_company"; r.Asked != want {
			t.Errorf("%s: asked for confirmation %v, want %v", calls[i].Name, r.Asked, want)
		}
	}
	if got := out.Results[1].StructuredContent["data"].([]any); len(got) != 1 {
		t.Fatalf("list_deals: %v", got)
	}
	t.Logf("SDK negotiated protocol %s", out.Protocol)
}

// TestEveryReadMatchesItsOutputSchema: with one record in every resource table, the
// official SDK calls every list_ tool and the get_ of each listed record, validating
// every structuredContent against the tool's outputSchema (a mismatch fails the call).
func TestEveryReadMatchesItsOutputSchema(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	if err := e.store.SeedRecords(context.Background(), f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	if err := e.store.SeedEmptyTables(context.Background(), f.WorkspaceID, f.Admin.UserID, workspace.RecordTables()); err != nil {
		t.Fatal(err)
	}
	admin := *f.Admin
	admin.Scopes = workspace.Scopes()
	tok := e.token(&admin)
	c := e.client(t, tok, "", mcp.HeaderToolsets, "all")
	names := toolNames(t, c)
	calls := []sdkCall{{Name: "me"}}
	for _, name := range names {
		resource, ok := strings.CutPrefix(name, "list_")
		if !ok {
			continue
		}
		calls = append(calls, sdkCall{Name: name})
		data, _ := wantOK(t, call(t, c, name, nil))["data"].([]any)
		if len(data) == 0 {
			t.Errorf("%s: the seed left it empty, so its items go unchecked", name)
			continue
		}
		if slices.Contains(names, "get_"+resource) {
			calls = append(calls, sdkCall{Name: "get_" + resource, Arguments: map[string]any{"id": data[0].(map[string]any)["id"]}})
		}
	}
	out := runAgentKeySDK(t, e, tok, calls)
	if len(out.Results) != len(calls) {
		t.Fatalf("%d results for %d calls", len(out.Results), len(calls))
	}
	for i, r := range out.Results {
		if r.IsError || r.StructuredContent == nil {
			t.Errorf("%s: error %v, text %s", calls[i].Name, r.IsError, r.Text)
		}
	}
	t.Logf("%d reads validated against their output schemas", len(calls))
}
