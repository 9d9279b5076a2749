package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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

// roomyLimits keeps the drills' own traffic under the per-credential budget.
const roomyLimits = "RATE_LIMIT_PER_CREDENTIAL=100000"

// slowPost opens a connection and sends a POST /v1/tasks whose body is announced as n
// bytes long; the caller sends the body.
func slowPost(t *testing.T, addr, key string, n int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /v1/tasks HTTP/1.1\r\nHost: %s\r\napikey: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, drillAPIKey, key, n)
	return c
}

// TestDrillSlowBodies: clients that send headers and then trickle the body are cut off
// by HTTP_READ_TIMEOUT instead of holding their connections (and goroutines) forever,
// and the service keeps answering others meanwhile.
func TestDrillSlowBodies(t *testing.T) {
	dsn := storetest.DSN(t)
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+dsn, "HTTP_READ_TIMEOUT=2s", roomyLimits)
	_, key := agentKey(t, dsn)
	addr := strings.TrimPrefix(d.url, "http://")

	const n = 100
	closed := make(chan time.Duration, n)
	start := time.Now()
	for range n {
		c := slowPost(t, addr, key, 100000)
		go func() {
			// One byte every 300ms, until the server hangs up.
			for range 100 {
				if _, err := c.Write([]byte(" ")); err != nil {
					break
				}
				time.Sleep(300 * time.Millisecond)
			}
		}()
		go func() {
			c.SetReadDeadline(time.Now().Add(15 * time.Second))
			io.Copy(io.Discard, c) // returns when the server closes (or the deadline passes)
			closed <- time.Since(start)
		}()
	}
	if code, _, body := call(http.DefaultClient, "GET", d.url+"/v1/me", key, nil); code != 200 {
		t.Errorf("while slow clients hold connections: %d %s", code, body)
	}
	var last time.Duration
	for range n {
		last = max(last, <-closed)
	}
	// The read timeout is 2s; a server without one keeps them until our 15s deadline.
	if last > 6*time.Second {
		t.Errorf("the last slow-body connection was closed after %s; want about the 2s read timeout", last)
	}
	t.Logf("%d slow-body connections all closed by the server within %s", n, last.Round(time.Millisecond))
}

// TestSIGHUPDoesNotStop: SIGHUP is what service managers send to reload (systemctl reload,
// kill -HUP). Without certificate files there is nothing to reload, and Go's default
// would end the process at once, without SIGTERM's graceful shutdown; it is logged instead.
func TestSIGHUPDoesNotStop(t *testing.T) {
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+storetest.DSN(t))
	for range 2 { // the second one: the signal stays taken (its log line may be suppressed)
		if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 5*time.Second, func() bool { return strings.Contains(d.log.String(), "nothing to reload") }, "log line for SIGHUP")
	}
	select {
	case err := <-d.exited:
		t.Fatalf("exited after SIGHUP: %v\n%s", err, d.log)
	case <-time.After(200 * time.Millisecond):
	}
	res, err := http.Get(d.url + "/healthz")
	if err != nil {
		t.Fatalf("not serving after SIGHUP: %v\n%s", err, d.log)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("/healthz after SIGHUP: %d", res.StatusCode)
	}
}

// TestDrillSIGTERMInFlight: on SIGTERM the process drains for SHUTDOWN_DRAIN, then stops
// accepting, lets a request in flight finish within SHUTDOWN_GRACE, closes the connection of a client that would never
// finish once the grace is over, and exits 0; no request that got an answer got a 5xx.
func TestDrillSIGTERMInFlight(t *testing.T) {
	dsn := storetest.DSN(t)
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+dsn, "SHUTDOWN_DRAIN=1s", "SHUTDOWN_GRACE=3s", roomyLimits)
	_, key := agentKey(t, dsn)
	addr := strings.TrimPrefix(d.url, "http://")

	// Steady load from a few clients.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{}}
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, _, _ := call(client, "GET", d.url+"/v1/me", key, nil)
				mu.Lock()
				statuses[code]++
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	// The load is running once every client has had answers.
	waitFor(t, 10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return statuses[http.StatusOK] >= 8 }, "answers to the load")

	body := `{"name": "finished during the grace period"}`
	finishing := slowPost(t, addr, key, len(body))
	finishing.Write([]byte(body[:10]))
	stuck := slowPost(t, addr, key, 1000)
	stuck.Write([]byte("{"))
	time.Sleep(200 * time.Millisecond)

	sent := time.Now()
	d.cmd.Process.Signal(syscall.SIGTERM)
	// Shutting down: the listener refuses new connections; the request in flight finishes.
	waitFor(t, 5*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err != nil
	}, "the listener closed after SIGTERM")
	finishing.Write([]byte(body[10:]))
	res, err := http.ReadResponse(bufio.NewReader(finishing), nil)
	if err != nil {
		t.Fatalf("the request in flight got no answer: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Errorf("the request in flight: %d, want 201", res.StatusCode)
	}

	var exit error
	select {
	case exit = <-d.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20s of SIGTERM")
	}
	took := time.Since(sent)
	close(stop)
	wg.Wait()
	var ee *exec.ExitError
	if exit != nil {
		if errors.As(exit, &ee) {
			t.Errorf("exit code %d, want 0", ee.ExitCode())
		} else {
			t.Errorf("exit: %v", exit)
		}
	}
	if took > 7*time.Second {
		t.Errorf("exited %s after SIGTERM; the drain is 1s and the grace 3s", took)
	}
	stuck.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := stuck.Read(make([]byte, 1)); err == nil {
		t.Error("the stuck client's connection is still open")
	}
	for code, n := range statuses {
		if code >= 500 {
			t.Errorf("%d answers %d during shutdown", n, code)
		}
	}
	t.Logf("exit %v %s after SIGTERM; load answers by status: %v", exit, took.Round(time.Millisecond), statuses)
}
