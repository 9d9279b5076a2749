package oauth

import (
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agencyos/workspaced/store"
)

// Client id prefixes: svcapp_ for admin-registered apps (docs/contract.md section 4.3 rule 9), svcdyn_
// for dynamically registered ones (RFC 7591).
const (
	PrefixAppClient     = "svcapp_"
	PrefixDynamicClient = "svcdyn_"
)

// Client is a registered OAuth client (its row, with the provider's rules as methods).
type Client store.OAuthClient

// adminRegistered reports whether a workspace admin registered the client (verified, not
// self-registered): only such clients are trusted to receive errors without a page and to
// reuse a consent at any of their redirect URIs (docs/decisions.md 7).
func (c *Client) adminRegistered() bool { return c.Verified && !c.Dynamic }

// Confidential reports whether the client holds a secret and must authenticate.
func (c *Client) Confidential() bool { return len(c.SecretHash) > 0 }

// storable reports whether s can be a text value in PostgreSQL at all: valid UTF-8 with no
// NUL. Identifiers that are not cannot name anything stored, so lookups treat them as
// unknown instead of sending them to the database (which would fail the statement).
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// displayable reports whether s may be shown as a name on our pages: storable, with no
// control characters and no bidirectional overrides, which can make a name read as another
// (an "\u202e" reverses what follows).
func displayable(s string) bool {
	if !storable(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' {
			return false
		}
	}
	return true
}

// isLoopbackHost reports whether host (no port, brackets removed) is a loopback host of
// RFC 8252 section 7.3: localhost, 127.0.0.0/8 or ::1.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback() && (a.Is4() || a == netip.IPv6Loopback())
}

// matchRedirect reports whether a requested redirect_uri matches a registered one: exact
// string comparison (RFC 6749 3.1.2.3, RFC 9700 4.1.3), except that for loopback http URIs
// the port is ignored (RFC 8252 section 7.3) while scheme, host, path and query stay exact.
func matchRedirect(registered, requested string) bool {
	if registered == requested {
		return true
	}
	reg, err1 := url.Parse(registered)
	req, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || reg.Scheme != "http" || req.Scheme != "http" {
		return false
	}
	if !isLoopbackHost(reg.Hostname()) || reg.Hostname() != req.Hostname() {
		return false
	}
	if req.User != nil || reg.User != nil || req.Fragment != "" || req.RawFragment != "" {
		return false
	}
	return reg.EscapedPath() == req.EscapedPath() && reg.RawQuery == req.RawQuery && reg.ForceQuery == req.ForceQuery
}

// redirectAllowed returns the registered redirect URI a request may use: the requested one
// when it matches, or the only registered one when none was sent (RFC 6749 3.1.2.3). A
// URI today's rules refuse (checkRedirectURI) is never used, though a client registered
// under older ones may still list it: no answer, Deny or error link, sends a browser there.
func (c *Client) redirectAllowed(requested string) (string, bool) {
	if requested == "" {
		if len(c.RedirectURIs) == 1 && checkRedirectURI(c.RedirectURIs[0]) == nil {
			return c.RedirectURIs[0], true
		}
		return "", false
	}
	for _, reg := range c.RedirectURIs {
		if matchRedirect(reg, requested) {
			return requested, checkRedirectURI(requested) == nil
		}
	}
	return "", false
}

// desktopSchemes are the single-word private-use schemes real desktop MCP clients register
// their redirect URIs under (docs/oauth.md, "Redirect URIs"). Every other private-use scheme
// must be reverse-domain (RFC 8252 section 7.1): a single word is as likely a program of the
// operating system's (search-ms:, shell:, smb:, intent:, tel: ...) as a client, and a
// redirect there starts that program.
var desktopSchemes = map[string]bool{"cursor": true, "vscode": true, "vscode-insiders": true, "vscodium": true,
	"claude": true, "windsurf": true, "zed": true}

// platformSchemes are the scheme namespaces of operating systems and desktops: their
// settings panes, file managers and system apps (x-apple.systempreferences:,
// microsoft.windows.camera:, ms-settings:, com.android.settings:, org.gnome.Settings,
// org.kde.dolphin ...). A client cannot control a domain of theirs, so RFC 8252 section 7.1
// gives it no scheme here, and a redirect there opens a program of the system. This is the
// one list: every path that accepts a redirect URI (dynamic registration, Client ID
// Metadata Documents, admin-registered apps, the redirect itself) goes through
// checkRedirectURI. An entry names a scheme, its dotted subspace (com.apple.*) and, for a
// single label, its hyphenated family (ms-*, x-apple-*).
var platformSchemes = []string{
	"apple", "com.apple", "x-apple", // macOS and iOS
	"microsoft", "com.microsoft", "ms", "windows", // Windows
	"android", "com.android", "com.google.android", // Android
	"gnome", "org.gnome", "kde", "org.kde", "freedesktop", "org.freedesktop", // Linux desktops
}

