package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// inspectorCLI is the pinned MCP Inspector's CLI; .ci/test runs npm ci in its folder.
var inspectorCLI = filepath.Join("testdata", "inspector", "node_modules", "@modelcontextprotocol", "inspector",
	"clients", "cli", "build", "index.js")

// TestInspectorStrictPortability runs the MCP Inspector CLI in strict mode over every tool
// (X-MCP-Toolsets: all, an admin with every scope), configured with the --config snippet
// docs/mcp.md prints ("type": "http"), and wants no schema-portability finding at all:
// no type lists, no untyped schemas, no remote $ref.
func TestInspectorStrictPortability(t *testing.T) {
	tooltest.Require(t, "node and the MCP Inspector (mcp/testdata/inspector)")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required for the MCP Inspector test: %v", err)
	}
	if _, err := os.Stat(inspectorCLI); err != nil {
		t.Fatalf("the MCP Inspector is not installed; run: npm ci --prefix mcp/testdata/inspector (%v)", err)
	}
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := *f.Admin
	admin.Scopes = workspace.Scopes()
	config := map[string]any{"mcpServers": map[string]any{"workspaced": map[string]any{
		"type":    "http",
		"url":     e.srv.URL + mcp.Path,
		"headers": map[string]string{"Authorization": "Bearer " + e.token(&admin), mcp.HeaderToolsets: "all"},
	}}}
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	raw, _ := json.Marshal(config)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, inspectorCLI, "--config", path, "--server", "workspaced",
		"--method", "tools/list", "--strict", "--format", "json")
	cmd.Env = append(os.Environ(), "HOME="+dir, "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	var out struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
		SchemaFindings []any `json:"schemaFindings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("inspector printed %q: %v", stdout.String(), err)
	}
	// Every tool the server registered, however many the catalogue makes (TestToolSnapshots
	// keeps one file a tool under testdata/tools).
	if want := len(e.mcp.Tools()); len(out.Result.Tools) != want {
		t.Fatalf("the Inspector sees %d tools, want all %d", len(out.Result.Tools), want)
	}
	if len(out.SchemaFindings) > 0 || strings.Contains(stderr.String(), "Warning") || strings.Contains(stderr.String(), "Error") {
		t.Fatalf("portability findings:\n%s\n%v", stderr.String(), out.SchemaFindings)
	}
}
