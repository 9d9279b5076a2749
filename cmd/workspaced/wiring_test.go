package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// The whole process's registration endpoint shares the rate limiter: the 21st dynamic
// registration from one address within an hour is refused (docs/decisions.md 7).
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
	res := listDemoDeals(t, func(*config) {})
	if res.StatusCode != 200 || res.Header.Get("X-RateLimit-Limit") != "60" || res.Header.Get("X-RateLimit-Remaining") != "59" {
		t.Fatalf("%d limit %q remaining %q", res.StatusCode, res.Header.Get("X-RateLimit-Limit"), res.Header.Get("X-RateLimit-Remaining"))
	}
}

// listDemoDeals seeds the demo workspace in a server built with edit and asks it for
// GET /v1/deals?limit=1 as the demo agent; the body is closed.
func listDemoDeals(t *testing.T, edit func(*config)) *http.Response {
	t.Helper()
	srv, s := startServerWith(t, edit)
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
	return res
}

// Sign-ins spend the shared limiter's sign-in budgets: after 5 failures for one account
// from one address within 15 minutes the next attempt is refused with 429 on the login
// page.
func TestLoginLimitedPerAccountThroughTheServer(t *testing.T) {
	srv, _ := startServer(t)
	c, form := loginForm(t, srv.URL)
	form.Set("email", "someone@example.test")
	form.Set("password", "wrong password")
	for i := 1; i <= 6; i++ {
		res, err := c.PostForm(srv.URL+"/oauth/login", form)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want := http.StatusUnauthorized
		if i == 6 {
			want = http.StatusTooManyRequests
		}
		if res.StatusCode != want {
			t.Fatalf("attempt %d: %d, want %d: %s", i, res.StatusCode, want, body)
		}
	}
}

// loginForm opens the sign-in page at base in a browser that keeps cookies and does not
// follow redirects, and returns it with the page's hidden fields (the CSRF token).
func loginForm(t *testing.T, base string) (*http.Client, url.Values) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(base + "/oauth/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	form := hiddenFields(string(page))
	if form.Get("csrf") == "" {
		t.Fatalf("no csrf token on the login page: %s", page)
	}
	return c, form
}

// With Redis down and limits failing closed, the OAuth endpoints that spend the shared
// limiter answer as REST does, 503 with Retry-After: 5 (README, RATE_LIMIT_FAIL_OPEN),
// not 429: the budget is not spent, and a client told 429 with registration's Retry-After
// of an hour would wait an hour. Failing open, they go through.
func TestOAuthWithRedisDown(t *testing.T) {
	const down = "redis://127.0.0.1:1/0" // a closed port: refused at once
	body := `{"client_name": "Desktop", "redirect_uris": ["http://127.0.0.1:33418/callback"], "token_endpoint_auth_method": "none"}`
	register := func(t *testing.T, base string) *http.Response {
		t.Helper()
		res, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	t.Run("closed", func(t *testing.T) {
		srv, _ := startServerWith(t, func(c *config) { c.RedisURL = down })
		res := register(t, srv.URL)
		var e struct{ Error string }
		_ = json.NewDecoder(res.Body).Decode(&e)
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable || e.Error != "temporarily_unavailable" || res.Header.Get("Retry-After") != "5" {
			t.Errorf("register: %d %q, Retry-After %q; want 503 temporarily_unavailable, 5", res.StatusCode, e.Error, res.Header.Get("Retry-After"))
		}

		c, form := loginForm(t, srv.URL)
		form.Set("email", "someone@example.test")
		form.Set("password", "some password")
		res, err := c.PostForm(srv.URL+"/oauth/login", form)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "5" ||
			strings.Contains(string(page), "Too many") || !strings.Contains(string(page), "unavailable") {
			t.Errorf("sign-in: %d, Retry-After %q; want 503, 5 and a page saying sign-in is unavailable:\n%s",
				res.StatusCode, res.Header.Get("Retry-After"), page)
		}

		// A metadata-document client spends the registration budget before its fetch.
		q := url.Values{"response_type": {"code"}, "client_id": {"https://assistant.example/client.json"},
			"redirect_uri": {"http://127.0.0.1/callback"}, "code_challenge": {strings.Repeat("a", 43)},
			"code_challenge_method": {"S256"}, "state": {"s"}}
		res, err = c.Get(srv.URL + "/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		page, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "5" || strings.Contains(string(page), "Too many") {
			t.Errorf("authorize with a metadata document: %d, Retry-After %q; want 503, 5:\n%s", res.StatusCode, res.Header.Get("Retry-After"), page)
		}
	})

	t.Run("open", func(t *testing.T) {
		srv, _ := startServerWith(t, func(c *config) { c.RedisURL = down; c.RateLimitFailOpen = true })
		res := register(t, srv.URL)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Errorf("register: %d, want 201", res.StatusCode)
		}
	})
}

