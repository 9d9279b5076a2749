package webhooks_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// TestDeliveriesAreSignedAndDescribeTheWrite: a committed create and update each arrive
// once, signed as the Standard Webhooks Go library verifies, with the record as GET shows
// it and the changed fields; a write that rolled back sends nothing; the delivery log shows
// the attempt.
func TestDeliveriesAreSignedAndDescribeTheWrite(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	endpointID, secret := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*", "deal_people.*")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q, want whsec_...", secret)
	}
	e.start(e.svc)

	label := e.do(f.Member, "POST", "/labels", map[string]any{"name": "Hot"})
	if label.Status != http.StatusCreated {
		t.Fatalf("create label: %d %s", label.Status, label.Raw)
	}
	labelID := label.data()["id"].(string)
	// A write the database refuses (no such deal) rolls back: no event.
	if r := e.do(f.Admin, "POST", "/deal_people", map[string]any{"deal_id": labelID, "person_id": labelID}); r.Status < 400 {
		t.Fatalf("create deal_people with unknown ids: %d %s", r.Status, r.Raw)
	}
	if r := e.do(f.Member, "PATCH", "/labels/"+labelID, map[string]any{"name": "Warm"}); r.Status != http.StatusOK {
		t.Fatalf("update label: %d %s", r.Status, r.Raw)
	}
	rc.waitFor(t, 2)
	time.Sleep(300 * time.Millisecond) // room for a wrong extra delivery to arrive
	got := rc.deliveries()
	if len(got) != 2 {
		t.Fatalf("receiver got %d deliveries, want 2 (created, updated): %v", len(got), got)
	}
	slices.SortFunc(got, func(a, b delivery) int { return int(a.Event["sequence"].(float64) - b.Event["sequence"].(float64)) })
	for i, want := range []string{"labels.created", "labels.updated"} {
		d := got[i]
		if err := verify(t, secret, d); err != nil {
			t.Errorf("%s: signature does not verify with the library: %v", want, err)
		}
		if err := verify(t, "whsec_"+strings.Repeat("A", 43)+"=", d); err == nil {
			t.Errorf("%s: verifies with a wrong secret", want)
		}
		ev := d.Event
		data := ev["data"].(map[string]any)
		rec := data["record"].(map[string]any)
		switch {
		case ev["type"] != want, data["object"] != "labels", data["id"] != labelID:
			t.Errorf("event %d: %s", i, d.Body)
		case d.Header.Get("webhook-id") != ev["id"]:
			t.Errorf("webhook-id %q, body id %v", d.Header.Get("webhook-id"), ev["id"])
		case ev["workspace_id"] != f.WorkspaceID:
			t.Errorf("workspace_id %v", ev["workspace_id"])
		case rec["id"] != labelID || rec["created_by"] != f.Member.UserID:
			t.Errorf("record %v", rec)
		}
		if _, ok := rec["feature"]; ok {
			t.Errorf("record carries a column the catalogue does not show: %v", rec)
		}
	}
	if name := got[1].Event["data"].(map[string]any)["record"].(map[string]any)["name"]; name != "Warm" {
		t.Errorf("updated record name %v, want Warm", name)
	}
	if changed := fmt.Sprint(got[1].Event["data"].(map[string]any)["changed"]); changed != "[name]" {
		t.Errorf("changed %s, want [name]", changed)
	}

	eventually(t, "the delivery log", func() bool {
		r := e.do(f.Admin, "GET", "/webhook_deliveries?endpoint_id="+endpointID, nil)
		list, _ := r.Body["data"].([]any)
		if len(list) != 2 {
			return false
		}
		for _, v := range list {
			d := v.(map[string]any)
			if d["status"] != "succeeded" || d["response_status"] != float64(200) || d["attempts"] != float64(1) ||
				len(d["response_body"].(string)) != webhooks.BodyLimit {
				return false
			}
		}
		return true
	})
	// Listing and reading endpoints never shows the secret.
	r := e.do(f.Admin, "GET", "/webhook_endpoints/"+endpointID, nil)
	if r.Status != http.StatusOK || r.data()["secret"] != nil || strings.Contains(string(r.Raw), secret) {
		t.Errorf("get endpoint: %d %s", r.Status, r.Raw)
	}
}

