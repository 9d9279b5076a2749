package mcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestToolCallsShareTheCredentialBudget: docs/decisions.md 5 counts REST calls and tool calls
// against the same per-credential budget.
func TestToolCallsShareTheCredentialBudget(t *testing.T) {
	lim, err := ratelimit.New(ratelimit.Config{PerCredential: 4, PerWorkspace: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lim.Close() })
	e := newEnv(t, func(c *envConfig) { c.limiter = lim })
	f := storetest.Workspace(t, e.store, nil)
	rest := func() int {
		status, _, _ := e.post(t, "GET", "/v1/me", "", "apikey", testAPIKey, "Authorization", "Bearer "+f.Agent.Key)
		return status
	}
	if got := rest(); got != http.StatusOK {
		t.Fatalf("REST call 1: %d", got)
	}
	c := e.client(t, f.Agent.Key, "")
	// call_tool is charged once, as the tool it runs; find_tools like any tool.
	wantOK(t, call(t, c, "call_tool", map[string]any{"name": "me"}))
	if got := rest(); got != http.StatusOK {
		t.Fatalf("REST call 3: %d", got)
	}
	wantOK(t, call(t, c, "find_tools", map[string]any{"query": "deals"}))
	res := call(t, c, "call_tool", map[string]any{"name": "me"})
	body := wantToolError(t, res, "rate_limited")
	// MCP clients never see Retry-After: the text and the structured content say the wait.
	structured, _ := json.Marshal(res.StructuredContent)
	if secs, _ := body["retry_after"].(float64); secs < 1 || !strings.Contains(body["message"].(string), "retry in 60 seconds") ||
		!strings.Contains(string(structured), `"retry_after":60`) {
		t.Fatalf("rate_limited tool error does not say how long to wait: %v, structured %s", body, structured)
	}
	// The same answered directly, as a 2025-11-25 client's call is (direct.go).
	res = call(t, e.client(t, f.Agent.Key, "2025-11-25"), "me", nil)
	body = wantToolError(t, res, "rate_limited")
	structured, _ = json.Marshal(res.StructuredContent)
	if secs, _ := body["retry_after"].(float64); secs != 60 || !strings.Contains(string(structured), `"retry_after":60`) {
		t.Fatalf("me, rate limited: %v, structured %s", body, structured)
	}
	if got := rest(); got != http.StatusTooManyRequests {
		t.Fatalf("REST after the budget was spent by tool calls: %d, want 429", got)
	}
	// tools/list is not a tool call and is not charged.
	toolNames(t, c)
}

// TestFailedAuthenticationThrottledPerIP: docs/decisions.md 5, failures count per client IP in
// the bucket REST uses, so guessing tokens on /mcp is throttled too.
func TestFailedAuthenticationThrottledPerIP(t *testing.T) {
	lim, err := ratelimit.New(ratelimit.Config{IPBudgets: map[string]ratelimit.Budget{
		ratelimit.BucketAuthFail: {Tokens: 2, Interval: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lim.Close() })
	e := newEnv(t, func(c *envConfig) { c.limiter = lim })
	for i, want := range []int{http.StatusUnauthorized, http.StatusUnauthorized, http.StatusTooManyRequests} {
		status, h, body := e.post(t, "POST", "/mcp", initialize, mcpHeaders("kagt_guess")...)
		if status != want {
			t.Fatalf("attempt %d: %d %s, want %d", i+1, status, body, want)
		}
		if status == http.StatusTooManyRequests && h.Get("Retry-After") != "60" {
			t.Fatalf("429 without Retry-After: 60: %v", h)
		}
	}
}