// platformScheme returns the entry of platformSchemes scheme falls under, or "".
func platformScheme(scheme string) string {
	for _, p := range platformSchemes {
		if scheme == p || strings.HasPrefix(scheme, p+".") || !strings.Contains(p, ".") && strings.HasPrefix(scheme, p+"-") {
			return p
		}
	}
	return ""
}

// reverseDomain reports whether scheme is a domain name written in reverse (RFC 8252
// section 7.1: com.example.app for app.example.com): at least two labels of letters,
// digits and inner hyphens, the first a top-level domain (letters, or an xn-- IDN label).
// Experimental x- names and other words with a dot are not domains anyone owns.
func reverseDomain(scheme string) bool {
	labels := strings.Split(scheme, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	tld := labels[0]
	if strings.HasPrefix(tld, "xn--") {
		return true
	}
	if len(tld) < 2 {
		return false
	}
	for _, c := range tld {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// checkRedirectURI validates one redirect URI for registration (docs/contract.md section 4.3 rule 7,
// RFC 8252 sections 7.1 and 7.3, RFC 9700 2.1): an https URL, a loopback http URL, or a
// private-use scheme; never a fragment or user info.
func checkRedirectURI(raw string) *Error {
	if raw == "" || len(raw) > 2000 {
		return ErrInvalidRedirectURI.WithHint("redirect URIs must be 1 to 2000 characters")
	}
	// RFC 3986 URIs are printable ASCII; anything else is percent-encoded.
	for i := 0; i < len(raw); i++ {
		if raw[i] <= ' ' || raw[i] >= 0x7f {
			return ErrInvalidRedirectURI.WithHint("redirect URIs are printable ASCII: percent-encode spaces, control and non-ASCII characters")
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return ErrInvalidRedirectURI.WithHint("%q is not an absolute URI", raw)
	}
	// RFC 6749 3.1.2: the redirection endpoint URI MUST NOT include a fragment component.
	if strings.Contains(raw, "#") {
		return ErrInvalidRedirectURI.WithHint("%q has a fragment; redirect URIs must not (RFC 6749 3.1.2)", raw)
	}
	if u.User != nil {
		return ErrInvalidRedirectURI.WithHint("%q carries user info", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != u.Scheme {
		return ErrInvalidRedirectURI.WithHint("%q: write the scheme in lower case", raw)
	}
	switch {
	case scheme == "https":
		if u.Host == "" || u.Opaque != "" {
			return ErrInvalidRedirectURI.WithHint("%q has no host", raw)
		}
		return nil
	case scheme == "http":
		// RFC 8252 7.3: plain http only to the loopback interface.
		if u.Opaque == "" && isLoopbackHost(u.Hostname()) {
			return nil
		}
		return ErrInvalidRedirectURI.WithHint("%q: plain http is accepted for loopback hosts only (localhost, 127.0.0.1, [::1]); use https", raw)
	}
	// RFC 8252 7.1: a private-use scheme is reverse-domain (com.example.app:/cb), or one of
	// the single-word schemes desktop clients register (desktopSchemes).
	for _, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+') {
			return ErrInvalidRedirectURI.WithHint("%q: malformed scheme", raw)
		}
	}
	if !desktopSchemes[scheme] {
		if !reverseDomain(scheme) {
			return ErrInvalidRedirectURI.WithHint("%q: a private-use scheme must be reverse-domain, like com.example.app (RFC 8252 7.1), "+
				"or one of the desktop clients' schemes: %s", raw, strings.Join(slices.Sorted(maps.Keys(desktopSchemes)), ", "))
		}
		if p := platformScheme(scheme); p != "" {
			return ErrInvalidRedirectURI.WithHint("%q: %s schemes belong to an operating system or desktop, not to a client (RFC 8252 7.1)", raw, p)
		}
	}
	// A redirect URI names a place to return to, scheme:/path or scheme://authority/path
	// (RFC 8252 7.1); opaque URIs (urn:ietf:wg:oauth:2.0:oob, the retired out-of-band
	// value) are not places.
	if u.Opaque != "" {
		return ErrInvalidRedirectURI.WithHint("%q is not a redirect address: use scheme:/path (RFC 8252 7.1); the out-of-band flow is not supported", raw)
	}
	return nil
}

// redirectOrigin is the CSP form-action source of a redirect URI: scheme://host[:port] for
// http(s), the scheme alone ("cursor:") for private-use schemes.
func redirectOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + ":"
}

// redirectHost is what the consent page names as where the member is sent.
func redirectHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}