// TestEventBodyIsAsDocumented: the body of docs/webhooks.md's example, key for key: a
// number of the record is a JSON number, data.changed is there for an update only.
func TestEventBodyIsAsDocumented(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	e.createEndpoint(f.Admin, rc.URL+"/hook", "debts.*")
	e.start(e.svc)
	r := e.do(f.Admin, "POST", "/debts", map[string]any{"name": "Van lease", "total_amount": 12000, "expense_type": "lease"})
	if r.Status != http.StatusCreated {
		t.Fatalf("create debt: %d %s", r.Status, r.Raw)
	}
	if r := e.do(f.Admin, "PATCH", "/debts/"+r.data()["id"].(string), map[string]any{"paid_amount": 500}); r.Status != http.StatusOK {
		t.Fatalf("update debt: %d %s", r.Status, r.Raw)
	}
	got := rc.waitFor(t, 2)
	slices.SortFunc(got, func(a, b delivery) int { return int(a.Event["sequence"].(float64) - b.Event["sequence"].(float64)) })
	keys := func(m map[string]any) string { return fmt.Sprint(slices.Sorted(maps.Keys(m))) }
	for i, want := range []struct{ typ, data string }{
		{"debts.created", "[id object record]"},
		{"debts.updated", "[changed id object record]"},
	} {
		ev := got[i].Event
		data := ev["data"].(map[string]any)
		if ev["type"] != want.typ || keys(ev) != "[created_at data id sequence type workspace_id]" || keys(data) != want.data {
			t.Fatalf("%s: %s, want keys %s in data", want.typ, got[i].Body, want.data)
		}
		if amount, ok := data["record"].(map[string]any)["total_amount"].(float64); !ok || amount != 12000 {
			t.Errorf("%s: total_amount is not the number 12000: %s", want.typ, got[i].Body)
		}
	}
	if changed := fmt.Sprint(got[1].Event["data"].(map[string]any)["changed"]); changed != "[paid_amount]" {
		t.Errorf("changed %s, want [paid_amount]", changed)
	}
}

// TestPingAndRotation: test sends a ping to that endpoint; after a rotation, deliveries
// verify with the new secret and, for 24 hours, with the old one.
func TestPingAndRotation(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	id, oldSecret := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*") // a ping goes whatever the patterns
	e.start(e.svc)

	r := e.do(f.Admin, "POST", "/webhook_endpoints/"+id+"/test", nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.Status, r.Raw)
	}
	ping := rc.waitFor(t, 1)[0]
	if ping.Event["type"] != "ping" || verify(t, oldSecret, ping) != nil {
		t.Fatalf("ping: %s", ping.Body)
	}

	r = e.do(f.Admin, "POST", "/webhook_endpoints/"+id+"/rotate_secret", nil)
	newSecret, _ := r.data()["secret"].(string)
	if r.Status != http.StatusOK || !strings.HasPrefix(newSecret, "whsec_") || newSecret == oldSecret {
		t.Fatalf("rotate: %d %s", r.Status, r.Raw)
	}
	e.do(f.Admin, "POST", "/webhook_endpoints/"+id+"/test", nil)
	d := rc.waitFor(t, 2)[1]
	if verify(t, newSecret, d) != nil || verify(t, oldSecret, d) != nil {
		t.Errorf("within 24 h of the rotation both secrets must verify: %s", d.Header.Get("webhook-signature"))
	}
	e.clock.Add(workspace.RotationOverlap + time.Minute)
	e.do(f.Admin, "POST", "/webhook_endpoints/"+id+"/test", nil)
	d = rc.waitFor(t, 3)[2]
	// The library refuses a timestamp 24 hours ahead of its real clock; the signature
	// itself is what is checked here.
	if verifyIgnoringTimestamp(t, newSecret, d) != nil {
		t.Errorf("the new secret must verify: %s", d.Header.Get("webhook-signature"))
	}
	if verifyIgnoringTimestamp(t, oldSecret, d) == nil {
		t.Errorf("the old secret still verifies after 24 h")
	}
}

