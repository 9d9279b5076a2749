package httpx_test

import (
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/agencyos/workspaced/httpx"
)

// TestAPIKeyValid: the key is accepted from the header or the query, compared whole; a
// wrong, missing or empty key is refused, and so is every key when none is configured.
func TestAPIKeyValid(t *testing.T) {
	cases := []struct {
		name, url, header, want string
		ok                      bool
	}{
		{"header", "/v1/me", "pk_1", "pk_1", true},
		{"query", "/v1/me?apikey=pk_1", "", "pk_1", true},
		{"header wins over query", "/v1/me?apikey=pk_2", "pk_1", "pk_1", true},
		{"wrong", "/v1/me", "pk_2", "pk_1", false},
		{"prefix", "/v1/me", "pk_", "pk_1", false},
		{"missing", "/v1/me", "", "pk_1", false},
		{"none configured", "/v1/me?apikey=", "", "", false},
		{"none configured, one sent", "/v1/me", "pk_1", "", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", c.url, nil)
		if c.header != "" {
			r.Header.Set("apikey", c.header)
		}
		if got := httpx.APIKeyValid(r, c.want); got != c.ok {
			t.Errorf("%s: APIKeyValid = %v, want %v", c.name, got, c.ok)
		}
	}
}

// TestNewAPIKey: a generated key has the routing key's form, differs each time, and is
// accepted by the one check.
func TestNewAPIKey(t *testing.T) {
	a, b := httpx.NewAPIKey(), httpx.NewAPIKey()
	if !regexp.MustCompile(`^pk_[0-9A-Za-z]{24}$`).MatchString(a) || a == b {
		t.Fatalf("keys %q and %q: want two different pk_ keys of 24 base-62 characters", a, b)
	}
	r := httptest.NewRequest("GET", "/v1/deals", nil)
	r.Header.Set("apikey", a)
	if !httpx.APIKeyValid(r, a) {
		t.Fatalf("a generated key %q is refused by APIKeyValid", a)
	}
}
