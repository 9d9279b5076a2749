package console_test

import (
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	consoleNavRE = regexp.MustCompile(`(?s)<nav aria-label="Console">(.*?)</nav>`)
	navLinkRE    = regexp.MustCompile(`<a href="([^"]*)"[^>]*>([^<]*)</a>`)
)

// navLinks returns the links of a page's console navigation, "href label" each, in order.
func navLinks(t testing.TB, p page) []string {
	t.Helper()
	if p.Status != http.StatusOK {
		t.Fatalf("status %d: %.300s", p.Status, p.Body)
	}
	nav := consoleNavRE.FindStringSubmatch(p.Body)
	if nav == nil {
		t.Fatalf("no console navigation on the page: %.500s", p.Body)
	}
	var links []string
	for _, m := range navLinkRE.FindAllStringSubmatch(nav[1], -1) {
		links = append(links, m[1]+" "+m[2])
	}
	return links
}

// TestNavigationSameOnProviderPage compares the navigation an admin sees on the console's
// pages with the one on the provider's registered-apps page (/oauth/admin/apps), which
// the console's Apps page links to: the same links, in the same order, the admin-only ones
// included; a member's navigation lacks the admin-only ones.
func TestNavigationSameOnProviderPage(t *testing.T) {
	e := newEnv(t)
	a := e.agent().signIn(e.Admin)
	want := navLinks(t, a.get("/console/members"))
	for _, path := range []string{"/console", "/console/fields", "/console/import", "/oauth/admin/apps"} {
		if diff := cmp.Diff(want, navLinks(t, a.get(path))); diff != "" {
			t.Errorf("%s: navigation differs from /console/members (-members +here):\n%s", path, diff)
		}
	}
	for _, link := range []string{"/console/fields Fields", "/console/import Import", "/console/members Members"} {
		if !slices.Contains(want, link) {
			t.Errorf("the admin's navigation lacks %q: %q", link, want)
		}
	}
	member := navLinks(t, e.agent().signIn(e.Member).get("/console"))
	if slices.Contains(member, "/console/members Members") || !slices.Contains(member, "/console/import Import") {
		t.Errorf("a member's navigation: %q", member)
	}
}
