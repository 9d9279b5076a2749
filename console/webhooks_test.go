package console_test

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

var secretRE = regexp.MustCompile(`id="new-secret" value="(whsec_[^"]+)"`)

// newSecret returns the signing secret a page shows once, failing without one.
func newSecret(t *testing.T, p page) string {
	t.Helper()
	m := secretRE.FindStringSubmatch(p.Body)
	if p.Status != http.StatusOK || m == nil {
		t.Fatalf("no new secret on the page (status %d): %.500s", p.Status, p.Body)
	}
	return html.UnescapeString(m[1])
}

// endpointState reads an endpoint's row and its current secret from the database.
func (e *env) endpointState(id string) (enabled bool, events, description, secret string) {
	e.t.Helper()
	if err := storetest.Pool(e.t).QueryRow(context.Background(), `SELECT w.enabled, array_to_string(w.events, ' '),
			coalesce(w.description, ''), s.secret FROM webhook_endpoints w JOIN webhook_secrets s ON s.endpoint_id = w.id
		WHERE w.id = $1::text::uuid`, id).Scan(&enabled, &events, &description, &secret); err != nil {
		e.t.Fatalf("endpoint %s: %v", id, err)
	}
	return
}

// TestWebhooksPage: an admin registers an endpoint on the console through the REST API's
// operations (URL policy, event patterns, one-time secret), changes and rotates it, pings
// it and retries the delivery; members and other workspaces' ids are refused.
func TestWebhooksPage(t *testing.T) {
	e := newEnv(t)
	e.startDelivery()
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(rc.Close)
	endpoints := func(ws string) int {
		return e.count(`SELECT count(*) FROM webhook_endpoints WHERE workspace_id = $1`, ws)
	}
	admin := e.agent().signIn(e.Admin)
	if p := admin.get("/console/webhooks"); p.Status != 200 || !strings.Contains(p.Body, `id="no-endpoints"`) ||
		!strings.Contains(p.Body, `href="/console/webhooks" aria-current="page"`) {
		t.Fatalf("empty page: %d %.500s", p.Status, p.Body)
	}

	// Refused: not a URL, a private address, an unknown event, an event that never happens; shown on the page, nothing stored.
	for _, bad := range []struct{ url, events, says string }{
		{"not a url", "", "url"},
		{"https://10.1.2.3/hook", "", "url"},
		{rc.URL + "/hook", "nothing.created", "events"},
		{rc.URL + "/hook", "deals.detached", "events"},
	} {
		p := admin.form("/console/webhooks", "/console/webhooks/create", url.Values{"url": {bad.url}, "events": {bad.events}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `id="error"`) ||
			!strings.Contains(p.Body, "fix these fields of webhook_endpoints: "+bad.says) || strings.Contains(p.Body, "whsec_") {
			t.Fatalf("create %q %q: %d %.800s", bad.url, bad.events, p.Status, p.Body)
		}
	}
	if n := endpoints(e.WorkspaceID); n != 0 {
		t.Fatalf("refused creates stored %d endpoints", n)
	}

	p := admin.form("/console/webhooks", "/console/webhooks/create", url.Values{"url": {rc.URL + "/hook"},
		"events": {"deals.created, labels.*  companies.updated"}, "description": {"CRM sync"}})
	secret := newSecret(t, p)
	var id string
	if err := storetest.Pool(t).QueryRow(t.Context(), `SELECT id::text FROM webhook_endpoints WHERE workspace_id = $1`,
		e.WorkspaceID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if enabled, events, desc, stored := e.endpointState(id); !enabled || events != "deals.created labels.* companies.updated" ||
		desc != "CRM sync" || stored != secret {
		t.Fatalf("stored: %v %q %q, secret matches %v", enabled, events, desc, stored == secret)
	}
	if again := admin.get("/console/webhooks"); !strings.Contains(again.Body, `id="endpoint-`+id+`"`) || strings.Contains(again.Body, "whsec_") {
		t.Fatalf("reload shows the secret or lacks the endpoint: %.800s", again.Body)
	}
	// The creation is the admin's, through the console, with their session as credential.
	if n := e.count(`SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'webhook_endpoints'
		AND entity_id = $2::text::uuid AND action = 'created' AND actor_id = $3::text::uuid AND via = 'console'
		AND credential LIKE 'console:%'`, e.WorkspaceID, id, e.Admin.ID); n != 1 {
		t.Fatalf("%d console activity rows for the creation", n)
	}

	// Disable, enable, edit; an unknown pattern is refused and changes nothing.
	for _, on := range []string{"false", "true"} {
		if p := admin.form("/console/webhooks", "/console/webhooks/update", url.Values{"id": {id}, "enabled": {on}}); p.Status != 200 {
			t.Fatalf("enabled=%s: %d %.300s", on, p.Status, p.Body)
		}
		if enabled, _, _, _ := e.endpointState(id); (on == "true") != enabled {
			t.Fatalf("enabled=%s stored %v", on, enabled)
		}
	}
	if p := admin.form("/console/webhooks", "/console/webhooks/update", url.Values{"id": {id}, "events": {"deals.*"}, "description": {"Deals"}}); p.Status != 200 {
		t.Fatalf("edit: %d %.300s", p.Status, p.Body)
	}
	if p := admin.form("/console/webhooks", "/console/webhooks/update", url.Values{"id": {id}, "events": {"bogus.*"}}); p.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.Body, `id="error"`) {
		t.Fatalf("bad edit: %d %.300s", p.Status, p.Body)
	}
	if _, events, desc, _ := e.endpointState(id); events != "deals.*" || desc != "Deals" {
		t.Fatalf("after edits: %q %q", events, desc)
	}

	// Rotation: a new secret shown once, the old one kept for 24 hours.
	p = admin.form("/console/webhooks", "/console/webhooks/rotate", url.Values{"confirm": {"yes"}, "id": {id}})
	rotated := newSecret(t, p)
	if !strings.Contains(p.Body, "24 hours") {
		t.Fatalf("rotation notice does not say the old secret's overlap: %.500s", p.Body)
	}
	if _, _, _, stored := e.endpointState(id); stored != rotated || rotated == secret {
		t.Fatal("rotation did not store the new secret")
	}
	if n := e.count(`SELECT count(*) FROM webhook_secrets WHERE endpoint_id = $1::text::uuid AND previous_secret = $2
		AND previous_expires_at > now() + interval '23 hours'`, id, secret); n != 1 {
		t.Fatal("the previous secret is not kept for 24 hours")
	}

	// A ping makes a delivery, which the page lists and which can be retried.
	if p := admin.form("/console/webhooks", "/console/webhooks/test", url.Values{"id": {id}}); p.Status != 200 {
		t.Fatalf("ping: %d %.300s", p.Status, p.Body)
	}
	delivered := func(attempts int) string {
		var deliveryID string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			err := storetest.Pool(t).QueryRow(t.Context(), `SELECT id::text FROM webhook_deliveries WHERE endpoint_id = $1::text::uuid
				AND event_type = 'ping' AND status = 'succeeded' AND attempts = $2`, id, attempts).Scan(&deliveryID)
			if err == nil {
				return deliveryID
			}
		}
		t.Fatalf("no ping delivery with %d attempts", attempts)
		return ""
	}
	deliveryID := delivered(1)
	if page := admin.get("/console/webhooks"); !strings.Contains(page.Body, `id="delivery-`+deliveryID+`"`) {
		t.Fatalf("delivery not listed: %.800s", page.Body)
	}
	if p := admin.form("/console/webhooks", "/console/webhooks/retry", url.Values{"id": {deliveryID}}); p.Status != 200 {
		t.Fatalf("retry: %d %.300s", p.Status, p.Body)
	}
	if again := delivered(2); again != deliveryID {
		t.Fatalf("retry made another delivery %s", again)
	}

	// A member gets the admin pages' refusal, and changes nothing.
	member := e.agent().signIn(e.Member)
	if p := member.get("/console/webhooks"); p.Status != http.StatusForbidden || !strings.Contains(p.Body, "Admins only") {
		t.Fatalf("member GET: %d", p.Status)
	}
	if p := member.form("/console", "/console/webhooks/update", url.Values{"id": {id}, "enabled": {"false"}}); p.Status != http.StatusForbidden {
		t.Fatalf("member POST: %d", p.Status)
	}
	if enabled, _, _, _ := e.endpointState(id); !enabled {
		t.Fatal("a member disabled the endpoint")
	}

	// Another workspace's endpoint and delivery are 404 to this admin, and unchanged.
	ws2, err := e.store.CreateWorkspace(t.Context(), "Other "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	other := e.agent().signIn(e.addUser(ws2, "admin", "active", nil))
	newSecret(t, other.form("/console/webhooks", "/console/webhooks/create", url.Values{"url": {rc.URL + "/other"}}))
	var otherID string
	if err := storetest.Pool(t).QueryRow(t.Context(), `SELECT id::text FROM webhook_endpoints WHERE url = $1`, rc.URL+"/other").Scan(&otherID); err != nil {
		t.Fatal(err)
	}
	_, _, _, otherSecret := e.endpointState(otherID)
	for _, path := range []string{"update", "rotate", "test"} {
		if p := admin.form("/console/webhooks", "/console/webhooks/"+path, url.Values{"id": {otherID}, "enabled": {"false"}, "confirm": {"yes"}}); p.Status != http.StatusNotFound {
			t.Fatalf("%s of another workspace's endpoint: %d %.300s", path, p.Status, p.Body)
		}
	}
	if enabled, _, _, s := e.endpointState(otherID); !enabled || s != otherSecret {
		t.Fatal("another workspace's endpoint changed")
	}
	if n := e.count(`SELECT (SELECT count(*) FROM webhook_outbox WHERE endpoint_id = $1::text::uuid)
		+ (SELECT count(*) FROM webhook_events WHERE endpoint_id = $1::text::uuid)`, otherID); n != 0 {
		t.Fatalf("%d pings queued to another workspace's endpoint", n)
	}
}
