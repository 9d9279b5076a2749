package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/internal/tooltest"
)

// TestProxySnippets runs docs/operations.md's HAProxy and nginx configurations, as the
// document prints them (only the two replicas' addresses replaced, and the listener and
// process settings a full configuration needs around them), with the real proxies in front
// of two real replicas on a private PostgreSQL, and checks what "Health checks, deploys
// and balancers" promises:
//   - with the database frozen, clients get the service's own JSON 503 with Retry-After,
//     for longer than a /readyz check would take to pull both replicas (HAProxy's own HTML
//     503, without Retry-After, is what that gave in the overload drill of docs/performance.md);
//   - HAProxy checks /healthz, not /readyz;
//   - a SIGTERM of one replica under steady keep-alive writes fails no request and writes
//     nothing twice: the drain takes it out of HAProxy before its listener closes; nginx,
//     which has no active checks, is told first (the replica marked down and nginx
//     reloaded), as the document says to. nginx's reload closes its idle client
//     connections, and a write sent on one in that instant meets a closed connection (1
//     of 1,592 in a CI run), which HTTP clients resend only for a request marked
//     idempotent; so through nginx the writes carry an Idempotency-Key, as the document
//     says writes should, and Go's client resends them on its own.
func TestProxySnippets(t *testing.T) {
	tooltest.Require(t, "haproxy and nginx (Debian's haproxy and nginx-light)")
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	pg := privatePG(t)
	for _, p := range []struct {
		name, marker string
		keyed        bool // writes carry an Idempotency-Key
		// start runs the proxy; it returns how to take a replica out before its SIGTERM,
		// or nil when the proxy's health check does it.
		start func(t *testing.T, snippet, listen string) (takeOut func(addr string))
	}{
		{"haproxy", "backend workspaced", false, startHAProxy},
		{"nginx", "upstream workspaced", true, startNginx},
	} {
		t.Run(p.name, func(t *testing.T) {
			snippet := fencedBlock(t, string(doc), p.marker)
			env := []string{"DATABASE_URL=" + pg.DSN, "DB_STATEMENT_TIMEOUT=1s", "DB_ACQUIRE_TIMEOUT=1s",
				"DB_CONNECT_TIMEOUT=1s", "SHUTDOWN_DRAIN=3s", roomyLimits, "RATE_LIMIT_PER_WORKSPACE=1000000"}
			a := startDaemon(t, bin, nil, env...)
			b := startDaemon(t, bin, nil, env...)
			// The documents' two replicas become these two.
			for _, r := range []struct{ doc, real string }{{"10.0.0.5:8080", a.url}, {"10.0.0.6:8080", b.url}} {
				if !strings.Contains(snippet, r.doc) {
					t.Fatalf("the %s snippet no longer names %s:\n%s", p.name, r.doc, snippet)
				}
				snippet = strings.ReplaceAll(snippet, r.doc, strings.TrimPrefix(r.real, "http://"))
			}
			listen := freeAddr(t)
			takeOut := p.start(t, snippet, listen)
			proxy := "http://" + listen
			ws, key := agentKey(t, pg.DSN)
			waitFor(t, 20*time.Second, func() bool {
				code, _, _ := call(http.DefaultClient, "GET", proxy+"/v1/tasks", key, nil)
				return code == 200
			}, "a 200 through "+p.name)

			proxyDuringOutage(t, pg.Signal, proxy, key)
			if p.name == "haproxy" {
				// Its checks reached /healthz on both replicas, and never /readyz.
				for _, d := range []*daemon{a, b} {
					if n := metric(t, d, `workspaced_http_requests_total{method="GET",route="/healthz",status="200"}`); n == 0 {
						t.Errorf("%s: no /healthz check from HAProxy", d.url)
					}
					if n := metric(t, d, `workspaced_http_requests_total{method="GET",route="/readyz",status="200"}`); n > 1 {
						t.Errorf("%s: %v /readyz requests: HAProxy checks /readyz", d.url, n)
					}
				}
			}
			created := proxyThroughDrain(t, a, proxy, key, p.keyed, takeOut)
			// Every 201 is one task, and no write that failed was applied: the database
			// holds exactly as many tasks as the clients were told were created.
			var stored int
			if err := openStore(t, pg.DSN).ServiceTx(context.Background(), ws, func(tx pgx.Tx) error {
				return tx.QueryRow(context.Background(), `SELECT count(*) FROM tasks WHERE workspace_id = $1 AND name = $2`,
					ws, drainTaskName).Scan(&stored)
			}); err != nil {
				t.Fatal(err)
			}
			if stored != created {
				t.Errorf("%d tasks stored for %d answered 201", stored, created)
			}
		})
	}
}

