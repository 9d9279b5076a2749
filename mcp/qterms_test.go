package mcp_test

import (
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestQTakesAtMost32DistinctTerms: the search tool's q and a list tool's q take at most 32
// distinct words, as REST's do: 33 is a bad_request naming the limit, 32 (or 40 words, 32
// of them distinct) is answered.
func TestQTakesAtMost32DistinctTerms(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.client(t, f.Agent.Key, "")
	letters := "abcdefghijklmnopqrstuvwxyz0123456789"
	terms := func(n int) string { return strings.Join(strings.Split(letters[:n], ""), " ") }
	for _, tool := range []string{"search", "list_deals"} {
		wantOK(t, call(t, c, tool, map[string]any{"q": terms(32)}))
		wantOK(t, call(t, c, tool, map[string]any{"q": terms(32) + " " + terms(8)}))
		msg := wantToolError(t, call(t, c, tool, map[string]any{"q": terms(33)}), "bad_request")["message"].(string)
		for _, w := range []string{"q", "32 distinct", "33"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q does not mention %q", tool, msg, w)
			}
		}
	}
}
