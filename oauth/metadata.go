package oauth

import (
	"net/url"
	"slices"
	"strings"
)

// clientMetadata is a client's self-description (RFC 7591 section 2) as each source gives
// it: a registration request (register.go), a Client ID Metadata Document (cimd.go), an
// admin's new app (apps.go). A nil list or pointer is a member the source left out.
type clientMetadata struct {
	Name          *string
	RedirectURIs  []string
	AuthMethod    *string // token_endpoint_auth_method
	GrantTypes    []string
	ResponseTypes []string
	LogoURI       string
	ClientURI     string
}

// metadataRules are the points where the sources differ; everything else (redirect URIs
// by docs/contract.md section 4.3 rule 7, public clients only, displayable names, https logo and home
// page) is one rule for all of them, in metadataRules.check.
type metadataRules struct {
	nameField   string // what the name is called in messages
	maxName     int    // the longest name accepted
	defaultName string // the name when none is given; "" makes a name required
	// anyTypes: grant_types and response_types need only include authorization_code and
	// code (a document describes the client to every server it uses); otherwise every
	// value must be one this server supports (a registration asks for exactly that).
	anyTypes bool
	// dropBadURIs: a logo_uri or client_uri that is not https is left out; otherwise it is
	// refused (the registrant can correct it, a document's author is not asking).
	dropBadURIs bool
}

var (
	registrationRules = metadataRules{nameField: "client_name", maxName: 100, defaultName: "Unnamed app"}
	appRules          = metadataRules{nameField: "the name", maxName: 100}
	// documentRules' default name is the client_id URL itself (documentRulesFor).
	documentRules = metadataRules{nameField: "client_name", maxName: 200, anyTypes: true, dropBadURIs: true}
)

// documentRulesFor is documentRules naming an unnamed client by its URL.
func documentRulesFor(clientID string) metadataRules {
	r := documentRules
	r.defaultName = clientID
	return r
}

// checked is metadata that passed: the values to store.
type checked struct {
	Name               string
	RedirectURIs       []string
	LogoURI, ClientURI string
}

// check validates m, returning invalid_redirect_uri or invalid_client_metadata.
func (r metadataRules) check(m clientMetadata) (checked, *Error) {
	if len(m.RedirectURIs) == 0 {
		return checked{}, ErrInvalidRedirectURI.WithHint("redirect_uris is required: a list of 1 to %d URIs", MaxRedirectURIs)
	}
	if len(m.RedirectURIs) > MaxRedirectURIs {
		return checked{}, ErrInvalidRedirectURI.WithHint("at most %d redirect_uris; got %d", MaxRedirectURIs, len(m.RedirectURIs))
	}
	for _, u := range m.RedirectURIs {
		if e := checkRedirectURI(u); e != nil {
			return checked{}, e
		}
	}
	// Clients are public: there is no secret to hand out safely to whoever asks, and a
	// document cannot hold one (docs/decisions.md 7).
	if m.AuthMethod != nil && *m.AuthMethod != "none" && *m.AuthMethod != "" {
		return checked{}, ErrInvalidClientMetadata.WithHint("token_endpoint_auth_method must be none: only public clients, which use PKCE, are supported; got %q", *m.AuthMethod)
	}
	// The table's first grant type, authorization_code, is the one a client must be able to use.
	if e := r.checkTypes("grant_types", m.GrantTypes, GrantTypes()...); e != nil {
		return checked{}, e
	}
	if e := r.checkTypes("response_types", m.ResponseTypes, "code"); e != nil {
		return checked{}, e
	}
	out := checked{Name: r.defaultName, RedirectURIs: m.RedirectURIs}
	if m.Name != nil {
		if name := strings.TrimSpace(*m.Name); name != "" {
			out.Name = name
		}
	}
	switch {
	case out.Name == "" || len(out.Name) > r.maxName:
		return checked{}, ErrInvalidClientMetadata.WithHint("%s must be 1 to %d characters", r.nameField, r.maxName)
	case !displayable(out.Name):
		return checked{}, ErrInvalidClientMetadata.WithHint("%s may not hold control characters or direction overrides", r.nameField)
	}
	for _, f := range []struct {
		name string
		v    string
		dst  *string
	}{{"logo_uri", m.LogoURI, &out.LogoURI}, {"client_uri", m.ClientURI, &out.ClientURI}} {
		if f.v == "" {
			continue
		}
		if e := checkHTTPS(f.name, f.v); e != nil {
			if r.dropBadURIs {
				continue
			}
			return checked{}, e
		}
		*f.dst = f.v
	}
	return out, nil
}

// checkTypes applies anyTypes to a grant_types or response_types list whose first
// supported value is the one a client must be able to use.
func (r metadataRules) checkTypes(field string, got []string, supported ...string) *Error {
	if len(got) == 0 {
		return nil
	}
	if r.anyTypes {
		if !slices.Contains(got, supported[0]) {
			return ErrInvalidClientMetadata.WithHint("%s must include %s", field, supported[0])
		}
		return nil
	}
	for _, v := range got {
		if !slices.Contains(supported, v) {
			return ErrInvalidClientMetadata.WithHint("%s may hold %s only", field, strings.Join(supported, " and "))
		}
	}
	return nil
}

// checkHTTPS accepts an absolute https URL (logo_uri and client_uri: docs/decisions.md 7).
func checkHTTPS(name, raw string) *Error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(raw) > 2000 || !storable(raw) {
		return ErrInvalidClientMetadata.WithHint("%s must be an https URL", name)
	}
	return nil
}