// proxyDuringOutage freezes PostgreSQL for 4 s while clients read through the proxy: every
// answer must be the service's JSON 503 with Retry-After, up to the end (well after a
// balancer checking /readyz every second would have pulled both replicas).
func proxyDuringOutage(t *testing.T, signal func(syscall.Signal) error, proxy, key string) {
	t.Helper()
	if err := signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	thaw := time.AfterFunc(60*time.Second, func() { signal(syscall.SIGCONT) })
	defer thaw.Stop()
	frozen := time.Now()
	var mu sync.Mutex
	var answers, late int
	var wrong []string
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 10 * time.Second}
			for time.Since(frozen) < 4*time.Second {
				sent := time.Now()
				code, h, body := call(client, "GET", proxy+"/v1/tasks", key, nil)
				var e struct {
					Error     string `json:"error"`
					RequestID string `json:"request_id"`
				}
				json.Unmarshal(body, &e)
				mu.Lock()
				answers++
				if sent.Sub(frozen) > 2500*time.Millisecond {
					late++
				}
				if code != 503 || h.Get("Retry-After") == "" || !strings.HasPrefix(h.Get("Content-Type"), "application/json") ||
					e.Error == "" || e.RequestID == "" {
					wrong = append(wrong, fmt.Sprintf("%.1fs into the outage: %d Retry-After=%q %s", time.Since(frozen).Seconds(), code,
						h.Get("Retry-After"), tail(string(body), 200)))
				}
				mu.Unlock()
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if err := signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if len(wrong) > 0 {
		t.Errorf("%d of %d answers during the outage were not the service's 503; first: %s", len(wrong), answers, wrong[0])
	}
	if late == 0 {
		t.Errorf("no request sent after 2.5 s of the outage (of %d)", answers)
	}
	t.Logf("database outage: %d answers, %d sent after 2.5 s, %d not the service's 503", answers, late, len(wrong))
	waitFor(t, 15*time.Second, func() bool {
		code, _, _ := call(http.DefaultClient, "GET", proxy+"/v1/tasks", key, nil)
		return code == 200
	}, "a 200 after the thaw")
}

// drainTaskName names the tasks proxyThroughDrain creates.
const drainTaskName = "sent through a restart"

// proxyThroughDrain sends writes (each with its own Idempotency-Key when keyed) from 4
// keep-alive clients through the proxy while replica a is taken out (takeOut, when the
// proxy needs telling), gets SIGTERM and exits: none may fail. It returns how many were
// answered 201.
func proxyThroughDrain(t *testing.T, a *daemon, proxy, key string, keyed bool, takeOut func(addr string)) (created int) {
	t.Helper()
	stop := make(chan struct{})
	var mu sync.Mutex
	var total int
	var failures []string
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
			defer client.CloseIdleConnections()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var header http.Header
				if keyed {
					header = http.Header{"Idempotency-Key": {uuid.NewString()}}
				}
				code, _, body := callWith(client, "POST", proxy+"/v1/tasks", key, header, map[string]string{"name": drainTaskName})
				mu.Lock()
				total++
				if code == 201 {
					created++
				} else {
					failures = append(failures, fmt.Sprintf("%d %s", code, tail(string(body), 200)))
				}
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	if takeOut != nil {
		takeOut(strings.TrimPrefix(a.url, "http://"))
	}
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-a.exited:
		if err != nil {
			t.Errorf("the drained replica's exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the drained replica did not exit within 30 s of SIGTERM")
	}
	time.Sleep(500 * time.Millisecond) // requests after it exited go to the other
	close(stop)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d of %d writes failed through the drain; first: %s", len(failures), total, failures[0])
	}
	t.Logf("drain: %d writes, %d failed", total, len(failures))
	return created
}

