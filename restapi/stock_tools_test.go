package restapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// The client generators docs/rest.md ("Generating a client") tells integrators to run on
// the served document, at the versions it names: nothing of this repository's go.mod or
// its tests' setup takes part. TestStockGenerators runs them as an integrator would.
const (
	// oapiCodegen is the Go generator's command, run in the folder holding openapi.json.
	oapiCodegen = "go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -generate types,client -package wsapi openapi.json"
	// oapiRuntime is the one module the generated Go code imports.
	oapiRuntime = "github.com/oapi-codegen/runtime@v1.9.0"
)

// TestStockGenerators: the released generators take the served document as it is, for
// every operation, and what they make compiles and calls a served instance: a list with q.
//
//   - Go: oapiCodegen (go run pkg@version: the generator's own go.mod, not ours), in a
//     fresh temporary module that requires only oapiRuntime, built with GOFLAGS=-mod=mod
//     through the module proxy; testdata/stock-go/main.go lists the deals.
//   - TypeScript: openapi-typescript and openapi-fetch at the exact versions of
//     testdata/openapi-tools/package.json (no overrides), in a fresh folder; tsc --strict
//     compiles testdata/openapi-tools/list.ts against the generated types, and node runs it.
//
// Spectral and Redocly lint the same document in TestOpenAPILinters.
func TestStockGenerators(t *testing.T) {
	t.Parallel()
	tools := openAPITools(t)
	e := newEnv(t)
	served := e.do("GET", "/openapi.json", "", "", "")
	if served.Status != 200 {
		t.Fatalf("GET /openapi.json: %d", served.Status)
	}
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	token := e.token(f.Admin)
	pl := e.do("POST", "/pipelines", token, testAPIKey, `{"name": "Sales"}`)
	if pl.Status != 201 {
		t.Fatalf("create pipeline: %d %s", pl.Status, pl.Raw)
	}
	for _, name := range []string{"Globex Rocket", "Initech Paper"} {
		r := e.do("POST", "/deals", token, testAPIKey, fmt.Sprintf(`{"name": %q, "pipeline_id": %q}`, name, pl.data()["id"]))
		if r.Status != 201 {
			t.Fatalf("create deal: %d %s", r.Status, r.Raw)
		}
	}
	env := []string{"BASE_URL=" + e.srv.URL + "/v1", "APIKEY=" + testAPIKey, "TOKEN=" + token, "Q=rocket"}
	wantNames := `["Globex Rocket"]`
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(served.Raw, &doc); err != nil {
		t.Fatal(err)
	}
	operations := 0
	for _, item := range doc.Paths {
		operations += len(item)
	}

	t.Run("oapi-codegen", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "openapi.json"), served.Raw, 0o600); err != nil {
			t.Fatal(err)
		}
		goEnv := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
		args := strings.Fields(oapiCodegen)
		gen := exec.Command(args[0], args[1:]...)
		gen.Dir, gen.Env = dir, goEnv
		src := output(t, gen)
		// One method an operation on ClientWithResponses (and one more, WithBody, for each
		// that takes a JSON body; one taking only a multipart body has the WithBody one
		// alone): every operation of the document, none dropped.
		methods := regexp.MustCompile(`(?m)^func \(c \*ClientWithResponses\) (\w+)WithResponse\(`).FindAllSubmatch(src, -1)
		names := map[string]bool{}
		for _, m := range methods {
			names[string(bytes.TrimSuffix(m[1], []byte("WithBody")))] = true
		}
		if generated := len(names); generated != operations {
			t.Fatalf("oapi-codegen made a client for %d operations, the document has %d", generated, operations)
		}
		writeFile(t, filepath.Join(dir, "wsapi", "wsapi.go"), src)
		writeFile(t, filepath.Join(dir, "main.go"), readFile(t, filepath.Join("testdata", "stock-go", "main.go")))
		module, version, _ := strings.Cut(oapiRuntime, "@")
		writeFile(t, filepath.Join(dir, "go.mod"), []byte("module example.com/wsclient\n\ngo 1.24\n\nrequire "+module+" "+version+"\n"))
		os.Remove(filepath.Join(dir, "openapi.json"))
		build := exec.Command("go", "build", "-o", "list", ".")
		build.Dir, build.Env = dir, goEnv
		output(t, build)
		// The module needs nothing else: go build added only the runtime's own requirements.
		mod := string(readFile(t, filepath.Join(dir, "go.mod")))
		for _, line := range strings.Split(mod, "\n") {
			if fields := strings.Fields(line); len(fields) == 2 && strings.Contains(fields[0], ".") &&
				!strings.HasPrefix(line, "require") && !strings.Contains(line, "// indirect") && fields[0] != module {
				t.Errorf("go.mod gained a direct requirement %q:\n%s", line, mod)
			}
		}
		list := exec.Command(filepath.Join(dir, "list"))
		list.Env = append(os.Environ(), env...)
		if got := strings.TrimSpace(string(output(t, list))); got != wantNames {
			t.Fatalf("the Go client listed %s with q=rocket, want %s", got, wantNames)
		}
	})

	t.Run("openapi-typescript and openapi-fetch", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "openapi.json"), served.Raw)
		writeFile(t, filepath.Join(dir, "package.json"), []byte(`{"private": true, "type": "module"}`))
		writeFile(t, filepath.Join(dir, "list.ts"), readFile(t, filepath.Join(tools, "list.ts")))
		// The pinned packages, installed by npm ci from package-lock.json, are this folder's
		// node_modules: nothing else is there.
		if err := os.Symlink(filepath.Join(tools, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		bin := func(name string, args ...string) *exec.Cmd {
			cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", name), args...)
			cmd.Dir = dir
			return cmd
		}
		output(t, bin("openapi-typescript", "openapi.json", "-o", "schema.d.ts"))
		types := string(readFile(t, filepath.Join(dir, "schema.d.ts")))
		for _, op := range doc.Paths {
			for _, o := range op {
				if !strings.Contains(types, "\n    "+o.OperationID+": {") {
					t.Errorf("schema.d.ts has no operation %s", o.OperationID)
				}
			}
		}
		output(t, bin("tsc", "--strict", "--noUncheckedIndexedAccess", "--target", "es2022", "--module", "nodenext",
			"--moduleResolution", "nodenext", "--skipLibCheck", "--outDir", "out", "list.ts"))
		node := exec.Command("node", filepath.Join(dir, "out", "list.js"))
		node.Env = append(os.Environ(), env...)
		if got := strings.TrimSpace(string(output(t, node))); got != wantNames {
			t.Fatalf("the TypeScript client listed %s with q=rocket, want %s", got, wantNames)
		}
	})

	t.Run("docs name these versions", func(t *testing.T) {
		rest := string(readFile(t, filepath.Join("..", "docs", "rest.md")))
		var pkg struct{ Dependencies map[string]string }
		if err := json.Unmarshal(readFile(t, filepath.Join(tools, "package.json")), &pkg); err != nil {
			t.Fatal(err)
		}
		want := []string{oapiCodegen, "go get " + oapiRuntime,
			"npx -y openapi-typescript@" + pkg.Dependencies["openapi-typescript"] + " openapi.json -o schema.d.ts",
			"npm install openapi-fetch@" + pkg.Dependencies["openapi-fetch"],
			"npx -y @stoplight/spectral-cli@" + pkg.Dependencies["@stoplight/spectral-cli"] + " lint openapi.json",
			"npx -y @redocly/cli@" + pkg.Dependencies["@redocly/cli"] + " lint openapi.json"}
		for _, w := range want {
			if !strings.Contains(rest, w) {
				t.Errorf("docs/rest.md does not say %q", w)
			}
		}
	})
}

// output runs cmd and returns its standard output, failing with its standard error.
func output(t *testing.T, cmd *exec.Cmd) []byte {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
