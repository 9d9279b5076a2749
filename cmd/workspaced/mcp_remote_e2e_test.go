package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agencyos/workspaced/internal/tooltest"
)

// mcpRemoteDir holds the pinned mcp-remote; .ci/test runs npm ci in it before the Go tests.
var mcpRemoteDir = filepath.Join("..", "..", "mcp", "testdata", "mcp-remote")

// mcpRemote is one running mcp-remote: JSON-RPC over its stdio.
type mcpRemote struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *strings.Builder
	nextID int
}

// startMCPRemote runs mcp-remote for serverURL with BROWSER set to a script that records
// the authorization URL in urls (the xdg-open bundled with its opener honours BROWSER when
// no desktop is running) and its token cache in configDir.
func startMCPRemote(t *testing.T, node, serverURL, port, browser, configDir string) *mcpRemote {
	t.Helper()
	return startMCPRemoteArgs(t, node, configDir, []string{"BROWSER=" + browser}, serverURL, port, "--allow-http")
}

// startMCPRemoteArgs runs mcp-remote with args, its token cache in configDir and the
// variables of env.
func startMCPRemoteArgs(t *testing.T, node, configDir string, env []string, args ...string) *mcpRemote {
	t.Helper()
	return startMCPRemoteCommand(t, "", configDir, env,
		append([]string{node, filepath.Join(mcpRemoteDir, "node_modules", "mcp-remote", "dist", "proxy.js")}, args...)...)
}

// startMCPRemoteCommand starts argv (mcp-remote, however it is invoked) in dir ("" for
// the test's own) over stdio, with configDir as its config and home directory.
func startMCPRemoteCommand(t *testing.T, dir, configDir string, env []string, argv ...string) *mcpRemote {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	env = append(env, "MCP_REMOTE_CONFIG_DIR="+configDir, "HOME="+configDir)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	// Its own process group, killed whole: through npx, mcp-remote is a child that would
	// outlive npx and hold the pipes open.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "PATH" || k == "TMPDIR" {
			env = append(env, kv) // nothing else: no DISPLAY or desktop for xdg-open to prefer
		}
	}
	cmd.Env = env
	r := &mcpRemote{t: t, cmd: cmd, lines: make(chan string, 64), stderr: &strings.Builder{}}
	var err error
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	t.Cleanup(func() { r.stop(); cancel() })
	return r
}

func (r *mcpRemote) stop() {
	if r.cmd.ProcessState == nil {
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		_ = r.cmd.Wait()
	}
}

// request sends a JSON-RPC request and waits for its answer's result.
func (r *mcpRemote) request(method string, params any) map[string]any {
	r.t.Helper()
	return r.await(r.start(method, params), method)
}

// start sends a JSON-RPC request and returns its id.
func (r *mcpRemote) start(method string, params any) int {
	r.t.Helper()
	r.nextID++
	r.send(map[string]any{"jsonrpc": "2.0", "id": r.nextID, "method": method, "params": params})
	return r.nextID
}

// await waits for the answer to request id and returns its result.
func (r *mcpRemote) await(id int, method string) map[string]any {
	r.t.Helper()
	timeout := time.After(90 * time.Second)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("mcp-remote ended before answering %s:\n%s", method, r.stderr.String())
			}
			var msg struct {
				ID     *int           `json:"id"`
				Result map[string]any `json:"result"`
				Error  any            `json:"error"`
			}
			if json.Unmarshal([]byte(line), &msg) != nil || msg.ID == nil || *msg.ID != id {
				continue // a notification or log line
			}
			if msg.Error != nil {
				r.t.Fatalf("%s: %v", method, msg.Error)
			}
			return msg.Result
		case <-timeout:
			r.t.Fatalf("no answer to %s:\n%s", method, r.stderr.String())
		}
	}
}

func (r *mcpRemote) send(msg map[string]any) {
	r.t.Helper()
	b, _ := json.Marshal(msg)
	if _, err := r.stdin.Write(append(b, '\n')); err != nil {
		r.t.Fatalf("write to mcp-remote: %v\n%s", err, r.stderr.String())
	}
}

