package restapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// distinctTerms returns n distinct one-character words (letters, then digits), the
// cheapest q that asks for the most prefix terms.
func distinctTerms(n int) []string {
	var out []string
	for _, r := range "abcdefghijklmnopqrstuvwxyz0123456789"[:n] {
		out = append(out, string(r))
	}
	return out
}

// TestQTakesAtMost32DistinctTerms: q takes at most 32 distinct words, wherever it is taken
// (a list's q= and /v1/search), counted after duplicates are dropped: 33 is a 400 naming
// the limit; 32, or 40 words of which 32 are distinct, are answered.
func TestQTakesAtMost32DistinctTerms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	if workspace.MaxQTerms != 32 {
		t.Fatalf("MaxQTerms = %d, the contract says 32", workspace.MaxQTerms)
	}
	q32 := strings.Join(distinctTerms(32), " ")
	q33 := strings.Join(distinctTerms(33), " ")
	q40dup := q32 + " " + strings.Join(distinctTerms(8), " ")
	for _, path := range []string{"/deals?q=", "/search?q="} {
		must(t, c.get(path+url.QueryEscape(q32)), http.StatusOK)
		must(t, c.get(path+url.QueryEscape(q40dup)), http.StatusOK)
		r := c.get(path + url.QueryEscape(q33))
		wantError(t, r, http.StatusBadRequest, "bad_request")
		wantMessage(t, r, "q", "32 distinct", "33")
	}
}
