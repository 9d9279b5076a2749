package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/internal/tooltest"
)

// inspectorDir holds the MCP Inspector at the version the banner and docs name; .ci/test
// runs npm ci there.
var inspectorDir = filepath.Join("..", "..", "mcp", "testdata", "inspector")

// TestBannerSnippets runs the start banner's MCP client snippets as printed: the
// Inspector's npx command line on the mcpServers JSON saved as mcp.json, on the Node the
// banner names (22, from internal/tooltest), offline, so npx takes the pinned install and
// nothing else; the mcp-remote command line over stdio through npx the same way, on this
// machine's Node; and checks the VS Code JSON and the claude command line are well-formed.
func TestBannerSnippets(t *testing.T) {
	tooltest.Require(t, "node, the MCP Inspector and mcp-remote (mcp/testdata)")
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatalf("node and npx are required: %v", err)
	}
	path22 := tooltest.Node22Path(t)
	for _, p := range []string{filepath.Join(inspectorDir, "node_modules", "@modelcontextprotocol", "inspector", "package.json"),
		filepath.Join(mcpRemoteDir, "node_modules", "mcp-remote", "package.json")} {
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

	// The Inspector's line as printed, run in a folder that holds mcp.json and, as its
	// only dependency, the pinned Inspector.
	dir := t.TempDir()
	line := snippet("npx -y @modelcontextprotocol/inspector@")
	pin := pinned(t, inspectorDir, "@modelcontextprotocol/inspector")
	if fields := strings.Fields(line); fields[2] != "@modelcontextprotocol/inspector@"+pin {
		t.Fatalf("the banner names %s, the tests pin the Inspector %s", fields[2], pin)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(snippet(`{"mcpServers"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	writeNPMFolder(t, dir, "@modelcontextprotocol/inspector", pin, filepath.Join(inspectorDir, "node_modules"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := strings.Fields(line)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path22, "HOME="+dir, "npm_config_offline=true", "npm_config_update_notifier=false")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, stderr.String())
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
	line = snippet("npx -y mcp-remote@")
	fields := strings.Fields(line)
	if pin := pinned(t, mcpRemoteDir, "mcp-remote"); fields[2] != "mcp-remote@"+pin {
		t.Fatalf("the banner names %s, the tests pin mcp-remote %s", fields[2], pin)
	}
	// As printed, through npx, in a folder whose only dependency is the pinned mcp-remote,
	// offline: npx takes that install. The shell would unquote the header's value.
	remoteDir := t.TempDir()
	writeNPMFolder(t, remoteDir, "mcp-remote", fields[2][len("mcp-remote@"):], filepath.Join(mcpRemoteDir, "node_modules"))
	command, header, _ := strings.Cut(line, " --header ")
	argv := append(strings.Fields(command), "--header", strings.Trim(header, `"`))
	remote := startMCPRemoteCommand(t, remoteDir, filepath.Join(dir, "mcp-auth"),
		[]string{"npm_config_offline=true", "npm_config_update_notifier=false"}, argv...)
	remote.finish(remote.initialize())
	tools := toolList(remote.request("tools/list", map[string]any{}))
	if !slices.Contains(tools, "find_tools") || len(tools) != len(listed.Tools) {
		t.Fatalf("mcp-remote with the banner's arguments lists %v", tools)
	}
}

// pinned is the version of name that dir's package.json pins.
func pinned(t *testing.T, dir, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Dependencies[name] == "" {
		t.Fatalf("%s/package.json pins no %s (%v)", dir, name, err)
	}
	return pkg.Dependencies[name]
}

// TestDocsClientCommands: every npx command in README.md and docs/*.md names its package's
// exact version (npx without one resolves whatever the day and the Node allow), the
// Inspector's command is the banner's, word for word, and the Inspector and mcp-remote
// versions named anywhere are the ones TestBannerSnippets runs.
func TestDocsClientCommands(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join("..", "..", "README.md"))
	npx := regexp.MustCompile("\\bnpx\\s+(?:-y\\s+)?([^\\s`\"]+)|\"npx\", \"args\": \\[\"-y\", \"([^\"]+)\"")
	exact := regexp.MustCompile(`^(@?[a-z0-9][a-z0-9._/-]*)@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)$`) // a pre-release is exact too
	pins := map[string]string{"@modelcontextprotocol/inspector": pinned(t, inspectorDir, "@modelcontextprotocol/inspector"),
		"mcp-remote":                        pinned(t, mcpRemoteDir, "mcp-remote"),
		"@modelcontextprotocol/conformance": pinned(t, filepath.Join("..", "..", "mcp", "testdata", "conformance"), "@modelcontextprotocol/conformance")}
	text := map[string]string{}
	for _, path := range docs {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text[filepath.Base(path)] = string(raw)
		for _, m := range npx.FindAllStringSubmatch(string(raw), -1) {
			spec := m[1] + m[2]
			v := exact.FindStringSubmatch(spec)
			switch {
			case v == nil:
				t.Errorf("%s: %q names no exact version of %s", path, m[0], spec)
			case pins[v[1]] != "" && pins[v[1]] != v[2]:
				t.Errorf("%s: %q, but the tests run %s@%s", path, m[0], v[1], pins[v[1]])
			}
		}
	}
	for _, doc := range []string{"README.md", "mcp.md"} {
		if !strings.Contains(text[doc], inspectorCommand) {
			t.Errorf("%s does not give the banner's Inspector command %q", doc, inspectorCommand)
		}
	}
	if !strings.Contains(mcpSnippets("http://127.0.0.1:8080/mcp", "kagt_x"), "npx -y mcp-remote@"+pins["mcp-remote"]+" ") {
		t.Errorf("the banner does not name mcp-remote@%s", pins["mcp-remote"])
	}
}

// writeNPMFolder makes dir an npm project whose one dependency is name@version, installed
// in modules (a pinned testdata folder's node_modules, linked), so npx finds it there.
func writeNPMFolder(t *testing.T, dir, name, version, modules string) {
	t.Helper()
	pkg, _ := json.Marshal(map[string]any{"private": true, "dependencies": map[string]string{name: version}})
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o600); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(modules)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
}
