package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestSlowCallsReportProgress: a tools/call that asks for progress (a progressToken in
// _meta) and runs past a second hears notifications/progress with its token, progress
// counting up, before its result; a fast one, or one that did not ask, hears none.
func TestSlowCallsReportProgress(t *testing.T) {
	slow := enricherFunc(func(ctx context.Context, p *auth.Principal, domain string) (*workspace.EnrichResult, error) {
		if domain == "slow.example" {
			time.Sleep(2500 * time.Millisecond)
		}
		return enrichAnswer(domain), nil
	})
	e := newEnv(t, func(c *envConfig) { c.enricher = slow })
	f := storetest.Workspace(t, e.store, nil)
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			messages := func(domain string, token any) []map[string]any {
				// Confirmed as a model does once its user agreed (confirm.go); the
				// confirmation itself is answered at once.
				confirm := e.confirmToken(t, f.Agent.Key, "enrich_company", map[string]any{"domain": domain})
				params := map[string]any{"name": "enrich_company", "arguments": map[string]any{"domain": domain, "confirm": confirm}}
				meta := map[string]any{}
				if token != nil {
					meta["progressToken"] = token
				}
				h := append(mcpHeaders(f.Agent.Key), "MCP-Protocol-Version", version)
				if version == mcpgo.ProtocolVersion20260728 {
					meta[mcpgo.MetaKeyProtocolVersion] = version
					meta[mcpgo.MetaKeyClientInfo] = map[string]any{"name": "t", "version": "1"}
					meta[mcpgo.MetaKeyClientCapabilities] = map[string]any{}
					h = append(h, "Mcp-Method", "tools/call", "Mcp-Name", "enrich_company")
				}
				if len(meta) > 0 {
					params["_meta"] = meta
				}
				body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})
				status, _, raw := e.post(t, "POST", mcp.Path, string(body), h...)
				if status != http.StatusOK {
					t.Fatalf("enrich_company %s: %d %s", domain, status, raw)
				}
				var out []map[string]any
				lines := strings.Split(string(raw), "\n")
				if !strings.HasPrefix(string(raw), "event:") && !strings.HasPrefix(string(raw), "data:") {
					lines = []string{"data:" + string(raw)}
				}
				for _, l := range lines {
					if d, ok := strings.CutPrefix(l, "data:"); ok {
						var m map[string]any
						if err := json.Unmarshal([]byte(d), &m); err != nil {
							t.Fatalf("message %q: %v", d, err)
						}
						out = append(out, m)
					}
				}
				if len(out) == 0 || out[len(out)-1]["result"] == nil {
					t.Fatalf("enrich_company %s: no result last: %s", domain, raw)
				}
				return out
			}
			got := messages("slow.example", "p-1")
			notes := got[:len(got)-1]
			if len(notes) < 1 { // two on time; one leaves room for a loaded machine
				t.Fatalf("a 2.5 s call sent no progress notification")
			}
			for i, n := range notes {
				params, _ := n["params"].(map[string]any)
				if n["method"] != "notifications/progress" || params["progressToken"] != "p-1" || params["progress"] != float64(i+1) ||
					!strings.Contains(params["message"].(string), "enrich_company") {
					t.Fatalf("notification %d: %v", i, n)
				}
			}
			if got := messages("slow.example", nil); len(got) != 1 {
				t.Fatalf("a call that did not ask for progress got %d messages", len(got))
			}
			if got := messages("fast.example", "p-2"); len(got) != 1 {
				t.Fatalf("a fast call got %d messages", len(got))
			}
		})
	}
}
