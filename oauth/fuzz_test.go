package oauth

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Native fuzz tests (go test -fuzz=FuzzX ./oauth). Without -fuzz they run their seed corpus
// as ordinary tests; CI also fuzzes each for a short fixed time.

var redirectSeeds = []string{
	"https://app.example.com/callback", "http://127.0.0.1/callback", "http://127.0.0.1:51004/callback",
	"http://localhost:3000/cb?x=1", "http://[::1]:33418/cb", "com.example.app:/oauth2redirect",
	"cursor://anysphere.cursor-retrieval/oauth/callback", "urn:ietf:wg:oauth:2.0:oob", "ms-settings:x", "javascript:alert(1)",
	"https://app.example.com@evil.example/", "https://app.example.com/cb#x", "http://app.example.com/cb", "HTTPS://a.example/",
	"http://localhost.evil.example/cb", "http://127.0.0.1:0/\x00", "https://a.example/caf\xc3\xa9", "http://[::ffff:127.0.0.1]/cb",
	"http://0x7f.1/cb", "http://127.1/cb", "web+app:/cb", "a.:/cb", "https:///cb", "https://a.example/%zz", "",
}

// FuzzCheckRedirectURI: whatever registration accepts is a place to return to that no
// browser or operating system treats as script, a system program, or someone else's host.
func FuzzCheckRedirectURI(f *testing.F) {
	for _, s := range redirectSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkRedirectURI(raw) != nil {
			return
		}
		for i := 0; i < len(raw); i++ {
			if raw[i] <= ' ' || raw[i] >= 0x7f {
				t.Fatalf("accepted %q with a byte outside printable ASCII", raw)
			}
		}
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" || u.Scheme != strings.ToLower(u.Scheme) || u.User != nil || u.Opaque != "" ||
			strings.Contains(raw, "#") {
			t.Fatalf("accepted %q: %v %+v", raw, err, u)
		}
		switch {
		case u.Scheme != "http" && u.Scheme != "https" && !desktopSchemes[u.Scheme] && !strings.Contains(u.Scheme, "."):
			t.Fatalf("accepted %q: a single-word private-use scheme not on the desktop clients' list (RFC 8252 7.1)", raw)
		case u.Scheme == "http" && !isLoopbackHost(u.Hostname()):
			t.Fatalf("accepted plain http to %q", u.Hostname())
		case u.Scheme == "https" && u.Host == "":
			t.Fatalf("accepted https without a host: %q", raw)
		}
		// A registered URI is always usable as itself.
		c := &Client{RedirectURIs: []string{raw}}
		if got, ok := c.redirectAllowed(raw); !ok || got != raw {
			t.Fatalf("registered %q does not match itself", raw)
		}
	})
}

// FuzzMatchRedirect: a requested redirect_uri matches a registered one only when it is the
// same string, or the same loopback http URI on another port; never another host.
func FuzzMatchRedirect(f *testing.F) {
	for _, reg := range redirectSeeds[:8] {
		for _, req := range redirectSeeds {
			f.Add(reg, req)
		}
	}
	f.Add("http://127.0.0.1/cb", "http://127.0.0.1:9/cb")
	f.Add("http://localhost/cb", "http://LOCALHOST:9/cb")
	f.Add("http://127.0.0.1/cb", "http://127.0.0.1:9/cb#frag")
	f.Add("http://127.0.0.1/cb?a=1", "http://127.0.0.1:9/cb?a=1&b=2")
	f.Fuzz(func(t *testing.T, registered, requested string) {
		if !matchRedirect(registered, requested) || registered == requested {
			return
		}
		reg, err1 := url.Parse(registered)
		req, err2 := url.Parse(requested)
		if err1 != nil || err2 != nil {
			t.Fatalf("matched unparseable URIs %q %q", registered, requested)
		}
		if reg.Scheme != "http" || req.Scheme != "http" || !isLoopbackHost(req.Hostname()) || req.Hostname() != reg.Hostname() {
			t.Fatalf("%q matched %q: only loopback http may differ (in the port)", requested, registered)
		}
		if req.User != nil || strings.Contains(requested, "#") || req.EscapedPath() != reg.EscapedPath() || req.RawQuery != reg.RawQuery {
			t.Fatalf("%q matched %q with more than the port changed", requested, registered)
		}
	})
}

// fuzzServer is just enough of a Server to check registrations.
func fuzzServer() *Server {
	scopes := []string{"deals:read", "deals:write", "people:read", "directory:write", "enrich:write"}
	s := &Server{cfg: Config{Scopes: scopes}, catalogue: map[string]bool{}, now: time.Now}
	for _, sc := range scopes {
		s.catalogue[sc] = true
	}
	return s
}

