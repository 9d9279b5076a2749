package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/pglaunch"
)

// The fault drills run the real binary against real PostgreSQL (and Redis) processes that
// the test itself starts, stops, freezes and restarts.

const drillAPIKey = "pk_drill_routing_key_0000000"

// privatePG starts a PostgreSQL cluster of the test's own, which the test may freeze or
// restart without touching the shared one.
func privatePG(t *testing.T) *pglaunch.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := pglaunch.Start(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatalf("private PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		pg.Signal(syscall.SIGCONT) // a failed drill may leave it frozen
		pg.Stop()
	})
	return pg
}

// daemon is a running workspaced process.
type daemon struct {
	cmd        *exec.Cmd
	url        string
	metricsURL string // where METRICS_ADDR points, for builds that serve /metrics apart
	exited     chan error
	log        *logBuffer
}

// logBuffer keeps the process's log, counting every byte but holding only the first MB.
type logBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	total int
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += len(p)
	if b.buf.Len() < 1<<20 {
		b.buf.Write(p)
	}
	return len(p), nil
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) Total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// startDaemon runs bin serve with env (KEY=value) on a free loopback port and waits until
// /readyz answers 200 through client (nil: http.DefaultClient).
func startDaemon(t *testing.T, bin string, client *http.Client, env ...string) *daemon {
	t.Helper()
	d := launchDaemon(t, bin, env...)
	if client == nil {
		client = http.DefaultClient
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res, err := client.Get(d.url + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return d
			}
		}
		select {
		case err := <-d.exited:
			t.Fatalf("workspaced exited before ready: %v\n%s", err, d.log)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("%s never became ready\n%s", d.url, d.log)
	return nil
}

// launchDaemon starts the process without waiting for it. LISTEN_ADDR and PUBLIC_URL
// default to a free loopback port unless env sets them.
func launchDaemon(t *testing.T, bin string, env ...string) *daemon {
	t.Helper()
	addr, scheme, public := freeAddr(t), "http", ""
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "LISTEN_ADDR":
			addr = v
		case "PUBLIC_URL":
			public = v
		case "TLS_CERT_FILE":
			scheme = "https"
		}
	}
	metricsAddr := freeAddr(t)
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LOG_LEVEL=warn",
		"APIKEY=" + drillAPIKey, "LISTEN_ADDR=" + addr, "DATA_DIR=" + t.TempDir(), "METRICS_ADDR=" + metricsAddr}
	d := &daemon{url: scheme + "://" + addr, metricsURL: "http://" + metricsAddr, exited: make(chan error, 1), log: &logBuffer{}}
	if public != "" {
		d.url = public
	}
	d.cmd = exec.Command(bin, "serve")
	d.cmd.Env = append(base, env...)
	d.cmd.Stdout, d.cmd.Stderr = io.Discard, d.log
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.exited <- d.cmd.Wait() }()
	t.Cleanup(func() {
		d.cmd.Process.Kill()
		if t.Failed() {
			t.Logf("log of %s:\n%s", d.url, tail(d.log.String(), 4000))
		}
	})
	return d
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// agentKey makes a workspace with an agent in the database at dsn (migrated by a running
// daemon) and returns the agent's key.
func agentKey(t *testing.T, dsn string) (workspaceID, key string) {
	t.Helper()
	ctx := context.Background()
	s := openStore(t, dsn)
	ws, err := s.CreateWorkspace(ctx, "Drill", store.By{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := s.CreateAgent(ctx, ws, "drill agent", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	return ws, k.Key
}

// openStore connects to the database at dsn until the test ends.
func openStore(t *testing.T, dsn string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// call makes one REST request with the drill apikey and bearer; it returns the status,
// the headers and the body, or status 0 when the request failed at the transport.
func call(client *http.Client, method, url, bearer string, body any) (int, http.Header, []byte) {
	return callWith(client, method, url, bearer, nil, body)
}

// callWith is call with more request headers.
func callWith(client *http.Client, method, url, bearer string, header http.Header, body any) (int, http.Header, []byte) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	for name, values := range header {
		req.Header[name] = values
	}
	req.Header.Set("apikey", drillAPIKey)
	req.Header.Set("Authorization", "Bearer "+bearer)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, []byte(err.Error())
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}
