package store

import "strings"

// ScopeCovers reports whether the scope granted covers the scope need (deals:read): a
// scope covers itself, and the wildcard name:* covers every action of name (docs/contract.md
// section 5.5). It is the one statement of the wildcard: workspace.HasScope checks
// credentials' scopes with it and the OAuth server (oauth/scopes.go) expands a request's
// wildcards with it.
func ScopeCovers(granted, need string) bool {
	if granted == need {
		return true
	}
	name, action, ok := strings.Cut(granted, ":")
	if !ok || action != "*" {
		return false
	}
	n, _, _ := strings.Cut(need, ":")
	return n == name
}
