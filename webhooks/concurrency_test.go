package webhooks_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// TestPerEndpointBoundHoldsAcrossProcesses: two delivery services, each with more workers
// than the bound, send one slow receiver at most PerEndpoint requests at a time between
// them, and every event still arrives once.
func TestPerEndpointBoundHoldsAcrossProcesses(t *testing.T) {
	const bound, events = 3, 24
	e := newEnv(t, loopbackPolicy)
	var mu sync.Mutex
	inFlight, most := 0, 0
	got := map[string]int{}
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
		time.Sleep(150 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	for i := range events {
		if r := e.do(f.Admin, "POST", "/labels", map[string]any{"name": fmt.Sprint("L", i)}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
	}
	bounded := func(c *webhooks.Config) { c.Workers, c.PerEndpoint = 2*bound, bound }
	e.start(e.newService(bounded))
	e.start(e.newService(bounded))
	eventually(t, "every event delivered", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == events
	})
	time.Sleep(300 * time.Millisecond) // room for a wrong extra delivery to arrive
	mu.Lock()
	defer mu.Unlock()
	if most > bound || most < 2 {
		t.Errorf("at most %d requests at once reached the receiver, want between 2 and %d", most, bound)
	}
	for id, n := range got {
		if n != 1 {
			t.Errorf("event %s arrived %d times", id, n)
		}
	}
	// Slots kept between attempts while deliveries waited are all freed once none waits:
	// none is left for its lease to run out.
	var held int
	e.serviceRow(f.WorkspaceID, `SELECT count(*) FROM webhook_slots WHERE held_until > now()`, nil, &held)
	if held != 0 {
		t.Errorf("%d slots still held after the last delivery", held)
	}
}
