package main

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
)

// TestBannerSnippets runs the start banner's MCP client configurations as printed: the
// mcpServers JSON through the MCP Inspector CLI's --config, the mcp-remote command line
// over stdio, and checks the VS Code JSON and the claude command line are well-formed.
func TestBannerSnippets(t *testing.T) {
	tooltest.Require(t, "node, the MCP Inspector and mcp-remote (mcp/testdata)")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required: %v", err)
	}
	inspector := filepath.Join("..", "..", "mcp", "testdata", "inspector", "node_modules", "@modelcontextprotocol",
		"inspector", "clients", "cli", "build", "index.js")
	for _, p := range []string{inspector, filepath.Join(mcpRemoteDir, "node_modules", "mcp-remote", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("run npm ci in mcp/testdata/inspector and mcp/testdata/mcp-remote: %v", err)
		}
	}
	ts, s := startServer(t)
	demo, err := s.SeedDemo(t.Context(), func(p string) (string, error) { return "x:" + p, nil })
	if err != nil {
		t.Fatal(err)
	}
	snippet := func(prefix string) string {
		for _, line := range strings.Split(mcpSnippets(ts.URL+"/mcp", demo.AgentKey), "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, prefix) {
				return line
			}
		}
		t.Fatalf("no snippet starting %q", prefix)
		return ""
	}

	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(config, []byte(snippet(`{"mcpServers"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, inspector, "--config", config, "--server", "workspaced", "--method", "tools/list")
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector with the banner's config: %v\n%s", err, stderr.String())
	}
	var listed struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &listed); err != nil || len(listed.Tools) < 3 || len(listed.Tools) > 32 {
		t.Fatalf("inspector listed %s (%v)", stdout.String(), err)
	}

	var vscode struct {
		Servers map[string]struct {
			Type, URL string
			Headers   map[string]string
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(snippet(`{"servers"`)), &vscode); err != nil ||
		vscode.Servers["workspaced"].Type != "http" || vscode.Servers["workspaced"].URL != ts.URL+"/mcp" ||
		vscode.Servers["workspaced"].Headers["Authorization"] != "Bearer "+demo.AgentKey {
		t.Fatalf("VS Code snippet: %+v (%v)", vscode, err)
	}
	if want := "claude mcp add --transport http workspaced " + ts.URL + "/mcp --header \"Authorization: Bearer " +
		demo.AgentKey + "\""; snippet("claude ") != want {
		t.Fatalf("claude snippet %q, want %q", snippet("claude "), want)
	}

	// mcp-remote with the banner's arguments (npx -y mcp-remote@<pinned> URL --header "...").
	line := snippet("npx -y mcp-remote@")
	pinned, _ := os.ReadFile(filepath.Join(mcpRemoteDir, "package.json"))
	var pkg struct{ Dependencies map[string]string }
	_ = json.Unmarshal(pinned, &pkg)
	fields := strings.Fields(line)
	if fields[2] != "mcp-remote@"+pkg.Dependencies["mcp-remote"] {
		t.Fatalf("the banner names %s, the tests pin mcp-remote %s", fields[2], pkg.Dependencies["mcp-remote"])
	}
	args := strings.SplitN(strings.TrimPrefix(line, "npx -y "+fields[2]+" "), " --header ", 2)
	remote := startMCPRemoteArgs(t, node, filepath.Join(dir, "mcp-auth"), nil, args[0], "--header", strings.Trim(args[1], `"`))
	remote.finish(remote.initialize())
	tools := toolList(remote.request("tools/list", map[string]any{}))
	if !slices.Contains(tools, "find_tools") || len(tools) != len(listed.Tools) {
		t.Fatalf("mcp-remote with the banner's arguments lists %v", tools)
	}
}
