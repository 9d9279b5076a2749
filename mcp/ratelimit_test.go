package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestToolCallsShareTheCredentialBudget: decisions.md 5 counts REST calls and tool calls
// against the same per-credential budget.
func TestToolCallsShareTheCredentialBudget(t *testing.T) {
	lim, err := ratelimit.New(ratelimit.Config{PerCredential: 3, PerWorkspace: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lim.Close() })
	e := newEnv(t, func(c *mcp.Config) { c.Limiter = lim })
	f := storetest.Workspace(t, e.store, nil)
	p, err := e.store.AgentKeyPrincipal(context.Background(), f.Agent.Key, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One request charged the way the REST adapter charges it.
	if d, err := lim.Take(context.Background(), p.Credential.ID, p.WorkspaceID); err != nil || !d.Allowed {
		t.Fatalf("REST take: %+v %v", d, err)
	}
	c := e.client(t, f.Agent.Key, "")
	wantOK(t, call(t, c, "me", nil))
	wantOK(t, call(t, c, "me", nil))
	wantToolError(t, call(t, c, "me", nil), "rate_limited")
	// tools/list is not a tool call and is not charged.
	toolNames(t, c)
}
