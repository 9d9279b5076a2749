package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
)

// sdkDir holds the pinned MCP TypeScript SDK; .ci/test runs
// npm ci --prefix mcp/testdata/sdk-client before the Go tests.
var sdkDir = filepath.Join("testdata", "sdk-client")

// requireSDK fails (never skips) when node or the SDK's modules are missing: the test is
// part of the suite, and a silent skip would hide a broken client contract.
func requireSDK(t testing.TB) string {
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
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Text              string         `json:"text"`
	} `json:"results"`
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
	cmd.Env = append(os.Environ(), "MCP_URL="+e.srv.URL+"/mcp", "AGENT_KEY="+key, "CALLS="+string(callsJSON))
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

// TestTypeScriptSDKWithAgentKey: the official SDK, configured with the agent-key header,
// lists every tool and calls each kind; it validates results against the output schemas.
func TestTypeScriptSDKWithAgentKey(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	id := "6f1c0c1e-8d1b-4c55-9a57-8a4c2e7b8f10"
	calls := []sdkCall{
		{Name: "me"},
		{Name: "list_deals", Arguments: map[string]any{"limit": 5}},
		{Name: "get_deals", Arguments: map[string]any{"id": id}},
		{Name: "create_labels", Arguments: map[string]any{"name": "VIP"}},
		{Name: "update_labels", Arguments: map[string]any{"id": id, "name": "Gold"}},
		{Name: "detach_deal_labels", Arguments: map[string]any{"deal_id": id, "label_id": id}},
		{Name: "enrich_company", Arguments: map[string]any{"domain": "example.com"}},
	}
	out := runAgentKeySDK(t, e, f.Agent.Key, calls)
	if len(out.Tools) != len(e.mcp.Tools()) {
		t.Fatalf("the SDK sees %d tools, want %d", len(out.Tools), len(e.mcp.Tools()))
	}
	for i, r := range out.Results {
		if r.IsError || r.StructuredContent == nil {
			t.Errorf("%s: error %v, structured %v, text %s", calls[i].Name, r.IsError, r.StructuredContent, r.Text)
		}
	}
	t.Logf("SDK negotiated protocol %s", out.Protocol)
}
