package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agencyos/workspaced/httpx"
)

// TestCORS: a preflight is answered 204 with the policy's methods and headers and never
// reaches the handler; other requests reach it with the origin and exposed headers set.
func TestCORS(t *testing.T) {
	c := httpx.CORS{Methods: []string{"POST", "OPTIONS"}, AllowHeaders: []string{"Authorization", "apikey"},
		ExposeHeaders: []string{"WWW-Authenticate"}}
	reached := 0
	h := c.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++; w.WriteHeader(201) }))

	pre := httptest.NewRequest(http.MethodOptions, "/oauth/token", nil)
	pre.Header.Set("Access-Control-Request-Method", "POST")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, pre)
	if w.Code != 204 || reached != 0 || w.Header().Get("Access-Control-Allow-Origin") != "*" ||
		w.Header().Get("Access-Control-Allow-Methods") != "POST, OPTIONS" ||
		w.Header().Get("Access-Control-Allow-Headers") != "Authorization, apikey" || w.Header().Get("Access-Control-Max-Age") != "86400" {
		t.Errorf("preflight: %d, reached %d, headers %v", w.Code, reached, w.Header())
	}

	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/oauth/token", nil))
	if w.Code != 201 || reached != 1 || w.Header().Get("Access-Control-Allow-Origin") != "*" ||
		w.Header().Get("Access-Control-Expose-Headers") != "WWW-Authenticate" || w.Header().Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("request: %d, reached %d, headers %v", w.Code, reached, w.Header())
	}
}
