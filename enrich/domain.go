package enrich

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// NormalizeDomain returns s as the bare hostname a lookup is keyed by: lowercased,
// with any scheme, path, query, fragment, port and trailing dot removed, and
// "www." kept as given. An internationalised name becomes its ASCII (punycode)
// form. The result must be a DNS hostname with at least one dot:
// labels of 1-63 characters from a-z, 0-9 and '-', not starting or ending with
// '-', at most 253 characters in all, and a top-level label that is not all
// digits. IP literals, userinfo ("user@host") and anything else return an error
// wrapping ErrInvalidDomain.
func NormalizeDomain(s string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(d, "://"); i >= 0 {
		if !validScheme(d[:i]) {
			return "", invalidDomain(s, "bad scheme")
		}
		d = d[i+len("://"):]
	} else {
		d = strings.TrimPrefix(d, "//")
	}
	if i := strings.IndexAny(d, "/?#"); i >= 0 {
		d = d[:i]
	}
	if strings.HasPrefix(d, "[") {
		return "", invalidDomain(s, "IP literal")
	}
	if i := strings.LastIndexByte(d, ':'); i >= 0 {
		port := d[i+1:]
		d = d[:i]
		if strings.Contains(d, ":") {
			return "", invalidDomain(s, "IP literal")
		}
		if len(port) > 5 || strings.Trim(port, "0123456789") != "" {
			return "", invalidDomain(s, "bad port")
		}
	}
	d = strings.TrimSuffix(d, ".")
	if !isASCII(d) {
		// UTS #46 / RFC 5891: an internationalised name is looked up by its
		// A-label form (bücher.de -> xn--bcher-kva.de).
		a, err := idna.Lookup.ToASCII(d)
		if err != nil {
			return "", invalidDomain(s, "invalid internationalised name")
		}
		d = strings.TrimSuffix(a, ".")
	}
	if _, err := netip.ParseAddr(d); err == nil {
		return "", invalidDomain(s, "IP literal")
	}
	if reason := hostnameProblem(d); reason != "" {
		return "", invalidDomain(s, reason)
	}
	return d, nil
}

func invalidDomain(s, reason string) error {
	return fmt.Errorf("%w: %q: %s", ErrInvalidDomain, s, reason)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// validScheme reports whether s is a URL scheme (RFC 3986 section 3.1).
func validScheme(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// hostnameProblem says what makes the lowercase d not a hostname with at least
// one dot (RFC 1123 section 2.1, RFC 3696 section 2), or "" when it is one.
func hostnameProblem(d string) string {
	if d == "" {
		return "empty"
	}
	if len(d) > 253 {
		return "longer than 253 characters"
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return "no dot"
	}
	for _, l := range labels {
		if l == "" {
			return "empty label"
		}
		if len(l) > 63 {
			return "label longer than 63 characters"
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return "label starts or ends with '-'"
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Sprintf("character %q not allowed", c)
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return "all-numeric top-level label"
	}
	return ""
}
