package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/store/storetest"
)

// sdkClientDir holds the pinned MCP TypeScript SDK and the headless client script; .ci/test
// runs npm ci --prefix mcp/testdata/sdk-client before the Go tests.
var sdkClientDir = filepath.Join("..", "..", "mcp", "testdata", "sdk-client")

// sdkEvent is one line the script prints.
type sdkEvent struct {
	Event               string         `json:"event"`
	Message             string         `json:"message"`
	Submitted           string         `json:"submitted"`
	Fields              []string       `json:"fields"`
	ClientID            string         `json:"client_id"`
	Scope               string         `json:"scope"`
	Tools               []string       `json:"tools"`
	Me                  map[string]any `json:"me"`
	Deals               map[string]any `json:"deals"`
	Authorizations      int            `json:"authorizations"`
	TokenChanged        bool           `json:"token_changed"`
	RefreshTokenRotated bool           `json:"refresh_token_rotated"`
	AccessToken         string         `json:"access_token"`
}

// TestMCPWithTypeScriptSDKThroughOAuth runs the official MCP TypeScript SDK as a real client
// against the process's real wiring: it connects to /mcp with no credential, follows the
// 401 through RFC 9728 and RFC 8414 discovery, registers dynamically (RFC 7591) with a
// loopback redirect, signs in and approves consent as a browser would, lists tools, calls me
// and list_deals; then, once the test has expired its access token in the database, it
// recovers through the refresh grant without a second sign-in. It fails, never skips, when
// node or the SDK's modules are missing.
func TestMCPWithTypeScriptSDKThroughOAuth(t *testing.T) {
	tooltest.Require(t, "node and the MCP TypeScript SDK (mcp/testdata/sdk-client)")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required for the MCP TypeScript SDK test: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sdkClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the MCP TypeScript SDK is not installed; run: npm ci --prefix mcp/testdata/sdk-client (%v)", err)
	}
	ts, s := startServer(t)
	email, password := testMember(t, s, "member", map[string]string{"crm": "full"})
	res, err := http.Get(ts.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var asMeta map[string]any
	_ = json.NewDecoder(res.Body).Decode(&asMeta)
	res.Body.Close()
	if asMeta["client_id_metadata_document_supported"] != true {
		t.Fatalf("RFC 8414 metadata should announce Client ID Metadata Documents: %v", asMeta)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "oauth-e2e.mjs")
	cmd.Dir = sdkClientDir
	cmd.Env = append(os.Environ(), "MCP_URL="+ts.URL+"/mcp", "LOGIN_EMAIL="+email, "LOGIN_PASSWORD="+password)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := false
	defer func() {
		if !done { // a failed check: stop the script rather than wait for its timeout
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	events := bufio.NewScanner(stdout)
	events.Buffer(make([]byte, 1<<20), 1<<20)
	next := func(want string) sdkEvent {
		t.Helper()
		for events.Scan() {
			var ev sdkEvent
			if err := json.Unmarshal(events.Bytes(), &ev); err != nil {
				t.Fatalf("script printed %q", events.Text())
			}
			switch ev.Event {
			case "browser":
				t.Logf("browser submitted the %s form: %v", ev.Submitted, ev.Fields)
				continue
			case "error":
				t.Fatalf("script failed: %s\n%s", ev.Message, stderr.String())
			case want:
				return ev
			default:
				t.Fatalf("event %q, want %q", ev.Event, want)
			}
		}
		t.Fatalf("script ended before %q: %v\n%s", want, events.Err(), stderr.String())
		return sdkEvent{}
	}

	authorized := next("authorized")
	t.Logf("registered %s, granted %q", authorized.ClientID, authorized.Scope)
	if !strings.HasPrefix(authorized.ClientID, "svcdyn_") {
		t.Fatalf("client_id %q: want a dynamically registered client", authorized.ClientID)
	}
	if strings.Contains(authorized.Scope, "enrich:write") || !strings.Contains(authorized.Scope, "deals:read") {
		t.Fatalf("granted scope %q: want the challenge's scopes the member may grant, enrich:write excluded", authorized.Scope)
	}

	called := next("called")
	for _, want := range []string{"me", "list_deals", "create_deals"} {
		if !slices.Contains(called.Tools, want) {
			t.Fatalf("tools/list lacks %s: %v\n%s", want, called.Tools, stderr.String())
		}
	}
	if slices.Contains(called.Tools, "enrich_company") || slices.Contains(called.Tools, "update_workspace") {
		t.Fatalf("tools/list shows tools outside the token's scopes: %v", called.Tools)
	}
	if user, _ := called.Me["user"].(map[string]any); user["email"] != email {
		t.Fatalf("me: %v", called.Me)
	}
	if cred, _ := called.Me["credential"].(map[string]any); cred["type"] != "oauth" || cred["client_id"] != authorized.ClientID {
		t.Fatalf("me credential: %v", called.Me["credential"])
	}
	if _, ok := called.Deals["data"].([]any); !ok || called.Deals["next_cursor"] != nil {
		t.Fatalf("list_deals: %v", called.Deals)
	}

	expire := next("expire")
	// Expire every access token of the member's authorization, and flush the credential
	// cache of the process as a revocation does.
	pool := storetest.Pool(t)
	tag, err := pool.Exec(ctx, `UPDATE oauth_access_tokens SET expires_at = now() - interval '1 second'
		WHERE family_id IN (SELECT f.id FROM oauth_families f JOIN users u ON u.id = f.user_id WHERE u.email = $1)`, email)
	if err != nil || tag.RowsAffected() == 0 {
		t.Fatalf("expire the access token: %v (%d rows)", err, tag.RowsAffected())
	}
	if _, err := pool.Exec(ctx, `SELECT pg_notify('workspaced_revoked', 'test:expired')`); err != nil {
		t.Fatal(err)
	}
	waitUnauthorized(t, ts.URL+"/mcp", expire.AccessToken)
	if _, err := io.WriteString(stdin, "expired\n"); err != nil {
		t.Fatal(err)
	}

	refreshed := next("refreshed")
	if refreshed.Authorizations != 1 || !refreshed.TokenChanged || !refreshed.RefreshTokenRotated {
		t.Fatalf("after expiry: %+v; want a refresh (new pair), not a second sign-in", refreshed)
	}
	if user, _ := refreshed.Me["user"].(map[string]any); user["email"] != email {
		t.Fatalf("me after refresh: %v", refreshed.Me)
	}
	done = true
	if err := cmd.Wait(); err != nil {
		t.Fatalf("script: %v\n%s", err, stderr.String())
	}
}

// waitUnauthorized waits until /mcp refuses token, so the script's next call meets the
// expiry rather than the process's credential cache (flushed by the notification above).
func waitUnauthorized(t *testing.T, url, token string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusUnauthorized {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the expired access token is still accepted (%d)", res.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
