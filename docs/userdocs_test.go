package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// userPages are the pages written for the service's users. They say what the service
// does; the tests, migrations and tracker entries behind it belong in docs/architecture.md
// and docs/performance.md.
var userPages = []string{"README.md", "docs/rest.md", "docs/mcp.md", "docs/webhooks.md", "docs/console.md",
	"docs/oauth.md", "docs/operations.md", "docs/zero-to-crm.md"}

// internalsRE matches what a user page must not name: a test, benchmark or fuzz target
// (TestX), a migration number (00012, or a migration's file, 00012_integrations.sql) and an
// issue number (issue 33, issue #33).
var internalsRE = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*|\b0\d{4}(?:\b|_)|(?i:\bissues?\s+#?\d+)`)

// internals lists "line N: match" for each internal named in text.
func internals(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		for _, m := range internalsRE.FindAllString(line, -1) {
			out = append(out, "line "+strconv.Itoa(i+1)+": "+m)
		}
	}
	return out
}

// TestUserPagesNameNoInternals fails when a user page names a test, a migration number or
// an issue number.
func TestUserPagesNameNoInternals(t *testing.T) {
	// The check can fail: each kind is caught, and ordinary text passes.
	if got := internals("see `TestPagesAccessibleAndNarrow`\nmigration 00021 did it\nas issue 33 asked, and Issue #7\n" +
		"(`store/migrations/00026_webhook_upkeep.sql`)\n"); len(got) != 5 {
		t.Fatalf("the check found %v, want 5 internals", got)
	}
	if got := internals("1,000,000 rows, port 8080, a Testament, the issuer, issues are welcome, 2026-07-28\n"); len(got) != 0 {
		t.Fatalf("the check flags ordinary text: %v", got)
	}
	for _, page := range userPages {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range internals(string(b)) {
			t.Errorf("%s %s: user pages name no tests, migrations or issues (move it to docs/architecture.md or docs/performance.md)", page, m)
		}
	}
}
