package mcp_test

import (
	"net/http"
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
	wantToolError(t, call(t, c, "call_tool", map[string]any{"name": "me"}), "rate_limited")
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
