package main

import (
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestDrillRedisHung: with Redis hung (a redis-server stopped with SIGSTOP after it had
// answered: connections stay open, nothing answers) every request that spends the rate
// limit is decided by the failure policy within about the reply timeout (500 ms, README's
// REDIS_URL), the first ones included: 503 with RATE_LIMIT_FAIL_OPEN=false, through with
// true.
func TestDrillRedisHung(t *testing.T) {
	bin := buildBinary(t)
	dsn := storetest.DSN(t)
	_, key := agentKey(t, dsn)
	for _, tc := range []struct {
		name     string
		failOpen string
		want     int
	}{
		{"fail closed", "false", 503},
		{"fail open", "true", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redisURL, redisCmd := stoppableRedis(t)
			d := startDaemon(t, bin, nil, "DATABASE_URL="+dsn, "REDIS_URL="+redisURL, "RATE_LIMIT_FAIL_OPEN="+tc.failOpen, roomyLimits)
			if code, _, body := call(http.DefaultClient, "GET", d.url+"/v1/me", key, nil); code != 200 {
				t.Fatalf("before the stop: %d %s", code, body)
			}
			if err := redisCmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			const bound = 1500 * time.Millisecond // the 500 ms timeout, with generous slack
			get := func(i int) {
				start := time.Now()
				code, h, body := call(http.DefaultClient, "GET", d.url+"/v1/me", key, nil)
				took := time.Since(start)
				t.Logf("request %d: %d in %v", i, code, took.Round(time.Millisecond))
				if code != tc.want || (code == 503 && (h.Get("Retry-After") == "" || !strings.Contains(string(body), `"internal_error"`))) {
					t.Errorf("request %d with Redis hung: %d %s; want %d", i, code, body, tc.want)
				}
				if took > bound {
					t.Errorf("request %d took %v with Redis hung; want under %v", i, took, bound)
				}
			}
			var wg sync.WaitGroup
			for i := range 6 { // the first requests, at once
				wg.Go(func() { get(i) })
			}
			wg.Wait()
			for i := range 3 { // then one after another
				get(6 + i)
			}
		})
	}
}

// stoppableRedis starts a redis-server of the test's own on a free port and returns its
// URL and process (continued and killed when the test ends).
func stoppableRedis(t *testing.T) (string, *exec.Cmd) {
	t.Helper()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGCONT); cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, 10*time.Second, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, "redis-server listening")
	return "redis://" + addr + "/0", cmd
}
