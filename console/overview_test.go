package console_test

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestOverviewWebhooks: an admin's overview counts the workspace's webhook endpoints and
// names the failing or disabled ones, linking to each; a member's shows none of it.
func TestOverviewWebhooks(t *testing.T) {
	e := newEnv(t)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(rc.Close)
	admin := e.agent().signIn(e.Admin)
	if p := admin.get("/console"); p.Status != 200 || !strings.Contains(p.Body, `id="webhooks-summary"`) ||
		!strings.Contains(p.Body, "No webhook endpoints yet") {
		t.Fatalf("overview without endpoints: %d %.2000s", p.Status, p.Body)
	}
	for _, path := range []string{"/ok", "/broken"} {
		if p := admin.form("/console/webhooks", "/console/webhooks/create", url.Values{"url": {rc.URL + path}}); p.Status != 200 {
			t.Fatalf("create: %d", p.Status)
		}
	}
	var broken string
	if err := storetest.Pool(t).QueryRow(t.Context(), `UPDATE webhook_endpoints SET failing_since = now() - interval '2 hours'
		WHERE url = $1 RETURNING id::text`, rc.URL+"/broken").Scan(&broken); err != nil {
		t.Fatal(err)
	}
	p := admin.get("/console")
	if p.Status != 200 || !strings.Contains(p.Body, "2 endpoints, 1 failing") ||
		!strings.Contains(p.Body, `<a href="/console/webhooks#endpoint-`+broken+`">`+rc.URL+`/broken</a>`) ||
		strings.Contains(p.Body, rc.URL+"/ok<") {
		t.Fatalf("overview with a failing endpoint: %.3000s", p.Body)
	}
	if p := e.agent().signIn(e.Member).get("/console"); p.Status != 200 || strings.Contains(p.Body, "webhooks-summary") {
		t.Fatalf("a member's overview: %d", p.Status)
	}
}

// TestConnectAssistant: every signed-in member finds "Connect an assistant" in the nav, with
// the MCP URL from the public URL and the README's snippets for it.
func TestConnectAssistant(t *testing.T) {
	e := newEnv(t)
	if p := e.agent().get("/console/connect"); p.Status != http.StatusSeeOther {
		t.Fatalf("anonymous: %d", p.Status)
	}
	member := e.agent().signIn(e.Member)
	if p := member.get("/console"); !strings.Contains(p.Body, `<a href="/console/connect">Connect an assistant</a>`) {
		t.Fatalf("no nav link: %.1500s", p.Body)
	}
	p := member.get("/console/connect")
	body := html.UnescapeString(p.Body)
	u := e.issuer + "/mcp"
	for _, want := range []string{
		`href="/console/connect" aria-current="page"`,
		`<code id="mcp-url">` + u + `</code>`,
		`claude mcp add --transport http workspaced ` + u + ` --header "Authorization: Bearer kagt_..."`,
		`{"servers": {"workspaced": {"type": "http", "url": "` + u + `", "headers": {"Authorization": "Bearer kagt_..."}}}}`,
		`{"mcpServers": {"workspaced": {"type": "http", "url": "` + u + `", "headers": {"Authorization": "Bearer kagt_..."}}}}`,
		`npx -y @modelcontextprotocol/inspector@2.12.0 --cli --config mcp.json --server workspaced --method tools/list`,
		"Node 22.19",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if p.Status != 200 || t.Failed() {
		t.Fatalf("connect page: %d %s", p.Status, body)
	}
}
