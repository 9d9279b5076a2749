package webhooks_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// TestPanicsDoNotStopDelivery: a panic in the dispatcher, in a delivery (a River worker)
// and in the slots' upkeep is logged once with its stack and counted, and each goes on:
// the event panicked over is delivered once, by the retry, and the next one too.
func TestPanicsDoNotStopDelivery(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.created")
	reg := prometheus.NewRegistry()
	var logMu sync.Mutex
	var logs bytes.Buffer
	svc := e.newService(func(c *webhooks.Config) {
		c.Registerer, c.RetrySpeedup = reg, 1000 // the retry 5 ms after the failed attempt
		c.Logger = slog.New(slog.NewJSONHandler(lockedBuffer{&logMu, &logs}, nil))
	})
	var mu sync.Mutex
	rounds := map[string]int{}
	webhooks.SetHook(svc, func(where string) {
		mu.Lock()
		rounds[where]++
		n := rounds[where]
		mu.Unlock()
		if n == 1 {
			panic("probe: first " + where)
		}
	})
	e.start(svc)

	e.write(f.Admin, "POST", "/labels", map[string]any{"name": "Panicked over"})
	rc.waitFor(t, 1)
	e.write(f.Admin, "POST", "/labels", map[string]any{"name": "After"})
	rc.waitFor(t, 2)
	eventually(t, "a second upkeep round", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return rounds["upkeep"] >= 2
	})
	if got := rc.deliveries(); len(got) != 2 {
		t.Errorf("receiver got %d deliveries, want 2 (each event once)", len(got))
	}
	if r := e.do(f.Admin, "GET", "/labels", nil); r.Status != http.StatusOK {
		t.Errorf("the API after the panics: %d %s", r.Status, r.Raw)
	}

	want := `
# HELP workspaced_webhook_panics_total Panics recovered in webhook work, by where (dispatch, delivery, upkeep); the work went on.
# TYPE workspaced_webhook_panics_total counter
workspaced_webhook_panics_total{in="delivery"} 1
workspaced_webhook_panics_total{in="dispatch"} 1
workspaced_webhook_panics_total{in="upkeep"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "workspaced_webhook_panics_total"); err != nil {
		t.Error(err)
	}
	logMu.Lock()
	lines := logs.String()
	logMu.Unlock()
	for _, where := range []string{"dispatch", "delivery", "upkeep"} {
		n := 0
		for _, line := range strings.Split(lines, "\n") {
			if strings.Contains(line, `"probe: first `+where+`"`) {
				n++
				if !strings.Contains(line, `"msg":"webhook work panicked; going on"`) || !strings.Contains(line, `"stack":"goroutine`) {
					t.Errorf("the %s panic is logged without its message or stack: %s", where, line)
				}
			}
		}
		if n != 1 {
			t.Errorf("the %s panic is logged %d times, want once:\n%s", where, n, lines)
		}
	}
}

// lockedBuffer is a log destination read under its mutex.
type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
