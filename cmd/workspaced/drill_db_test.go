package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
)

// A frozen PostgreSQL (every process of it stopped: connections open, nothing answers)
// turns into prompt 503 internal_error answers with Retry-After, within the configured
// deadlines; unknown credentials are not charged as failed authentications (which would
// become 429 for everyone behind the IP); the errors are counted in /metrics and logged
// sampled; and the service recovers by itself when the database thaws.
func TestDrillFrozenPostgres(t *testing.T) {
	pg := privatePG(t)
	// The 60 requests at once are all admitted (MAX_IN_FLIGHT_READS) and the breaker left
	// closed: this drill is about the deadlines (TestDrillBreakerFrozenPostgres and
	// TestDrillShedBeyondTheBound cover the two).
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+pg.DSN, "DB_STATEMENT_TIMEOUT=1s", "DB_ACQUIRE_TIMEOUT=1s",
		"LOG_LEVEL=info", "MAX_IN_FLIGHT_READS=100", "DB_BREAKER_TIMEOUTS=0")
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
	// 40 of the 60 carry unknown keys, more than the 30 failed authentications a minute an
	// IP may make: charged as failures, some would turn into 429.
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bearer, path := key, "/v1/tasks"
			if i%3 != 0 { // an unknown, well-formed key: its lookup needs the database
				bearer, _ = store.NewSecret(store.PrefixAgentKey)
				path = "/v1/me"
			}
			start := time.Now()
			code, h, body := call(http.DefaultClient, "GET", d.url+path, bearer, nil)
			mu.Lock()
			answers = append(answers, answer{code, h, string(body), time.Since(start), i%3 == 0})
			mu.Unlock()
		}()
	}
	wg.Wait()
	// MCP answers the same way.
	unknown, _ := store.NewSecret(store.PrefixAgentKey)
	req, _ := http.NewRequest("POST", d.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+unknown)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	mcpRes, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	mcpRes.Body.Close()
	if mcpRes.StatusCode != 503 || mcpRes.Header.Get("Retry-After") == "" {
		t.Errorf("MCP while frozen: %d Retry-After=%q", mcpRes.StatusCode, mcpRes.Header.Get("Retry-After"))
	}
	// So does the token endpoint, in OAuth's terms.
	tokRes, err := http.PostForm(d.url+"/oauth/token?apikey="+drillAPIKey, url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {"svc_rt_unknown"}, "client_id": {"some-client"}})
	if err != nil {
		t.Fatal(err)
	}
	tokBody, _ := io.ReadAll(tokRes.Body)
	tokRes.Body.Close()
	if tokRes.StatusCode != 503 || tokRes.Header.Get("Retry-After") == "" || !strings.Contains(string(tokBody), "temporarily_unavailable") {
		t.Errorf("token endpoint while frozen: %d Retry-After=%q %s", tokRes.StatusCode, tokRes.Header.Get("Retry-After"), tokBody)
	}
	// And the authorization page, a page saying so rather than a 500.
	pageRes, err := http.Get(d.url + "/oauth/authorize?response_type=code&client_id=some-client&code_challenge_method=S256&code_challenge=" +
		strings.Repeat("a", 43))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(pageRes.Body)
	pageRes.Body.Close()
	if pageRes.StatusCode != 503 || pageRes.Header.Get("Retry-After") == "" || !strings.Contains(string(page), "unavailable") {
		t.Errorf("authorization page while frozen: %d Retry-After=%q %s", pageRes.StatusCode, pageRes.Header.Get("Retry-After"), page)
	}
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
	if n := metric(t, d, `workspaced_http_requests_total{method="GET",route="/v1/{resource}",status="503"}`); n != 20 {
		t.Errorf("503s on /v1/tasks in /metrics: %v, want 20", n)
	}
	if n := metric(t, d, `workspaced_log_errors_total`); n < 60 {
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

// metric reads one sample of the daemon's /metrics (0 when absent): on the metrics
// listener (METRICS_ADDR) where the build has one, else on the public port.
func metric(t *testing.T, d *daemon, series string) float64 {
	t.Helper()
	var b []byte
	for _, u := range []string{d.metricsURL, d.url} {
		res, err := http.Get(u + "/metrics")
		if err != nil {
			continue
		}
		b, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == 200 {
			break
		}
	}
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

// TestDrillPostgresRestartUnderLoad restarts PostgreSQL while clients write: every write
// the service acknowledged (201) is in the database afterwards, every other answer is an
// honest 503 with Retry-After, and writes succeed again after the restart.
func TestDrillPostgresRestartUnderLoad(t *testing.T) {
	pg := privatePG(t)
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+pg.DSN, roomyLimits, "RATE_LIMIT_PER_WORKSPACE=100000")
	_, key := agentKey(t, pg.DSN)

	var mu sync.Mutex
	acked := map[string]string{} // id -> name
	statuses := map[int]int{}
	var afterRestart int
	var restarted bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("restart drill %d-%d", w, i)
				code, h, body := call(http.DefaultClient, "POST", d.url+"/v1/tasks", key, map[string]any{"name": name})
				mu.Lock()
				statuses[code]++
				switch {
				case code == 201:
					var out struct{ Data struct{ ID string } }
					json.Unmarshal(body, &out)
					acked[out.Data.ID] = name
					if restarted {
						afterRestart++
					}
				case code != 503 || h.Get("Retry-After") == "":
					t.Errorf("during the restart: %d Retry-After=%q %s", code, h.Get("Retry-After"), body)
				}
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	// The load is running once writes are being acknowledged.
	waitFor(t, 15*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 20 }, "20 writes before the restart")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := pg.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	restarted = true
	mu.Unlock()
	waitFor(t, 15*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return afterRestart >= 20 }, "20 writes after the restart")
	close(stop)
	wg.Wait()

	conn, err := pgx.Connect(ctx, pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	ids := make([]string, 0, len(acked))
	for id := range acked {
		ids = append(ids, id)
	}
	rows, err := conn.Query(ctx, `SELECT id::text, name FROM tasks WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for rows.Next() {
		var id, name string
		rows.Scan(&id, &name)
		found[id] = name
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id, name := range acked {
		if found[id] != name {
			t.Errorf("acknowledged write %s (%q) is not in the database", id, name)
		}
	}
	t.Logf("%d writes acknowledged, all found; answers by status: %v", len(acked), statuses)
}

// TestDrillStartAgainstSilentDatabase: a database that accepts connections and never
// answers (frozen) fails the start within DB_CONNECT_TIMEOUT with a message saying so;
// with DB_WAIT the start retries, logging each attempt, and serves once it answers.
func TestDrillStartAgainstSilentDatabase(t *testing.T) {
	pg := privatePG(t)
	bin := buildBinary(t)
	if err := pg.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	thaw := time.AfterFunc(30*time.Second, func() { pg.Signal(syscall.SIGCONT) })
	defer thaw.Stop()

	d := launchDaemon(t, bin, "DATABASE_URL="+pg.DSN, "DB_CONNECT_TIMEOUT=1s")
	start := time.Now()
	select {
	case err := <-d.exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit: %v, want code 1", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still starting 10s into a 1s connect timeout")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("gave up after %s; the connect timeout is 1s", took)
	}
	if !strings.Contains(d.log.String(), "PostgreSQL did not answer") {
		t.Errorf("unclear failure:\n%s", d.log)
	}

	d = launchDaemon(t, bin, "DATABASE_URL="+pg.DSN, "DB_CONNECT_TIMEOUT=1s", "DB_WAIT=60s", "SHUTDOWN_GRACE=1s", "SHUTDOWN_DRAIN=0s",
		"DB_STATEMENT_TIMEOUT=1s")
	time.Sleep(3 * time.Second)
	if err := pg.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, func() bool {
		res, err := http.Get(d.url + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	}, "readiness after the database thawed")
	if n := strings.Count(d.log.String(), "retrying (DB_WAIT)"); n < 1 {
		t.Errorf("no logged retry while waiting:\n%s", d.log)
	}

	// Stopped while the database is frozen again, it still exits 0 promptly.
	if err := pg.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(d.url + "/readyz")
	if err == nil {
		res.Body.Close()
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	sent := time.Now()
	select {
	case err := <-d.exited:
		if err != nil {
			t.Errorf("exit while the database is frozen: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20s of SIGTERM while the database is frozen")
	}
	if took := time.Since(sent); took > 8*time.Second {
		t.Errorf("exit took %s with a 1s grace", took)
	}
	t.Logf("exit %s after SIGTERM with the database frozen", time.Since(sent).Round(time.Millisecond))
	pg.Signal(syscall.SIGCONT)
}
