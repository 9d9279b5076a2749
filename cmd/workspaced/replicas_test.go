package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/agencyos/workspaced/store/storetest"
)

// privateRedis starts a redis-server of the test's own on a free port.
func privateRedis(t *testing.T) string {
	t.Helper()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, 10*time.Second, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, "redis-server listening")
	return "redis://" + addr + "/0"
}

// roundRobin is the load balancer of the drill: each request goes to the next replica,
// and it remembers which one answered which path.
type roundRobin struct {
	next     atomic.Uint64
	backends []*httputil.ReverseProxy
	mu       sync.Mutex
	served   []string // "path -> replica index"
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(rr.next.Add(1)-1) % len(rr.backends)
	rr.mu.Lock()
	rr.served = append(rr.served, fmt.Sprintf("%s %s -> %d", r.Method, r.URL.Path, i))
	rr.mu.Unlock()
	rr.backends[i].ServeHTTP(w, r)
}

// TestDrillTwoReplicas runs two processes on one database and one Redis behind a
// round-robin proxy: they hold one rate budget, a revocation at one is seen by the other
// within a second, an OAuth flow whose steps alternate between them completes, and MCP
// answers on either.
func TestDrillTwoReplicas(t *testing.T) {
	dsn := storetest.DSN(t)
	redisURL := privateRedis(t)
	rr := &roundRobin{}
	proxy := httptest.NewServer(rr)
	defer proxy.Close()
	bin := buildBinary(t)
	env := []string{"DATABASE_URL=" + dsn, "REDIS_URL=" + redisURL, "PUBLIC_URL=" + proxy.URL, "RATE_LIMIT_PER_CREDENTIAL=10"}
	var replicas []*daemon
	for range 2 {
		addr := freeAddr(t)
		d := launchDaemon(t, bin, append(env, "LISTEN_ADDR="+addr)...)
		d.url = "http://" + addr
		waitFor(t, 60*time.Second, func() bool {
			res, err := http.Get(d.url + "/readyz")
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == 200
		}, "replica ready")
		target, _ := url.Parse(d.url)
		rr.backends = append(rr.backends, httputil.NewSingleHostReverseProxy(target))
		replicas = append(replicas, d)
	}

	// One rate budget: 14 calls of one agent key through the proxy, 7 on each replica.
	_, key := agentKey(t, dsn)
	ok := 0
	for range 14 {
		if code, _, _ := call(http.DefaultClient, "GET", proxy.URL+"/v1/me", key, nil); code == 200 {
			ok++
		}
	}
	if ok != 10 {
		t.Errorf("%d of 14 calls allowed across two replicas; the per-credential budget is 10", ok)
	}

	// An OAuth flow through the proxy: consecutive steps land on different replicas.
	s := storetest.New(t)
	email, password := testMember(t, s, "member", map[string]string{"crm": "full"})
	rr.mu.Lock()
	rr.served = nil
	rr.mu.Unlock()
	tok, clientID := oauthFlow(t, proxy.URL, email, password)
	rr.mu.Lock()
	steps := strings.Join(rr.served, "\n")
	rr.mu.Unlock()
	if !strings.Contains(steps, "/oauth/token -> ") || !strings.Contains(steps, "-> 0") || !strings.Contains(steps, "-> 1") {
		t.Errorf("the flow's steps did not span both replicas:\n%s", steps)
	}
	t.Logf("OAuth flow steps:\n%s", steps)

	// Both replicas have the token cached; revoking it at one is seen by the other.
	for _, d := range replicas {
		if code, _, body := call(http.DefaultClient, "GET", d.url+"/v1/me", tok, nil); code != 200 {
			t.Fatalf("token on %s: %d %s", d.url, code, body)
		}
	}
	res, err := http.PostForm(replicas[0].url+"/oauth/revoke?apikey="+drillAPIKey, url.Values{"token": {tok}, "client_id": {clientID}})
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("revoke at replica 0: %v %v", res, err)
	}
	res.Body.Close()
	revoked := time.Now()
	waitFor(t, time.Second, func() bool {
		code, _, _ := call(http.DefaultClient, "GET", replicas[1].url+"/v1/me", tok, nil)
		return code == 401
	}, "the revocation at replica 0 seen by replica 1")
	t.Logf("replica 1 refused the token revoked at replica 0 after %s", time.Since(revoked).Round(time.Millisecond))

	// MCP on either replica (stateless: no session to stick to).
	for i, d := range replicas {
		code, b := mcpToolCall(t, d.url, freshKey(t, dsn), "me", `{}`)
		if code != 200 || !strings.Contains(string(b), "workspace") || strings.Contains(string(b), `"isError":true`) {
			t.Errorf("MCP tools/call me on replica %d: %d %s", i, code, b)
		}
	}
}

// freshKey is a new agent key, with a rate budget of its own.
func freshKey(t *testing.T, dsn string) string {
	_, key := agentKey(t, dsn)
	return key
}

// oauthFlow registers a public client, signs in and consents as a browser would, and
// exchanges the code, all at base; it returns the access token and the client id.
func oauthFlow(t *testing.T, base, email, password string) (string, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "Replica drill", "redirect_uris": []string{"http://127.0.0.1/callback"},
		"token_endpoint_auth_method": "none"})
	res, err := http.Post(base+"/oauth/register", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(res.Body).Decode(&reg)
	res.Body.Close()
	if reg.ClientID == "" {
		t.Fatalf("register: %d", res.StatusCode)
	}
	conf := &oauth2.Config{ClientID: reg.ClientID, RedirectURL: "http://127.0.0.1/callback",
		Endpoint: oauth2.Endpoint{AuthURL: base + "/oauth/authorize", TokenURL: base + "/oauth/token?apikey=" + drillAPIKey,
			AuthStyle: oauth2.AuthStyleInParams},
		Scopes: []string{"deals:read"}}
	verifier := oauth2.GenerateVerifier()
	landed, _ := signInAndApprove(t, base, conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)), email, password,
		[]string{"deals:read"})
	tok, err := conf.Exchange(context.Background(), landed.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken, reg.ClientID
}

// mcpToolCall posts one MCP tools/call of tool with arguments (a JSON object) and returns
// the status and body.
func mcpToolCall(t *testing.T, baseURL, bearer, tool, arguments string) (int, []byte) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + arguments + `}}`
	req, _ := http.NewRequest("POST", baseURL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}
