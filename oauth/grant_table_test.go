package oauth_test

import (
	"net/url"
	"testing"
)

// TestUnsupportedGrantType: a grant type the token endpoint does not serve is
// unsupported_grant_type (RFC 6749 section 5.2), and the description names the ones it
// serves, authorization_code and refresh_token (docs/decisions.md 7), whatever else the
// request holds.
func TestUnsupportedGrantType(t *testing.T) {
	e := newEnv(t)
	client := e.register("https://app.example.com/cb")
	for _, tc := range []struct{ name, grant string }{
		{"fails because the password grant is not served (RFC 6749 4.3)", "password"},
		{"fails because the client credentials grant is not served (RFC 6749 4.4)", "client_credentials"},
		{"fails because the device grant is not served (RFC 8628 3.4)", "urn:ietf:params:oauth:grant-type:device_code"},
		{"fails because grant types are case-sensitive (RFC 6749 section 8.3 names them exactly)", "Refresh_Token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.post("/oauth/token", url.Values{"grant_type": {tc.grant}, "client_id": {client}, "refresh_token": {"x"}})
			wantOAuthError(t, r, 400, "unsupported_grant_type")
			want := `grant_type "` + tc.grant + `" is not supported; use authorization_code or refresh_token`
			if got := r.str("error_description"); got != want {
				t.Errorf("error_description %q, want %q", got, want)
			}
		})
	}
}
