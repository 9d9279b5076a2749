package store_test

import (
	"testing"

	"github.com/agencyos/workspaced/store"
)

// TestScopeCovers: a scope covers itself, and name:* covers both actions of name and
// nothing of another name (docs/contract.md section 5.5).
func TestScopeCovers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		granted, need string
		want          bool
	}{
		{"deals:read", "deals:read", true},
		{"deals:read", "deals:write", false},
		{"deals:*", "deals:read", true},
		{"deals:*", "deals:write", true},
		{"deals:*", "deal_tasks:read", false},
		{"deal:*", "deals:read", false},
		{"deals:write", "deals:*", false},
		{"*", "deals:read", false},
		{"deals", "deals:read", false},
	} {
		if got := store.ScopeCovers(c.granted, c.need); got != c.want {
			t.Errorf("ScopeCovers(%q, %q) = %v, want %v", c.granted, c.need, got, c.want)
		}
	}
}
