package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// The whole process's registration endpoint shares the rate limiter: the 21st dynamic
// registration from one address within an hour is refused (decisions.md 7).
func TestRegistrationLimitedPerIPThroughTheServer(t *testing.T) {
	srv, _ := startServer(t)
	body := `{"client_name": "Desktop", "redirect_uris": ["http://127.0.0.1:33418/callback"], "token_endpoint_auth_method": "none"}`
	for i := 1; i <= 21; i++ {
		res, err := http.Post(srv.URL+"/oauth/register", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		want := http.StatusCreated
		if i == 21 {
			want = http.StatusTooManyRequests
		}
		if res.StatusCode != want {
			t.Fatalf("registration %d: %d, want %d", i, res.StatusCode, want)
		}
	}
}

// Rate-limit headers reach REST responses through the real wiring.
func TestRESTCarriesRateLimitHeaders(t *testing.T) {
	srv, s := startServer(t)
	demo, err := s.SeedDemo(t.Context(), func(p string) (string, error) { return "x:" + p, nil })
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/v1/deals?limit=1", nil)
	req.Header.Set("apikey", e2eAPIKey)
	req.Header.Set("Authorization", "Bearer "+demo.AgentKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("X-RateLimit-Limit") != "60" || res.Header.Get("X-RateLimit-Remaining") != "59" {
		t.Fatalf("%d limit %q remaining %q", res.StatusCode, res.Header.Get("X-RateLimit-Limit"), res.Header.Get("X-RateLimit-Remaining"))
	}
}

// Sign-ins spend the shared limiter's login buckets: the 11th attempt for one account
// within 15 minutes is refused with 429 on the login page (issue 10 item 3).
func TestLoginLimitedPerAccountThroughTheServer(t *testing.T) {
	srv, _ := startServer(t)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(srv.URL + "/oauth/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf token on the login page: %s", page)
	}
	for i := 1; i <= 11; i++ {
		res, err := c.PostForm(srv.URL+"/oauth/login", url.Values{"csrf": {string(m[1])}, "email": {"someone@example.test"},
			"password": {"wrong password"}})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want := http.StatusUnauthorized
		if i == 11 {
			want = http.StatusTooManyRequests
		}
		if res.StatusCode != want {
			t.Fatalf("attempt %d: %d, want %d: %s", i, res.StatusCode, want, body)
		}
	}
}
