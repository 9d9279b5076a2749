package restapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestSearchFindsByEmailAndDomain: q matches an email's local part and domain, and a
// website's host (a host also by its suffixes), in lists and in /v1/search; another
// workspace's records stay unfound.
func TestSearchFindsByEmailAndDomain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	ada := create(t, c, "/people", map[string]any{"name": "Ada Lovelace", "email": "ada.l@acme.example"})["id"]
	create(t, c, "/people", map[string]any{"name": "Bob Stone", "email": "bob@other.example"})
	acme := create(t, c, "/companies", map[string]any{"name": "Analytical Engines", "website": "https://www.acme.example/about"})["id"]
	create(t, c, "/companies", map[string]any{"name": "Beta", "website": "https://beta.example"})
	other := e.as(t, storetest.Workspace(t, e.store, workspace.Scopes()).Admin)
	create(t, other, "/people", map[string]any{"name": "Ada Elsewhere", "email": "ada@acme.example"})

	// A host is looked up whole and by its suffixes: labs.acme.example holds acme.example.
	grace := create(t, c, "/people", map[string]any{"name": "Grace Hopper", "email": "grace@labs.acme.example"})["id"]
	for q, want := range map[string][]any{"acme": {ada, grace}, "acme.example": {ada, grace}, "acme.exa": {ada, grace},
		"labs.acme.example": {grace}, "ada.l@acme.example": {ada}, "ada": {ada}} {
		got := ids(must(t, c.get("/people?q="+url.QueryEscape(q)), http.StatusOK).list())
		if len(got) != len(want) || !got[want[0].(string)] || !got[want[len(want)-1].(string)] {
			t.Errorf("people q=%s: got %v, want %v", q, got, want)
		}
	}
	for _, q := range []string{"acme", "acme.example", "www.acme.example"} {
		got := ids(must(t, c.get("/companies?q="+url.QueryEscape(q)), http.StatusOK).list())
		if len(got) != 1 || !got[acme.(string)] {
			t.Errorf("companies q=%s: got %v, want the company at acme.example", q, got)
		}
	}
	hits := must(t, c.get("/search?q=acme.example"), http.StatusOK).list()
	var found []string
	for _, h := range hits {
		found = append(found, h["id"].(string))
	}
	if !slices.Contains(found, ada.(string)) || !slices.Contains(found, grace.(string)) || !slices.Contains(found, acme.(string)) || len(found) != 3 {
		t.Fatalf("/search?q=acme.example: %v, want Ada, Grace and the company", hits)
	}
}
