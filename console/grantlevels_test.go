package console_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store"
)

// TestTemplatesStateNoGrantLevel: the grant level and role selects of the members and
// agents pages are built from the lists the handlers pass (store.GrantLevels,
// store.Roles), so no template names a level or a role as an option of its own; a second
// list written into a template fails here.
func TestTemplatesStateNoGrantLevel(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("templates/*.html")
	if err != nil || len(files) == 0 {
		t.Fatalf("templates: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range append(store.GrantLevels(), store.Roles()...) {
			if regexp.MustCompile(`<option[^>]*value="` + l + `"`).Match(b) {
				t.Errorf("%s writes the grant level or role %q as an option; render it from the handler's list", f, l)
			}
		}
	}
}

// TestGrantSelectsOfferEachLevel: every grant select on the members and agents pages offers
// the levels in order, with the member's own level (none when unset) selected, and the
// forms for someone new start at none.
func TestGrantSelectsOfferEachLevel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.addUser(e.WorkspaceID, "member", "active", map[string]string{"hr": "read", "crm": "full"})
	a := e.agent().signIn(e.Admin)
	sel := regexp.MustCompile(`(?s)<select id="([a-z-]*grant-[^"]+)" name="grant_[a-z]+">(.*?)</select>`)
	opt := regexp.MustCompile(`<option value="([a-z]+)"( selected)?>([a-z]+)</option>`)
	for _, path := range []string{"/console/members", "/console/agents"} {
		res := a.get(path)
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d", path, res.Status)
		}
		selects := sel.FindAllStringSubmatch(res.Body, -1)
		if len(selects) < len(store.Features) {
			t.Fatalf("%s shows %d grant selects", path, len(selects))
		}
		for _, s := range selects {
			// The new-member and new-agent forms start at none; m's rows show m's grants;
			// other people's rows show one level each.
			want := "none"
			switch {
			case s[1] == "grant-"+m.ID+"-hr":
				want = "read"
			case s[1] == "grant-"+m.ID+"-crm":
				want = "full"
			case strings.HasPrefix(s[1], "grant-") && !strings.HasPrefix(s[1], "grant-"+m.ID):
				want = ""
			}
			var values, selected []string
			for _, o := range opt.FindAllStringSubmatch(s[2], -1) {
				if o[1] != o[3] {
					t.Errorf("%s %s: option %q labelled %q", path, s[1], o[1], o[3])
				}
				values = append(values, o[1])
				if o[2] != "" {
					selected = append(selected, o[1])
				}
			}
			if want == "" && len(selected) == 1 {
				want = selected[0]
			}
			if strings.Join(values, ",") != "none,read,full" || strings.Join(selected, ",") != want {
				t.Errorf("%s %s: options %v selected %v, want none,read,full with %s selected", path, s[1], values, selected, want)
			}
		}
	}
}
