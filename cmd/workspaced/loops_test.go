package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestBackgroundLoopPanicRecovered: a panic inside a background loop, a plain one or a
// periodic task, is logged once with its stack and counted in /metrics, the server goes on
// answering, and the loop goes on running.
func TestBackgroundLoopPanicRecovered(t *testing.T) {
	srv, handler, logs, mu := routedServer(t)
	ls := newLoops(context.Background(), srv.log)
	ls.restartDelay = 10 * time.Millisecond
	ls.register(srv.reg)
	defer ls.Stop(time.Second)

	var plainStarts, periodicRuns atomic.Int32
	ls.Go(loop{"panicking loop", func(ctx context.Context) {
		if plainStarts.Add(1) == 1 {
			panic("probe: a loop's first run")
		}
		<-ctx.Done()
	}})
	periodicName := "panicking task " + t.Name()
	ls.Go(srv.periodic(periodicName, 200*time.Millisecond, func(context.Context, time.Time) error {
		if periodicRuns.Add(1) == 1 {
			panic("probe: a periodic task's first run")
		}
		return nil
	}))
	waitFor(t, 5*time.Second, func() bool { return plainStarts.Load() >= 2 && periodicRuns.Load() >= 3 },
		"both loops running again after their panics")

	ts := httptest.NewServer(handler)
	defer ts.Close()
	if res, err := http.Get(ts.URL + "/healthz"); err != nil || res.StatusCode != 200 {
		t.Fatalf("/healthz after the panics: %v %v", res, err)
	}
	ms := httptest.NewServer(srv.metricsHandler())
	defer ms.Close()
	res, err := http.Get(ms.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`workspaced_background_panics_total{loop="panicking loop"} 1`,
		`workspaced_background_panics_total{loop="` + periodicName + `"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	mu.Lock()
	lines := logs.String()
	mu.Unlock()
	for _, name := range []string{"panicking loop", periodicName} {
		n := 0
		for _, line := range strings.Split(lines, "\n") {
			if strings.Contains(line, `"msg":"background loop panicked; starting it again","loop":"`+name+`"`) {
				n++
				if !strings.Contains(line, `"stack":"goroutine`) {
					t.Errorf("the panic of %q is logged without its stack: %s", name, line)
				}
			}
		}
		if n != 1 {
			t.Errorf("the panic of %q is logged %d times, want once:\n%s", name, n, lines)
		}
	}
}
