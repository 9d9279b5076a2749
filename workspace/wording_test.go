package workspace_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// TestLimitsWordedFromConstants: the page sizes, the windows of idempotency keys and
// secret rotations and the grant levels are constants (workspace.MaxLimit, DefaultLimit,
// store.IdempotencyTTL, workspace.RotationOverlap, store.GrantLevels), and every message or description that states them is built
// from them. No string literal of the packages that talk to callers writes one out, and the
// limit message is written once: a second copy, which would drift when a constant changes,
// fails here.
func TestLimitsWordedFromConstants(t *testing.T) {
	t.Parallel()
	banned := []string{
		fmt.Sprintf("1 to %d", workspace.MaxLimit),
		fmt.Sprintf("default %d", workspace.DefaultLimit),
		fmt.Sprintf("1 to %d", workspace.MaxSearchLimit),
		fmt.Sprintf("default %d", workspace.DefaultSearchLimit),
		fmt.Sprintf("%d hours", store.IdempotencyTTL/time.Hour),
		fmt.Sprintf("%d hours", workspace.RotationOverlap/time.Hour),
		store.GrantLevelsText(),
	}
	slices.Sort(banned)
	banned = slices.Compact(banned)
	limitMessages := 0
	for _, dir := range []string{"../workspace", "../restapi", "../mcp", "../webhooks"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for _, b := range banned {
					if strings.Contains(s, b) {
						t.Errorf("%s writes %q out in %q; build it from the constant", name, b, s)
					}
				}
				if strings.Contains(s, "limit must be") {
					limitMessages++
				}
				return true
			})
		}
	}
	if limitMessages != 1 {
		t.Errorf("the limit message is written %d times, want once", limitMessages)
	}
}

// TestInWords: whole hours and minutes are said as people say them, anything else as Go
// prints it.
func TestInWords(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{24 * time.Hour: "24 hours", time.Hour: "1 hour",
		5 * time.Minute: "5 minutes", 90 * time.Second: "1m30s", 0: "0s"} {
		if got := workspace.InWords(d); got != want {
			t.Errorf("InWords(%v) = %q, want %q", d, got, want)
		}
	}
}
