package console_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store"
)

const loopbackRedirect = "http://127.0.0.1/callback"

// registerClient registers a public client dynamically (RFC 7591) and returns its id.
func (e *env) registerClient(name string) string {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{loopbackRedirect},
		"token_endpoint_auth_method": "none"})
	res, err := http.Post(e.srv.URL+"/oauth/register", "application/json", bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	id, _ := out["client_id"].(string)
	if res.StatusCode != 201 || id == "" {
		e.t.Fatalf("register: %d %v", res.StatusCode, out)
	}
	return id
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)"`)

// authorize runs the authorization code flow with PKCE for a signed-in agent, approving
// scope on the consent page, and returns the access token.
func (a *agent) authorize(clientID, scope string) string {
	a.t.Helper()
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {clientID}, "redirect_uri": {loopbackRedirect}, "response_type": {"code"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {"s"}, "scope": {scope}}
	consent := a.get("/oauth/authorize?" + q.Encode())
	if consent.Status != 200 || !strings.Contains(consent.Body, `id="consent"`) {
		a.t.Fatalf("consent page: %d %.400s", consent.Status, consent.Body)
	}
	form := url.Values{"action": {"approve"}, "scope": strings.Fields(scope)}
	for _, m := range hiddenRE.FindAllStringSubmatch(consent.Body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	res := a.post("/oauth/authorize", form)
	loc, err := url.Parse(res.Location)
	if res.Status != http.StatusSeeOther || err != nil || loc.Query().Get("code") == "" {
		a.t.Fatalf("approve: %d %q %.300s", res.Status, res.Location, res.Body)
	}
	tok := a.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"code_verifier": {verifier}, "client_id": {clientID}, "redirect_uri": {loopbackRedirect}}, "apikey", testAPIKey)
	var out map[string]any
	_ = json.Unmarshal([]byte(tok.Body), &out)
	access, _ := out["access_token"].(string)
	if tok.Status != 200 || access == "" {
		a.t.Fatalf("token: %d %s", tok.Status, tok.Body)
	}
	return access
}

// mcpCall sends one JSON-RPC tools/call to /mcp with bearer (protocol 2025-06-18, no
// session: the stateless path every client can take) and returns the raw answer.
func (e *env) mcpCall(bearer, tool string, args map[string]any) string {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	req, _ := http.NewRequest("POST", e.srv.URL+mcp.Path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || strings.Contains(string(raw), `"isError":true`) {
		e.t.Fatalf("tools/call %s: %d %s", tool, res.StatusCode, raw)
	}
	return string(raw)
}

// TestAuditLogNamesClientAndChannel: a write through MCP by a dynamically registered
// OAuth client appears in the console's audit log with the client's name and "MCP"; a
// REST write with an agent key with "REST" and the key; the filters by app, key, member
// and resource select them; another workspace's record is 404; members get 403.
func TestAuditLogNamesClientAndChannel(t *testing.T) {
	e := newEnv(t)
	a := e.agent().signIn(e.Admin)
	clientID := e.registerClient("MCP CLI Proxy")
	token := a.authorize(clientID, "companies:read companies:write")
	e.mcpCall(token, "create_companies", map[string]any{"name": "Made by an assistant"})

	key, err := e.ops.CreateAgent(t.Context(), e.WorkspaceID, "Scout", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", e.srv.URL+"/v1/companies", strings.NewReader(`{"name":"Made by a script"}`))
	req.Header.Set("apikey", testAPIKey)
	req.Header.Set("Authorization", "Bearer "+key.Key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("REST create: %d", res.StatusCode)
	}

	// The database records both, additively.
	if n := e.count(`SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'companies' AND via = 'mcp'
		AND client = jsonb_build_object('id', $2::text, 'name', 'MCP CLI Proxy') AND credential LIKE 'oauth:%'
		AND changes->>'name' = 'Made by an assistant' AND actor_id = $3`, e.WorkspaceID, clientID, e.Admin.ID); n != 1 {
		t.Fatal("the MCP write's activity lacks its client, credential or channel")
	}
	if n := e.count(`SELECT count(*) FROM activity WHERE workspace_id = $1 AND via = 'rest' AND client IS NULL
		AND credential = 'agent_key:' || $2 AND changes->>'name' = 'Made by a script'`, e.WorkspaceID, key.KeyID); n != 1 {
		t.Fatal("the REST write's activity lacks its key or channel")
	}

	row := regexp.MustCompile(`(?s)<tr id="activity-([0-9a-f-]+)">(.*?)</tr>`)
	rows := func(query string) map[string]string {
		t.Helper()
		p := a.get("/console/activity" + query)
		if p.Status != 200 {
			t.Fatalf("audit log %s: %d", query, p.Status)
		}
		out := map[string]string{}
		for _, m := range row.FindAllStringSubmatch(p.Body, -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	byApp := rows("?app=" + url.QueryEscape(clientID))
	if len(byApp) != 1 {
		t.Fatalf("filtered by app: %d rows, want 1", len(byApp))
	}
	var mcpRow, mcpID string
	for id, r := range byApp {
		mcpID, mcpRow = id, r
	}
	if !strings.Contains(mcpRow, "MCP") || !strings.Contains(mcpRow, "MCP CLI Proxy") {
		t.Fatalf("the audit log's row does not say MCP and the client's name: %s", mcpRow)
	}
	byKey := rows("?key=" + key.KeyID)
	if len(byKey) != 1 {
		t.Fatalf("filtered by key: %d rows, want 1", len(byKey))
	}
	for _, r := range byKey {
		if !strings.Contains(r, "REST") || !strings.Contains(r, "agent_key:"+key.KeyID) {
			t.Fatalf("key row: %s", r)
		}
	}
	if got := rows("?member=" + e.Admin.ID); len(got) != 1 {
		t.Fatalf("filtered by member: %d rows, want the admin's 1", len(got))
	}
	if got := rows("?resource=companies"); len(got) != 2 {
		t.Fatalf("filtered by resource: %d rows, want 2", len(got))
	}
	if got := rows("?key=not-a-uuid"); len(got) != 0 {
		t.Fatalf("a malformed key matches %d rows", len(got))
	}
	if p := a.get("/console/activity/" + mcpID); p.Status != 200 || !strings.Contains(p.Body, "Made by an assistant") {
		t.Fatalf("record page: %d", p.Status)
	}

	// Another workspace's record is 404 to this admin; members get 403.
	other := newEnvSameDB(t, e)
	if p := other.get("/console/activity/" + mcpID); p.Status != http.StatusNotFound {
		t.Fatalf("another workspace's admin opens the record: %d", p.Status)
	}
	if p := e.agent().signIn(e.Member).get("/console/activity"); p.Status != http.StatusForbidden {
		t.Fatalf("member opens the audit log: %d", p.Status)
	}
}

// newEnvSameDB signs in the admin of a second workspace on e's server.
func newEnvSameDB(t *testing.T, e *env) *agent {
	t.Helper()
	ws, err := e.store.CreateWorkspace(t.Context(), "Other "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	return e.agent().signIn(e.addUser(ws, "admin", "active", nil))
}
