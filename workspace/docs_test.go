package workspace_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/agencyos/workspaced/workspace"
)

// TestDocsCountTheScopes: wherever the README or docs/ count the scopes ("all 35 scopes"),
// the count is the catalogue's, which agent keys carry and /v1/me lists.
func TestDocsCountTheScopes(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	count := regexp.MustCompile(`(\d+)\s+scopes`)
	for _, doc := range append(docs, filepath.Join("..", "README.md")) {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range count.FindAllSubmatch(raw, -1) {
			if n, _ := strconv.Atoi(string(m[1])); n != len(workspace.Scopes()) {
				t.Errorf("%s says %q; the catalogue has %d scopes", doc, m[0], len(workspace.Scopes()))
			}
		}
	}
}