// FuzzRegistrationMetadata: any JSON body either registers a public client that keeps every
// registration rule, or is refused with an RFC 7591 error code and a description.
func FuzzRegistrationMetadata(f *testing.F) {
	for _, seed := range []string{
		`{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"token_endpoint_auth_method":"none"}`,
		`{"redirect_uris":["http://127.0.0.1/callback"],"scope":"deals:* people:read","grant_types":["authorization_code","refresh_token"]}`,
		`{"redirect_uris":["urn:ietf:wg:oauth:2.0:oob"]}`, `{"redirect_uris":["ms-settings:x"]}`,
		`{"redirect_uris":["https://a.example/cb"],"client_name":"a\u0000b"}`, `{"redirect_uris":["https://a.example/cb"],"client_name":"\u202eevil"}`,
		`{"redirect_uris":["https://a.example/cb"],"logo_uri":"javascript:alert(1)","client_uri":"https://a.example/"}`,
		`{"redirect_uris":"https://a.example/cb"}`, `{"redirect_uris":[1]}`, `{"client_name":7}`, `[]`, `null`, `{}`,
		`{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`,
		`{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`, "{\"client_name\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	s := fuzzServer()
	f.Fuzz(func(t *testing.T, body []byte) {
		var m registration
		if json.Unmarshal(body, &m) != nil {
			return // the handler answers invalid_client_metadata before checking
		}
		c, e := s.checkRegistration(m)
		if e != nil {
			if e.Code != "invalid_redirect_uri" && e.Code != "invalid_client_metadata" || e.Description == "" || e.Status != 400 {
				t.Fatalf("refusal %+v is not an RFC 7591 error", e)
			}
			return
		}
		if !strings.HasPrefix(c.ID, PrefixDynamicClient) || c.Confidential() || !c.Dynamic || c.Verified || c.WorkspaceID != "" {
			t.Fatalf("registered %+v: dynamic clients are public, unverified and owned by no workspace", c)
		}
		if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > MaxRedirectURIs {
			t.Fatalf("registered %d redirect URIs", len(c.RedirectURIs))
		}
		for _, u := range c.RedirectURIs {
			if checkRedirectURI(u) != nil {
				t.Fatalf("registered the refused redirect URI %q", u)
			}
		}
		if c.Name == "" || len(c.Name) > 100 || !displayable(c.Name) || !utf8.ValidString(c.Name) {
			t.Fatalf("registered the name %q", c.Name)
		}
		for _, u := range []string{c.LogoURI, c.ClientURI} {
			if u != "" && (!strings.HasPrefix(u, "https://") || !storable(u)) {
				t.Fatalf("registered the URL %q", u)
			}
		}
		for _, sc := range c.Scope {
			if !slices.Contains(s.cfg.Scopes, sc) {
				t.Fatalf("registered the scope %q, not in the catalogue", sc)
			}
		}
	})
}

// FuzzMetadataDocument: a Client ID Metadata Document is used only when it names itself,
// is for a public client, and its redirect URIs and name follow the registration rules.
func FuzzMetadataDocument(f *testing.F) {
	self := "https://client.example/oauth/client.json"
	f.Add([]byte(`{"client_id":"` + self + `","client_name":"Desktop","redirect_uris":["http://127.0.0.1/callback"]}`))
	f.Add([]byte(`{"client_id":"https://other.example/c.json","redirect_uris":["http://127.0.0.1/callback"]}`))
	f.Add([]byte(`{"client_id":"` + self + `","redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"private_key_jwt"}`))
	f.Add([]byte(`{"client_id":"` + self + `","client_name":"a\u0000","redirect_uris":["urn:ietf:wg:oauth:2.0:oob"]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var doc cimdDocument
		if json.Unmarshal(body, &doc) != nil {
			return
		}
		c, err := validateDocument(self, &doc)
		if err != nil {
			return
		}
		if doc.ClientID != self || doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none" {
			t.Fatalf("used a document for %q with auth method %q", doc.ClientID, doc.TokenEndpointAuthMethod)
		}
		for _, u := range c.RedirectURIs {
			if checkRedirectURI(u) != nil {
				t.Fatalf("used the refused redirect URI %q", u)
			}
		}
		if !displayable(c.Name) || len(c.Name) > 200 {
			t.Fatalf("used the name %q", c.Name)
		}
	})
}