// initialize starts the MCP handshake over stdio; finish completes it.
func (r *mcpRemote) initialize() int {
	r.t.Helper()
	return r.start("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "workspaced-mcp-remote-e2e", "version": "1"}})
}

func (r *mcpRemote) finish(initialize int) {
	r.t.Helper()
	r.await(initialize, "initialize")
	r.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

// TestMCPRemoteEndToEnd drives mcp-remote, the stdio bridge desktop clients use, headless
// against the process's real wiring: RFC 9728 and 8414 discovery from the 401, dynamic
// registration with its loopback redirect, sign-in and consent through the real pages
// (the test plays the browser from the URL mcp-remote hands $BROWSER), tools/list and
// tools/call over its stdio; then a restart that reuses the cached tokens without a
// browser. It fails, never skips, when node or mcp-remote's modules are missing.
func TestMCPRemoteEndToEnd(t *testing.T) {
	tooltest.Require(t, "node and mcp-remote (mcp/testdata/mcp-remote)")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required for the mcp-remote test: %v", err)
	}
	if _, err := os.Stat(filepath.Join(mcpRemoteDir, "node_modules", "mcp-remote", "package.json")); err != nil {
		t.Fatalf("mcp-remote is not installed; run: npm ci --prefix mcp/testdata/mcp-remote (%v)", err)
	}
	ts, s := startServer(t)
	email, password := testMember(t, s, "member", map[string]string{"crm": "full"})
	dir := t.TempDir()
	urls := filepath.Join(dir, "authorization-urls")
	browser := filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '"+urls+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	configDir := filepath.Join(dir, "mcp-auth")

	first := startMCPRemote(t, node, ts.URL+"/mcp", port, browser, configDir)
	init := first.initialize() // answered once authorization is done
	authURL := waitForLine(t, urls, 1, first)
	u, err := url.Parse(authURL)
	if err != nil || !strings.HasPrefix(authURL, ts.URL+"/oauth/authorize?") {
		t.Fatalf("authorization URL %q", authURL)
	}
	q := u.Query()
	if q.Get("resource") != ts.URL+"/mcp" || q.Get("code_challenge_method") != "S256" ||
		!strings.HasPrefix(q.Get("client_id"), "svcdyn_") || !strings.HasPrefix(q.Get("redirect_uri"), "http://localhost:"+port+"/") {
		t.Fatalf("authorization request %v: want resource=/mcp, PKCE, a registered client and the loopback redirect", q)
	}
	approveForMCPRemote(t, ts.URL, authURL, email, password)
	first.finish(init)

	tools := toolList(first.request("tools/list", map[string]any{}))
	for _, want := range []string{"me", "search", "find_tools", "call_tool", "list_deals", "create_tasks"} {
		if !slices.Contains(tools, want) {
			t.Fatalf("tools/list through mcp-remote lacks %s: %v", want, tools)
		}
	}
	if len(tools) > 32 {
		t.Fatalf("the default list has %d tools", len(tools))
	}
	me := first.request("tools/call", map[string]any{"name": "me", "arguments": map[string]any{}})
	if sc, _ := me["structuredContent"].(map[string]any); sc["user"].(map[string]any)["email"] != email {
		t.Fatalf("me through mcp-remote: %v", me)
	}
	first.stop()

	// Restart: the cached client and tokens are reused, no browser opens.
	second := startMCPRemote(t, node, ts.URL+"/mcp", port, browser, configDir)
	second.finish(second.initialize())
	found := second.request("tools/call", map[string]any{"name": "find_tools", "arguments": map[string]any{"query": "add a label to a deal"}})
	if found["isError"] == true || !strings.Contains(fmt.Sprint(found["structuredContent"]), "create_deal_labels") {
		t.Fatalf("find_tools after restart: %v", found)
	}
	if b, _ := os.ReadFile(urls); strings.Count(string(b), "\n") != 1 {
		t.Fatalf("the restart opened the browser again: %s", b)
	}
	second.stop()

	// A toolset view is its own RFC 9728 resource: a fresh mcp-remote on it is authorized
	// for that URL and lists that view.
	view := startMCPRemote(t, node, ts.URL+"/mcp/x/tasks/readonly", port, browser, filepath.Join(dir, "view-auth"))
	init = view.initialize()
	authURL = waitForLine(t, urls, 2, view)
	if u, _ := url.Parse(authURL); u.Query().Get("resource") != ts.URL+"/mcp/x/tasks/readonly" {
		t.Fatalf("authorization URL for the view %q: want its own resource", authURL)
	}
	approveForMCPRemote(t, ts.URL, authURL, email, password)
	view.finish(init)
	tools = toolList(view.request("tools/list", map[string]any{}))
	slices.Sort(tools)
	want := []string{"call_tool", "find_tools", "get_deal_tasks", "get_tasks", "list_deal_tasks", "list_tasks", "me", "search"}
	if !slices.Equal(tools, want) {
		t.Fatalf("tools/list on /mcp/x/tasks/readonly: %v, want %v", tools, want)
	}
}

// waitForLine waits for the browser script's nth URL.
func waitForLine(t *testing.T, path string, n int, r *mcpRemote) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.Count(string(b), "\n") >= n {
			return strings.Split(string(b), "\n")[n-1]
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("mcp-remote never opened the browser:\n%s", r.stderr.String())
	return ""
}

// approveForMCPRemote signs in and approves the scopes mcp-remote asked for, then follows
// the redirect to mcp-remote's loopback callback, as the browser would.
func approveForMCPRemote(t *testing.T, origin, authURL, email, password string) {
	t.Helper()
	landed, _ := signInAndApprove(t, origin, authURL, email, password, nil)
	res, err := (&http.Client{Timeout: 30 * time.Second}).Get(landed.String())
	if err != nil {
		t.Fatal(err)
	}
	done, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Hostname() != "localhost" {
		t.Fatalf("the redirect did not reach mcp-remote's callback: %d %s %s", res.StatusCode, res.Request.URL, done)
	}
}

func toolList(result map[string]any) []string {
	var names []string
	for _, tl := range result["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}
