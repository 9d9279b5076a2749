package docs_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the repository's module path.
const module = "github.com/agencyos/workspaced/"

// TestImportGraph holds the package boundaries docs/architecture.md draws ("Packages"): the
// domain (workspace) depends on no adapter, no queue and no delivery or enrichment code (it
// names what it needs from them as interfaces they implement), and the two API adapters
// (restapi, mcp) are siblings that never import each other. It reads the dependency graph
// the go command builds, so a new import anywhere below a package counts.
func TestImportGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go command is needed to read the import graph:", err)
	}
	cases := []struct {
		pkg    string
		forbid []string // module packages (or, with a dot, any import path prefix) not to depend on
		allow  []string // module packages depended on though forbid says "" (all of them)
	}{
		{"workspace", []string{"webhooks", "enrich", "github.com/riverqueue/", "queue", "restapi", "mcp", "console", "oauth", "admin", "httpx", "cmd/"}, nil},
		{"restapi", []string{"mcp", "console", "oauth", "admin", "webhooks", "enrich", "github.com/riverqueue/"}, nil},
		{"mcp", []string{"restapi", "console", "oauth", "admin", "webhooks", "enrich", "github.com/riverqueue/"}, nil},
		{"store", []string{"", "github.com/riverqueue/"}, []string{"apierr"}}, // "": nothing of the module but allow
		{"auth", []string{""}, []string{"store", "apierr"}},
		{"apierr", []string{""}, nil},
		{"wellknown", []string{""}, nil},
		{"console/nav", []string{""}, nil},       // rendered by console and oauth alike
		{"oauth/permissions", []string{""}, nil}, // rendered by console and oauth alike
	}
	for _, c := range cases {
		out, err := exec.Command("go", "list", "-deps", module+c.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", c.pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == module+c.pkg || slices.Contains(c.allow, strings.TrimPrefix(dep, module)) {
				continue
			}
			for _, f := range c.forbid {
				prefix := module + f
				if strings.Contains(f, ".") {
					prefix = f
				}
				if dep == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(dep, strings.TrimSuffix(prefix, "/")+"/") {
					t.Errorf("%s depends on %s; docs/architecture.md's boundaries forbid it", c.pkg, dep)
				}
			}
		}
	}
}
