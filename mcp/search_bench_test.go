package mcp

import (
	"strings"
	"testing"

	"github.com/agencyos/workspaced/workspace"
)

// BenchmarkFindToolsQuery ranks every catalogue tool for a typical query and for the
// longest query find_tools accepts (findMaxQuery characters, findMaxWords words), so the
// cost of the bound is read as a ratio of the two (docs/performance.md, "find_tools").
func BenchmarkFindToolsQuery(b *testing.B) {
	specs, err := buildTools(workspace.Catalog())
	if err != nil {
		b.Fatal(err)
	}
	var candidates []toolSpec
	for _, sp := range specs {
		if sp.run == nil {
			candidates = append(candidates, sp)
		}
	}
	// findMaxWords words from the catalogue's resource names (at most 9 letters each, so
	// they fit), the last one padded to the limit.
	var words []string
	for i := 0; len(words) < findMaxWords; i++ {
		w := workspace.Catalog()[i%len(workspace.Catalog())].Name
		words = append(words, w[:min(len(w), 9)])
	}
	longest := strings.Join(words, " ")
	longest += strings.Repeat("s", findMaxQuery-len(longest))
	if len(strings.Fields(longest)) != findMaxWords || len(longest) != findMaxQuery {
		b.Fatalf("%d words, %d characters", len(strings.Fields(longest)), len(longest))
	}
	for _, q := range []struct{ name, query string }{{"normal", "log a leave request"}, {"max", longest}} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				rank(q.query, candidates, findMaxLimit)
			}
		})
	}
}
