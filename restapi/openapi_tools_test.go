package restapi_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// Third-party OpenAPI tools run on the served document (docs/rest.md, "Generating a
// client"): Spectral's spectral:oas ruleset and Redocly's recommended ruleset must report
// nothing at all. The tools are pinned in testdata/openapi-tools/package-lock.json;
// .ci/test runs npm ci there.

// openAPITools returns the tools' directory, failing (not skipping) when they are not
// installed.
func openAPITools(t *testing.T) string {
	t.Helper()
	tooltest.Require(t, "the OpenAPI tools' npm packages (restapi/testdata/openapi-tools)")
	dir, err := filepath.Abs("testdata/openapi-tools")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "spectral")); err != nil {
		t.Fatalf("the OpenAPI tools are not installed; run: npm ci --prefix restapi/testdata/openapi-tools (%v)", err)
	}
	return dir
}

// servedDocument writes the document GET /openapi.json serves to a file.
func servedDocument(t *testing.T) string {
	t.Helper()
	e := newEnv(t)
	r := e.do("GET", "/openapi.json", "", "", "")
	if r.Status != 200 {
		t.Fatalf("GET /openapi.json: %d", r.Status)
	}
	path := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(path, r.Raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// npxTool runs a tool installed in dir and returns its standard output.
func npxTool(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", args[0]), args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(out) > 0 {
		return out // the linters exit 1 when they find problems; the report says which
	}
	if err != nil {
		var stderr []byte
		if exit != nil {
			stderr = exit.Stderr
		}
		t.Fatalf("%s: %v\n%s", args[0], err, stderr)
	}
	return out
}

func TestOpenAPILinters(t *testing.T) {
	t.Parallel()
	lintOpenAPI(t, openAPITools(t), servedDocument(t))
}

// lintOpenAPI runs both linters in dir on the document at doc; each must report nothing.
func lintOpenAPI(t *testing.T, dir, doc string) {
	t.Helper()
	t.Run("spectral:oas", func(t *testing.T) {
		out := npxTool(t, dir, "spectral", "lint", "--ruleset", filepath.Join(dir, ".spectral.yaml"), "--format", "json",
			"--fail-severity", "hint", "--quiet", doc)
		var problems []struct {
			Code     string   `json:"code"`
			Message  string   `json:"message"`
			Severity int      `json:"severity"`
			Path     []string `json:"path"`
		}
		if err := json.Unmarshal(out, &problems); err != nil {
			t.Fatalf("spectral output: %v\n%s", err, out)
		}
		for i, p := range problems {
			if i < 40 {
				t.Errorf("spectral %s (severity %d) at %v: %s", p.Code, p.Severity, p.Path, p.Message)
			}
		}
		if len(problems) > 0 {
			t.Errorf("spectral:oas reports %d problems, want 0", len(problems))
		}
	})
	t.Run("redocly recommended", func(t *testing.T) {
		out := npxTool(t, dir, "redocly", "lint", "--config", filepath.Join(dir, "redocly.yaml"), "--format", "json", doc)
		var report struct {
			Totals   struct{ Errors, Warnings int } `json:"totals"`
			Problems []struct {
				RuleID   string `json:"ruleId"`
				Severity string `json:"severity"`
				Message  string `json:"message"`
				Location []struct {
					Pointer string `json:"pointer"`
				} `json:"location"`
			} `json:"problems"`
		}
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatalf("redocly output: %v\n%s", err, out)
		}
		for i, p := range report.Problems {
			if i < 40 {
				t.Errorf("redocly %s (%s) at %v: %s", p.RuleID, p.Severity, p.Location, p.Message)
			}
		}
		if report.Totals.Errors+report.Totals.Warnings > 0 || len(report.Problems) > 0 {
			t.Errorf("redocly reports %d errors and %d warnings, want 0 and 0", report.Totals.Errors, report.Totals.Warnings)
		}
	})
}

// TestTypeScriptClient: openapi-typescript generates types from the served document,
// tsc --strict type-checks testdata/openapi-tools/client.ts against them (with
// openapi-fetch), and the compiled program runs against the server: /me, a deal created
// and retried with an Idempotency-Key, an automation with a trigger object, the deals
// paged to the end.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	dir := openAPITools(t)
	e := newEnv(t)
	r := e.do("GET", "/openapi.json", "", "", "")
	build, err := os.MkdirTemp(dir, "build-") // inside the tools directory, so node_modules resolves
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(build) })
	doc := filepath.Join(build, "openapi.json")
	if err := os.WriteFile(doc, r.Raw, 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "client.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(build, "client.ts"), src, 0o600); err != nil {
		t.Fatal(err)
	}
	npxTool(t, dir, "openapi-typescript", doc, "--output", filepath.Join(build, "schema.d.ts"))
	tsc := exec.Command(filepath.Join(dir, "node_modules", ".bin", "tsc"), "--strict", "--noUncheckedIndexedAccess",
		"--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck",
		"--outDir", filepath.Join(build, "out"), filepath.Join(build, "client.ts"))
	tsc.Dir = dir
	if out, err := tsc.CombinedOutput(); err != nil {
		t.Fatalf("tsc --strict rejects the program against the generated types: %v\n%s", err, out)
	}

	f := storetest.Workspace(t, e.store, workspace.Scopes())
	run := exec.Command("node", filepath.Join(build, "out", "client.js"))
	run.Env = append(os.Environ(), "BASE_URL="+e.srv.URL+"/v1", "APIKEY="+testAPIKey, "TOKEN="+e.token(f.Admin))
	var stderr strings.Builder
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("the compiled client failed: %v\n%s", err, stderr.String())
	}
	var got struct {
		Email        string `json:"email"`
		CRM          string `json:"crm"`
		Deal         string `json:"deal"`
		Replayed     bool   `json:"replayed"`
		TriggerEvent string `json:"trigger_event"`
		Deals        []struct {
			ID    string   `json:"id"`
			Value *float64 `json:"value"`
		} `json:"deals"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	if got.Email != f.Admin.Email || got.CRM != "full" || !got.Replayed || got.TriggerEvent != "deal_created" || len(got.Deals) != 3 {
		t.Fatalf("the client saw %s", out)
	}
	if n := e.count(t, `SELECT count(*) FROM deals WHERE workspace_id = $1`, f.WorkspaceID); n != 3 {
		t.Fatalf("%d deals in the database, want 3 (the retried create must not write)", n)
	}
}
