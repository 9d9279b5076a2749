package httpx

import (
	"net/http"
	"strings"
)

// CORS is the service's one cross-origin policy (docs/decisions.md 7 and 8): any origin
// may call, since credentials travel in headers (Authorization, apikey) and never in
// cookies; each surface names the methods and headers its browser clients use. The OAuth
// token, revocation and registration endpoints and /mcp use it; wellknown's documents,
// which depend on nothing of the service, answer the same Access-Control-Allow-Origin: *.
type CORS struct {
	Methods       []string // what a preflight allows: POST, OPTIONS
	AllowHeaders  []string // request headers a preflight allows
	ExposeHeaders []string // response headers scripts may read
}

// Handler sets the policy's headers on every response of next and answers a preflight
// (OPTIONS with Access-Control-Request-Method) itself.
func (c CORS) Handler(next http.Handler) http.Handler {
	expose := strings.Join(c.ExposeHeaders, ", ") // once, not on every response
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			c.Preflight(w, r)
			return
		}
		allow(w.Header(), expose)
		next.ServeHTTP(w, r)
	})
}

// Preflight answers a CORS preflight: 204 with the allowed methods and headers, cached a day.
func (c CORS) Preflight(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	allow(h, strings.Join(c.ExposeHeaders, ", "))
	h.Set("Access-Control-Allow-Methods", strings.Join(c.Methods, ", "))
	h.Set("Access-Control-Allow-Headers", strings.Join(c.AllowHeaders, ", "))
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

func allow(h http.Header, expose string) {
	h.Set("Access-Control-Allow-Origin", "*")
	if expose != "" {
		h.Set("Access-Control-Expose-Headers", expose)
	}
}
