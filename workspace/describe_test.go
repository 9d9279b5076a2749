package workspace_test

import (
	"strings"
	"testing"

	"github.com/agencyos/workspaced/workspace"
)

// TestDescribeScope: the consent page's words for each scope come from the catalogue: a
// scope whose resources all need one feature grant is that feature's family, a write
// scope names only what it can change, and join records are not named.
func TestDescribeScope(t *testing.T) {
	for _, c := range []struct{ scope, wantFamily, wantCovers string }{
		{"deals:read", "CRM", "deals, crm files"},
		{"deals:write", "CRM", "deals"},
		{"tasks:read", "Workspace", "deal tasks, tasks, task attachments"},
		{"hr:write", "HR", "team members, departments, leave requests, hr contracts, hr change requests, org chart"},
		{"directory:write", "Workspace", "users, custom fields, workspace settings"},
		{"nothing_here:read", "nothing_here", "nothing here"},
	} {
		family, words := workspace.DescribeScope(c.scope)
		if covers := strings.Join(words, ", "); family != c.wantFamily || covers != c.wantCovers {
			t.Errorf("DescribeScope(%q) = %q, %q; want %q, %q", c.scope, family, covers, c.wantFamily, c.wantCovers)
		}
	}
	for _, sc := range workspace.Scopes() {
		if family, covers := workspace.DescribeScope(sc); family == "" || len(covers) == 0 {
			t.Errorf("DescribeScope(%q) = %q, %q: every catalogue scope needs words", sc, family, covers)
		}
	}
}
