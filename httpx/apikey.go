package httpx

import (
	"crypto/subtle"
	"net/http"

	"github.com/agencyos/workspaced/store"
)

// NewAPIKey makes the public routing key (docs/contract.md section 5.1) of a server whose
// APIKEY setting is empty (cmd stores it once, in service_settings): "pk_" and 24 random
// base-62 characters, a form that tells it apart from the credentials.
func NewAPIKey() string {
	k, _ := store.NewSecret("pk_")
	return k[:27]
}

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
