package wellknown

import (
	"fmt"
	"net/url"
	"strings"
)

// NormalResource is the one comparison form of RFC 8707 resource indicators, used by the
// OAuth provider (which resource a token is bound to) and the MCP server (whether a token
// bound to a resource may call it). Decisions.md 7: values are compared after lowercasing
// scheme and host and dropping a trailing slash; the path, query and percent-encoding keep
// their case, since RFC 3986 section 6.2.2.1 makes only scheme and host case-insensitive.
// It returns an error for a value RFC 8707 section 2 forbids: not an absolute URI, or one
// with a fragment.
func NormalResource(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("resource %q is not an absolute URI", s)
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return "", fmt.Errorf("resource %q has a fragment", s)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if strings.HasSuffix(u.Path, "/") {
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	}
	return u.String(), nil
}