// TestRetryScheduleThenDisable: a receiver answering 500 is retried after 5 s, 5 min,
// 30 min, 2 h, 5 h, 10 h and 10 h by the injected clock, then the delivery fails for good;
// once the endpoint has failed for 3 days the next failure disables it, with the reason.
func TestRetryScheduleThenDisable(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	rc.setStatus(http.StatusInternalServerError)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	id, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.created")
	e.start(e.svc)
	start := e.clock.Now()

	e.do(f.Admin, "POST", "/labels", map[string]any{"name": "Retry me"})
	for i, wait := range webhooks.Schedule {
		rc.waitFor(t, i+1)
		var state string
		var attempt int
		var at time.Time
		eventually(t, fmt.Sprintf("retry %d scheduled", i+1), func() bool {
			e.serviceRow("", `SELECT state, attempt, scheduled_at FROM river_job WHERE kind = 'webhook_delivery'
				AND args->>'workspace_id' = $1`, []any{f.WorkspaceID}, &state, &attempt, &at)
			// River marks a retry due within its scheduler's interval available at once.
			return (state == "retryable" || state == "available") && attempt == i+1
		})
		if want := e.clock.Now().Add(wait); !at.Equal(want.Truncate(time.Microsecond)) {
			t.Fatalf("after attempt %d the retry is at %s, want now + %s = %s", i+1, at, wait, want)
		}
		e.clock.Add(wait)
		// Time has passed (by the injected clock): make the job due for River.
		e.serviceRow("", `UPDATE river_job SET state = 'available', scheduled_at = now() WHERE kind = 'webhook_delivery'
			AND args->>'workspace_id' = $1 RETURNING attempt`, []any{f.WorkspaceID}, &attempt)
	}
	rc.waitFor(t, len(webhooks.Schedule)+1)
	eventually(t, "the delivery to fail for good", func() bool {
		r := e.do(f.Admin, "GET", "/webhook_deliveries?endpoint_id="+id, nil)
		list, _ := r.Body["data"].([]any)
		return len(list) == 1 && list[0].(map[string]any)["status"] == "failed" &&
			list[0].(map[string]any)["attempts"] == float64(len(webhooks.Schedule)+1)
	})
	if r := e.do(f.Admin, "GET", "/webhook_endpoints/"+id, nil); r.data()["enabled"] != true {
		t.Fatalf("endpoint disabled after %s of failure, want enabled until 3 days: %s", e.clock.Now().Sub(start), r.Raw)
	}

	// Three days after the first failure, the next failure disables the endpoint.
	e.clock.Now() // (the clock is already ~28 h on)
	e.clock.Add(webhooks.DisableAfter - e.clock.Now().Sub(start))
	e.do(f.Admin, "POST", "/labels", map[string]any{"name": "The last straw"})
	rc.waitFor(t, len(webhooks.Schedule)+2)
	eventually(t, "the endpoint to be disabled", func() bool {
		r := e.do(f.Admin, "GET", "/webhook_endpoints/"+id, nil)
		reason, _ := r.data()["disabled_reason"].(string)
		return r.data()["enabled"] == false && strings.Contains(reason, "every delivery failed since") &&
			strings.Contains(reason, "500")
	})
	// A disabled endpoint gets nothing more, and writes leave no events.
	n := len(rc.deliveries())
	e.do(f.Admin, "POST", "/labels", map[string]any{"name": "Unheard"})
	time.Sleep(300 * time.Millisecond)
	if len(rc.deliveries()) != n {
		t.Errorf("a disabled endpoint received a delivery")
	}
	var events int
	e.serviceRow("", `SELECT (SELECT count(*) FROM webhook_outbox WHERE workspace_id = $1 AND record->>'name' = 'Unheard')
		+ (SELECT count(*) FROM webhook_events WHERE workspace_id = $1 AND record->>'name' = 'Unheard')`,
		[]any{f.WorkspaceID}, &events)
	if events != 0 {
		t.Errorf("%d events written for a workspace with no enabled endpoint", events)
	}

	// Retry resends now: the admin re-enables and retries the failed delivery.
	rc.setStatus(http.StatusNoContent)
	if r := e.do(f.Admin, "PATCH", "/webhook_endpoints/"+id, map[string]any{"enabled": true}); r.Status != http.StatusOK {
		t.Fatalf("re-enable: %d %s", r.Status, r.Raw)
	}
	r := e.do(f.Admin, "GET", "/webhook_deliveries?endpoint_id="+id, nil)
	var failed string
	for _, v := range r.Body["data"].([]any) {
		if d := v.(map[string]any); d["status"] == "failed" {
			failed = d["id"].(string)
		}
	}
	if r := e.do(f.Admin, "POST", "/webhook_deliveries/"+failed+"/retry", nil); r.Status != http.StatusAccepted {
		t.Fatalf("retry: %d %s", r.Status, r.Raw)
	}
	eventually(t, "the retried delivery to succeed", func() bool {
		r := e.do(f.Admin, "GET", "/webhook_deliveries/"+failed, nil)
		return r.data()["status"] == "succeeded"
	})
}

