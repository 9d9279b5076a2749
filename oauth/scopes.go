package oauth

import (
	"slices"
	"strings"

	"github.com/agencyos/workspaced/store"
)

// parseScope turns a space-separated scope parameter (RFC 6749 3.3) into catalogue scopes
// in catalogue order, expanding wildcards ("deals:*" -> deals:read, deals:write:
// store.ScopeCovers). Anything not in the catalogue is invalid_scope.
func (s *Server) parseScope(param string) ([]string, error) {
	want := map[string]bool{}
	for _, sc := range strings.Fields(param) {
		_, action, ok := strings.Cut(sc, ":")
		if !ok {
			return nil, ErrInvalidScope.WithHint("unknown scope %q; scopes look like deals:read", sc)
		}
		if action == "*" {
			found := false
			for _, c := range s.cfg.Scopes {
				if store.ScopeCovers(sc, c) {
					want[c], found = true, true
				}
			}
			if !found {
				return nil, ErrInvalidScope.WithHint("unknown scope %q", sc)
			}
			continue
		}
		if !s.catalogue[sc] {
			return nil, ErrInvalidScope.WithHint("unknown scope %q", sc)
		}
		want[sc] = true
	}
	return s.ordered(want), nil
}

// ordered lists the members of set in catalogue order.
func (s *Server) ordered(set map[string]bool) []string {
	out := []string{}
	for _, c := range s.cfg.Scopes {
		if set[c] {
			out = append(out, c)
		}
	}
	return out
}

// intersect keeps the scopes of a that b also holds, in a's order.
func intersect(a, b []string) []string {
	out := []string{}
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// subset reports whether every scope of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
