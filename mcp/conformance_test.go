package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// conformanceCLI is the pinned official MCP conformance suite; .ci/test runs npm ci in its
// folder. It needs Node 22 (tooltest.Node22Path).
var conformanceCLI = filepath.Join("testdata", "conformance", "node_modules", "@modelcontextprotocol", "conformance",
	"dist", "index.js")

// conformanceRevision is the specification revision whose required scenarios the suite runs.
const conformanceRevision = "2026-07-28"

// conformanceResult is one scenario's outcome: the checks that failed (empty: it passed).
type conformanceResult struct {
	Scenario string
	Failures []string
}

// runConformance runs `conformance server --requirements 2026-07-28` (one scenario, or
// every required one when scenario is "") against path on the env, every request carrying
// bearer as the suite has no way to send one, and returns each scenario's result.
func runConformance(t *testing.T, e *env, path, bearer, scenario string) []conformanceResult {
	t.Helper()
	tooltest.Require(t, "the MCP conformance suite on Node 22 (mcp/testdata/conformance)")
	pathEnv := tooltest.Node22Path(t)
	if _, err := os.Stat(conformanceCLI); err != nil {
		t.Fatalf("the MCP conformance suite is not installed; run: npm ci --prefix mcp/testdata/conformance (%v)", err)
	}
	// The suite sends no credentials: this front adds the bearer, as a client configured
	// with a header would, and leaves everything else (Host, Origin) as the suite sent it.
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+bearer)
		e.srv.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	out := t.TempDir()
	args := []string{conformanceCLI, "server", "--url", front.URL + path, "--requirements", conformanceRevision, "-o", out}
	if scenario != "" {
		args = append(args, "--scenario", scenario)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	node := filepath.Join(filepath.SplitList(pathEnv)[0], "node") // Node 22, not the machine's
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "PATH="+pathEnv, "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run() // exits non-zero when a scenario fails; the checks below say which
	checks, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	if len(checks) == 0 {
		t.Fatalf("conformance wrote no results (%v)\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	var results []conformanceResult
	for _, file := range checks {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var list []struct {
			ID           string `json:"id"`
			Status       string `json:"status"`
			ErrorMessage string `json:"errorMessage"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		r := conformanceResult{Scenario: scenarioOf(filepath.Base(filepath.Dir(file)))}
		for _, c := range list {
			if c.Status == "FAILURE" {
				r.Failures = append(r.Failures, c.ID+": "+c.ErrorMessage)
			}
		}
		results = append(results, r)
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Scenario < results[j].Scenario })
	return results
}

// scenarioOf is the scenario name of a result folder, which the suite names
// server-<scenario>-<timestamp> (2026-11-27T17-09-36).
func scenarioOf(dir string) string {
	dir = strings.TrimPrefix(dir, "server-")
	if m := timestampSuffix.FindStringIndex(dir); m != nil {
		return dir[:m[0]]
	}
	return dir
}

var timestampSuffix = regexp.MustCompile(`-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d.*$`)

// requiredScenarios are the server scenarios the pinned suite's requirements file lists
// for conformanceRevision (its top-level server: list; not_scored entries excluded).
func requiredScenarios(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(conformanceCLI)), "requirements", conformanceRevision+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case line == "server:":
			in = true
		case in && strings.HasPrefix(line, "  - "):
			out = append(out, strings.TrimSpace(strings.TrimPrefix(line, "  - ")))
		case in && strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#"):
			in = false
		}
	}
	if len(out) < 30 {
		t.Fatalf("read %d required server scenarios from the requirements file, want the revision's 37", len(out))
	}
	return out
}

// wantPassing fails t for every scenario of want that did not run or did not pass, and
// logs the pass count of all it ran.
func wantPassing(t *testing.T, results []conformanceResult, want []string, where string) {
	t.Helper()
	byName := map[string]conformanceResult{}
	required, passed := 0, 0
	all := requiredScenarios(t)
	for _, r := range results {
		byName[r.Scenario] = r
		if slices.Contains(all, r.Scenario) {
			required++
			if len(r.Failures) == 0 {
				passed++
			}
		}
	}
	t.Logf("%s: %d of %d required scenarios pass", where, passed, required)
	for _, name := range want {
		r, ok := byName[name]
		switch {
		case !ok:
			t.Errorf("%s: scenario %s did not run", where, name)
		case len(r.Failures) > 0:
			t.Errorf("%s: scenario %s failed:\n  %s", where, name, strings.Join(r.Failures, "\n  "))
		}
	}
}

// TestConformanceFixtures runs every scenario the 2026-07-28 revision requires against
// /mcp/x/conformance, the suite's fixtures (MCP_CONFORMANCE_FIXTURES), with an agent key:
// all pass, with no expected-failures file.
func TestConformanceFixtures(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.fixtures = true })
	f := storetest.Workspace(t, e.store, nil)
	results := runConformance(t, e, "/mcp/x/conformance", f.Agent.Key, "")
	wantPassing(t, results, requiredScenarios(t), "/mcp/x/conformance")
}

// TestConformanceDefault runs the required scenarios against the product's /mcp (default
// toolsets, no fixtures) with an agent key: those that need no fixture pass.
func TestConformanceDefault(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	results := runConformance(t, e, "/mcp", f.Agent.Key, "")
	wantPassing(t, results, []string{"tools-list", "resources-list", "prompts-list", "sep-2164-resource-not-found",
		"dns-rebinding-protection", "caching", "server-sse-multiple-streams", "input-required-result-missing-input-response",
		"input-required-result-unsupported-methods", "input-required-result-ignore-extra-params",
		"input-required-result-validate-input"}, "/mcp")
}

// TestConformanceFixturesAreTestOnly: the fixtures are refused with a PublicURL that is
// not loopback, and without them /mcp/x/conformance is an unknown toolset (400 carrying
// the request's id); with them, they are on that view only, never in "all".
func TestConformanceFixturesAreTestOnly(t *testing.T) {
	e := newEnv(t)
	if _, err := mcp.New(mcp.Config{PublicURL: "https://api.example.com", Auth: workspace.AuthenticatorFunc(nil),
		Ops: &workspace.Ops{}, ConformanceFixtures: true}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("fixtures with a public PublicURL: %v", err)
	}
	f := storetest.Workspace(t, e.store, nil)
	status, a := e.rpc(t, "/mcp/x/conformance", f.Agent.Key, mcpgo.ProtocolVersion20251125, "tools/list", nil)
	if status != http.StatusBadRequest || a.Error == nil || !strings.Contains(a.Error.Message, `unknown toolset "conformance"`) {
		t.Fatalf("/mcp/x/conformance without fixtures: %d %+v", status, a.Error)
	}

	fx := newEnv(t, func(c *envConfig) { c.fixtures = true })
	f = storetest.Workspace(t, fx.store, nil)
	on, _ := fx.listTools(t, "/mcp/x/conformance", f.Agent.Key)
	all, _ := fx.listTools(t, "/mcp/x/all", f.Agent.Key)
	if !slices.Contains(on, "test_simple_text") || slices.Contains(all, "test_simple_text") {
		t.Fatalf("fixture tools: on their view %v; in all %v", on, all)
	}
	_, a = fx.rpc(t, "/mcp/x/all", f.Agent.Key, mcpgo.ProtocolVersion20251125, "resources/read", map[string]any{"uri": "test://static-text"})
	if a.Error == nil {
		t.Fatalf("a fixture resource read outside its view: %s", a.Result)
	}
}
