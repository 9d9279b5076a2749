package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
)

// A frozen PostgreSQL (every process of it stopped: connections open, nothing answers)
// turns into prompt 503 internal_error answers with Retry-After, within the configured
// deadlines; unknown credentials are not charged as failed authentications (which would
// become 429 for everyone behind the IP); the errors are counted in /metrics and logged
// sampled; and the service recovers by itself when the database thaws.
func TestDrillFrozenPostgres(t *testing.T) {
	pg := privatePG(t)
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+pg.DSN, "DB_STATEMENT_TIMEOUT=1s", "DB_ACQUIRE_TIMEOUT=1s",
		"LOG_LEVEL=info")
	_, key := agentKey(t, pg.DSN)
	if code, _, body := call(http.DefaultClient, "GET", d.url+"/v1/me", key, nil); code != 200 {
		t.Fatalf("before the freeze: %d %s", code, body)
	}
	logBefore := d.log.Total()

	if err := pg.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	frozen := time.Now()
	// Thaw after 10s whatever happens, so a service without deadlines fails the timing
	// check below instead of hanging the test.
	thaw := time.AfterFunc(10*time.Second, func() { pg.Signal(syscall.SIGCONT) })
	defer thaw.Stop()
	type answer struct {
		code  int
		h     http.Header
		body  string
		took  time.Duration
		known bool
	}
	var mu sync.Mutex
	var answers []answer
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bearer, path := key, "/v1/tasks"
			if i%2 == 1 { // an unknown, well-formed key: its lookup needs the database
				bearer, _ = store.NewSecret(store.PrefixAgentKey)
				path = "/v1/me"
			}
			start := time.Now()
			code, h, body := call(http.DefaultClient, "GET", d.url+path, bearer, nil)
			mu.Lock()
			answers = append(answers, answer{code, h, string(body), time.Since(start), i%2 == 0})
			mu.Unlock()
		}()
	}
	wg.Wait()
	res, err := http.Get(d.url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 503 {
		t.Errorf("/readyz while frozen: %d", res.StatusCode)
	}
	t.Logf("60 requests answered %s into the freeze", time.Since(frozen).Round(time.Millisecond))
	if err := pg.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}

	var slowest time.Duration
	for _, a := range answers {
		slowest = max(slowest, a.took)
		var e struct{ Error string }
		json.Unmarshal([]byte(a.body), &e)
		if a.code != 503 || e.Error != "internal_error" || a.h.Get("Retry-After") == "" {
			t.Errorf("while frozen (known credential %v): %d Retry-After=%q %s", a.known, a.code, a.h.Get("Retry-After"), a.body)
		}
	}
	// Acquire (1s) plus at most two statements (1s each) plus a connect: well under 13 s.
	if slowest > 6*time.Second {
		t.Errorf("slowest answer while frozen took %s; the deadlines bound it to a few seconds", slowest)
	}
	t.Logf("slowest answer while frozen: %s", slowest)

	// Logged sampled, counted in full.
	failedLines := strings.Count(d.log.String()[logBefore:], `"msg":"request failed"`)
	if failedLines == 0 || failedLines > 10 {
		t.Errorf("%d 'request failed' lines for 60 failures: want a handful (sampled)", failedLines)
	}
	t.Logf("log during the freeze: %d bytes, %d 'request failed' lines for 60 failures", d.log.Total()-logBefore, failedLines)
	if n := metric(t, d.url, `workspaced_http_requests_total{method="GET",route="/v1/{resource}",status="503"}`); n != 30 {
		t.Errorf("503s on /v1/tasks in /metrics: %v, want 30", n)
	}
	if n := metric(t, d.url, `workspaced_log_errors_total`); n < 60 {
		t.Errorf("workspaced_log_errors_total %v, want at least 60", n)
	}

	// Thawed, the pool replaces the connections it abandoned and serves again.
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, _, body := call(http.DefaultClient, "GET", d.url+"/v1/tasks", key, nil)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("15s after the thaw: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// metric reads one sample of the daemon's /metrics (0 when absent).
func metric(t *testing.T, url, series string) float64 {
	t.Helper()
	res, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", series, err))
	}
	return v
}
