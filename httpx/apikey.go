package httpx

import (
	"crypto/subtle"
	"net/http"
)

// APIKeyValid reports whether r carries the public routing key want (docs/decisions.md 7):
// the apikey header, or the apikey query parameter for clients that cannot add headers
// (OAuth clients following the metadata's token_endpoint). The REST API and the OAuth
// token and revocation endpoints share this one check; an empty want accepts nothing.
func APIKeyValid(r *http.Request, want string) bool {
	got := r.Header.Get("apikey")
	if got == "" {
		got = r.URL.Query().Get("apikey")
	}
	return got != "" && want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
