package console_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store"
)

// TestCreditsPage: the balance and ledger show the grants; usage counts each credential's
// requests (a GET too) and writes per day once the counts are flushed; another
// workspace's grants are not shown; members get 403.
func TestCreditsPage(t *testing.T) {
	e := newEnv(t)
	if _, err := e.ops.GrantCredits(t.Context(), e.WorkspaceID, 40, store.By{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ops.GrantCredits(t.Context(), e.WorkspaceID, -5, store.By{}); err == nil {
		t.Fatal("a negative grant was accepted")
	}
	ws2, err := e.store.CreateWorkspace(t.Context(), "Other "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ops.GrantCredits(t.Context(), ws2, 777, store.By{}); err != nil {
		t.Fatal(err)
	}
	key, err := e.ops.CreateAgent(t.Context(), e.WorkspaceID, "Scout", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"One", "Two"} {
		req, _ := http.NewRequest("POST", e.srv.URL+"/v1/companies", strings.NewReader(`{"name":"`+name+`"}`))
		req.Header.Set("apikey", testAPIKey)
		req.Header.Set("Authorization", "Bearer "+key.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 201 {
			t.Fatalf("REST create: %v %v", res, err)
		}
		res.Body.Close()
	}
	for range 3 {
		req, _ := http.NewRequest("GET", e.srv.URL+"/v1/companies", nil)
		req.Header.Set("apikey", testAPIKey)
		req.Header.Set("Authorization", "Bearer "+key.Key)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("REST list: %v %v", res, err)
		}
		res.Body.Close()
	}
	if err := e.usage.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	p := e.agent().signIn(e.Admin).get("/console/credits")
	if p.Status != 200 || !strings.Contains(p.Body, `<strong id="balance">40</strong>`) || strings.Contains(p.Body, "777") {
		t.Fatalf("credits page: %d %.600s", p.Status, p.Body)
	}
	if !regexp.MustCompile(`<td data-label="Change">40</td><td data-label="Reason">grant</td>`).MatchString(p.Body) {
		t.Fatal("the ledger does not show the grant")
	}
	usage := regexp.MustCompile(`>Scout · key kagt_…` + key.Key[len(key.Key)-4:] + `</a></td><td data-label="Requests">5</td><td data-label="Writes">2</td>`)
	if !usage.MatchString(p.Body) {
		t.Fatalf("usage does not count the key's 5 requests and 2 writes: %s", p.Body[strings.Index(p.Body, "usage-title"):])
	}
	if res := e.agent().signIn(e.Member).get("/console/credits"); res.Status != http.StatusForbidden {
		t.Fatalf("member opens credits: %d", res.Status)
	}
}

// TestCredentialNames: the credits usage and the audit log name an agent key by its agent
// and hint, and an agent by its name, not by ids and the agent's placeholder address.
func TestCredentialNames(t *testing.T) {
	e := newEnv(t)
	key, err := e.ops.CreateAgent(t.Context(), e.WorkspaceID, "Scout Bot", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", e.srv.URL+"/v1/companies", strings.NewReader(`{"name":"Named"}`))
	req.Header.Set("apikey", testAPIKey)
	req.Header.Set("Authorization", "Bearer "+key.Key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("REST create: %v %v", res, err)
	}
	res.Body.Close()
	if err := e.usage.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	hint := key.Key[len(key.Key)-4:]
	a := e.agent().signIn(e.Admin)
	p := a.get("/console/credits")
	named := regexp.MustCompile(`<td data-label="Credential"><a href="/console/agents#key-` + key.KeyID + `"[^>]*>Scout Bot · key kagt_…` + hint + `</a>`)
	if p.Status != 200 || !named.MatchString(p.Body) || strings.Contains(p.Body, "<code>agent_key:") {
		t.Fatalf("credits usage does not name the key: %s", p.Body[strings.Index(p.Body, "usage-title"):])
	}
	p = a.get("/console/activity?resource=companies")
	if p.Status != 200 || strings.Contains(p.Body, "agents.invalid") || !strings.Contains(p.Body, ">Scout Bot</a>") ||
		!named.MatchString(p.Body) {
		t.Fatalf("audit log does not name the agent and key: %s", p.Body)
	}
}