// The access log names the request by the id the response carries: the API's own router
// must not replace the id the server's router gave the request. Metrics count the call.
func TestAccessLogAndMetricsOfARequest(t *testing.T) {
	srv, handler, logs, mu := routedServer(t)
	s, ctx := srv.store, t.Context()
	ts := httptest.NewServer(handler)
	defer ts.Close()
	demo, err := s.SeedDemo(ctx, func(p string) (string, error) { return "x:" + p, nil })
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 2 {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/deals?limit=1", nil)
		req.Header.Set("apikey", e2eAPIKey)
		req.Header.Set("Authorization", "Bearer "+demo.AgentKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || len(res.Header.Values("X-Request-Id")) != 1 {
			t.Fatalf("%d, X-Request-Id %q", res.StatusCode, res.Header.Values("X-Request-Id"))
		}
		ids = append(ids, res.Header.Get("X-Request-Id"))
	}
	mu.Lock()
	lines := logs.String()
	mu.Unlock()
	for _, id := range ids {
		if !strings.Contains(lines, `"msg":"request","request_id":"`+id+`","method":"GET","path":"/v1/deals"`) {
			t.Fatalf("no access log line for request %s in:\n%s", id, lines)
		}
	}
	// /metrics is not on the public port (METRICS_ADDR); read the handler that listener serves.
	rec := httptest.NewRecorder()
	srv.metricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	want := `workspaced_http_requests_total{method="GET",route="/v1/{resource}",status="200"} 2`
	if !strings.Contains(body, want) {
		t.Fatalf("metrics lack %s:\n%s", want, body)
	}
}

// routedServer builds the server's routes over the package database, logging JSON into
// logs (read it under mu).
func routedServer(t *testing.T) (srv *server, handler http.Handler, logs *bytes.Buffer, mu *sync.Mutex) {
	t.Helper()
	logs, mu = &bytes.Buffer{}, &sync.Mutex{}
	log := slog.New(slog.NewJSONHandler(lockedWriter{mu, logs}, nil))
	srv = &server{cfg: config{PublicURL: "http://127.0.0.1", RefreshGrace: 30 * time.Second}, log: log,
		store: storetest.New(t), apiKey: e2eAPIKey, reg: prometheus.NewRegistry()}
	srv.metrics = newHTTPMetrics(srv.reg)
	handler, _, err := srv.routes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return srv, handler, logs, mu
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// DB_MAX_CONNS sizes the pool; the default is 16 and nonsense is refused.
func TestPoolSizeFromConfig(t *testing.T) {
	t.Setenv("DB_MAX_CONNS", "")
	c, err := parseConfig(flag.NewFlagSet("serve", flag.ContinueOnError), nil)
	if err != nil || c.DB.MaxConns != 16 {
		t.Fatalf("default: %d, %v", c.DB.MaxConns, err)
	}
	for _, bad := range []string{"0", "-3", "many"} {
		t.Setenv("DB_MAX_CONNS", bad)
		if _, err := parseConfig(flag.NewFlagSet("serve", flag.ContinueOnError), nil); err == nil {
			t.Fatalf("DB_MAX_CONNS=%s accepted", bad)
		}
	}
	t.Setenv("DB_MAX_CONNS", "7")
	c, err = parseConfig(flag.NewFlagSet("serve", flag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenWith(t.Context(), storetest.DSN(t), store.Options{MaxConns: c.DB.MaxConns})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Stat().MaxConns(); got != 7 {
		t.Fatalf("pool of %d connections, want 7", got)
	}
}

// Log lines reach the output within the flush interval, whole, and all of them on Close.
func TestBatchedLogFlushes(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	l := newBatchedLog(lockedWriter{&mu, &out}, 20*time.Millisecond)
	log := slog.New(slog.NewJSONHandler(l, nil))
	log.Info("first")
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		got := out.String()
		mu.Unlock()
		if strings.Contains(got, `"msg":"first"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a line was not written within the flush interval")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i := range 1000 {
		log.Info("line", "n", i)
	}
	l.Close()
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(out.String(), `"msg":"line"`); n != 1000 || !strings.HasSuffix(out.String(), "\n") {
		t.Fatalf("%d of 1000 lines after Close", n)
	}
}

// A panic under the server's router (the stack every route shares: REST, OAuth, MCP,
// health) answers 500 in the spec's envelope with the request id, is logged once with its
// stack, and the access log records the 500.
func TestPanicRecoveredOnEveryRoute(t *testing.T) {
	_, handler, logs, mu := routedServer(t)
	mux, ok := handler.(*chi.Mux)
	if !ok {
		t.Fatalf("routes returned a %T, want the chi router", handler)
	}
	// A route added to the router gets its middleware stack, as /v1, /oauth and /mcp do.
	mux.Get("/panic-probe", func(http.ResponseWriter, *http.Request) { panic("probe") })
	ts := httptest.NewServer(handler)
	defer ts.Close()
	res, err := http.Get(ts.URL + "/panic-probe")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	id := res.Header.Get("X-Request-Id")
	if res.StatusCode != 500 || body["error"] != "internal_error" || body["request_id"] != id || id == "" {
		t.Fatalf("got %d %v (X-Request-Id %q), want 500 internal_error with the request id", res.StatusCode, body, id)
	}
	mu.Lock()
	lines := logs.String()
	mu.Unlock()
	if n := strings.Count(lines, `"msg":"panic"`); n != 1 || !strings.Contains(lines, `"stack":"goroutine`) {
		t.Fatalf("%d panic lines (want 1, with the stack) in:\n%s", n, lines)
	}
	if !strings.Contains(lines, `"msg":"request","request_id":"`+id+`","method":"GET","path":"/panic-probe","route":"/panic-probe","status":500`) {
		t.Fatalf("the access log does not record the 500:\n%s", lines)
	}
}
