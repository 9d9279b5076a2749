package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestEnvelopeMembersCanonical: JSON-RPC member names are case-sensitive and an object's
// names unique; Go's decoding is neither (it matches "METHOD" to method and keeps the last
// duplicate), so an envelope another parser reads differently is refused before it is
// dispatched.
func TestEnvelopeMembersCanonical(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	headers := append(mcpHeaders(f.Agent.Key), "MCP-Protocol-Version", "2025-06-18")
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"METHOD":"tools/call","params":{"name":"me","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"me","arguments":{}}}`,
		`{"jsonrpc":"2.0","Id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"me","Name":"list_deals","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"me","name":"list_deals","arguments":{}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"Method":"ping"}]`,
	} {
		status, _, raw := e.post(t, "POST", "/mcp", body, headers...)
		if status != http.StatusBadRequest || !strings.Contains(string(raw), `"code":-32600`) {
			t.Errorf("%s: want 400 invalid request, got %d %s", body, status, raw)
		}
	}
	status, _, raw := e.post(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"me","arguments":{"x":1,"X":2}}}`, headers...)
	if status != http.StatusOK {
		t.Errorf("a tool's own arguments are the tool's to check: %d %s", status, raw)
	}
}