// TestTwoProcessesDeliverEachEventOnce: two delivery services over one database share the
// work; every event arrives exactly once in a normal run.
func TestTwoProcessesDeliverEachEventOnce(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	e.start(e.svc)
	e.start(e.newService())
	const n = 200
	for i := range n {
		if r := e.do(f.Admin, "POST", "/labels", map[string]any{"name": fmt.Sprint("L", i)}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
	}
	rc.waitFor(t, n)
	time.Sleep(500 * time.Millisecond)
	seen := map[string]int{}
	for _, d := range rc.deliveries() {
		seen[d.Header.Get("webhook-id")]++
	}
	if len(seen) != n || len(rc.deliveries()) != n {
		t.Fatalf("%d deliveries of %d distinct events, want %d of %d", len(rc.deliveries()), len(seen), n, n)
	}
}

// TestRetrySpeedupDividesTheSchedule: with RetrySpeedup (WEBHOOK_RETRY_SPEEDUP), each wait
// of the schedule is divided by it: a failing receiver is tried again after 5 s / 100, then
// 5 min / 100 (the delivery log's next_attempt_at, by the injected clock), and really gets
// its second and third attempts within seconds.
func TestRetrySpeedupDividesTheSchedule(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	rc.setStatus(http.StatusServiceUnavailable)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	id, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.created")
	e.start(e.newService(func(c *webhooks.Config) { c.RetrySpeedup = 100 }))
	e.do(f.Admin, "POST", "/labels", map[string]any{"name": "Sooner"})
	for attempt, wait := range webhooks.Schedule[:2] {
		rc.waitFor(t, attempt+1)
		eventually(t, fmt.Sprintf("attempt %d recorded", attempt+1), func() bool {
			r := e.do(f.Admin, "GET", "/webhook_deliveries?endpoint_id="+id, nil)
			list, _ := r.Body["data"].([]any)
			if len(list) != 1 || list[0].(map[string]any)["attempts"] != float64(attempt+1) {
				return false
			}
			last, _ := time.Parse(time.RFC3339Nano, list[0].(map[string]any)["last_attempt_at"].(string))
			next, _ := time.Parse(time.RFC3339Nano, list[0].(map[string]any)["next_attempt_at"].(string))
			if got := next.Sub(last); got != wait/100 {
				t.Fatalf("after attempt %d the next is %s later, want %s / 100", attempt+1, got, wait)
			}
			return true
		})
	}
	rc.waitFor(t, 3) // 5 min / 100 = 3 s after the second
}