// fencedBlock is the body of the one fenced block of doc that contains marker.
func fencedBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	var found []string
	for _, m := range regexp.MustCompile("(?ms)^```[a-z]*\n(.*?)^```").FindAllStringSubmatch(doc, -1) {
		if strings.Contains(m[1], marker) {
			found = append(found, m[1])
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d fenced blocks of docs/operations.md contain %q, want 1", len(found), marker)
	}
	return found[0]
}

// startHAProxy runs haproxy in the foreground with the documented backend behind a
// frontend on listen.
func startHAProxy(t *testing.T, backend, listen string) func(string) {
	t.Helper()
	cfg := fmt.Sprintf(`global
    maxconn 512
defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 30s
frontend api
    bind %s
    default_backend workspaced
%s`, listen, backend)
	startProxy(t, "haproxy", cfg, "haproxy.cfg", "-c", func(path string) []string { return []string{"-db", "-f", path} })
	return nil
}

// startNginx runs nginx in the foreground with the documented upstream and server, the
// server listening on listen, its files in a directory of the test's own.
func startNginx(t *testing.T, snippet, listen string) func(string) {
	t.Helper()
	if !strings.Contains(snippet, "server {\n") {
		t.Fatalf("the nginx snippet has no server block:\n%s", snippet)
	}
	snippet = strings.Replace(snippet, "server {\n", "server {\n    listen "+listen+";\n", 1)
	dir := t.TempDir()
	cfg := fmt.Sprintf(`daemon off;
worker_processes 1;
user root;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log notice;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
%[2]s}
`, dir, snippet)
	conf, cmd := startProxy(t, "nginx", cfg, "nginx.conf", "-t", func(path string) []string {
		return []string{"-p", dir, "-e", dir + "/error.log", "-c", path}
	})
	// Taking a replica out: its server line marked down, then a reload (SIGHUP), done once
	// the error log says nginx reconfigured.
	return func(addr string) {
		line := "server " + addr + " "
		if !strings.Contains(cfg, line) {
			t.Fatalf("no %q in the nginx configuration", line)
		}
		if err := os.WriteFile(conf, []byte(strings.Replace(cfg, line, line+"down ", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return strings.Contains(string(b), "gracefully shutting down") // the old worker

		}, "nginx's reload")
	}
}

// startProxy writes cfg to a file, checks that the tool accepts it (its checkFlag), and
// runs the tool until the test ends; it returns the file and the process.
func startProxy(t *testing.T, tool, cfg, file, checkFlag string, args func(path string) []string) (string, *exec.Cmd) {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		for _, dir := range []string{"/usr/sbin", "/usr/local/sbin"} {
			if _, err := os.Stat(filepath.Join(dir, tool)); err == nil {
				path = filepath.Join(dir, tool)
			}
		}
	}
	if path == "" {
		t.Fatalf("%s is required: %v", tool, err)
	}
	conf := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, path, append(args(conf), checkFlag)...).CombinedOutput(); err != nil {
		t.Fatalf("%s refuses the configuration: %v\n%s\n%s", tool, err, out, cfg)
	}
	cmd := exec.Command(path, args(conf)...)
	log := &logBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("%s's output:\n%s", tool, tail(log.String(), 4000))
		}
	})
	return conf, cmd
}
