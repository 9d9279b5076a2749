package mcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestFeatureSnapshots keeps what a full-scope admin with the crm grant lists of prompts,
// resources and (every toolset's) templates under testdata/features, so a changed prompt
// or resource shows up in review as a changed tool does.
// Refresh with: go test ./mcp/ -run TestFeatureSnapshots -update
func TestFeatureSnapshots(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	p := storetest.AddUser(t, e.store, f.WorkspaceID, "admin", map[string]string{"crm": "full", "hr": "full", "finance": "full",
		"metrics": "full", "competitors": "full", "agents": "full"}, workspace.Scopes())
	tok := e.token(p)
	for file, method := range map[string]string{"prompts.json": "prompts/list", "resources.json": "resources/list",
		"templates.json": "resources/templates/list"} {
		_, a := e.rpc(t, mcp.Path, tok, mcpgo.ProtocolVersion20251125, method, nil, mcp.HeaderToolsets, "all")
		var v any
		a.ok(t, &v)
		raw, _ := json.Marshal(v)
		var got bytes.Buffer
		if err := json.Indent(&got, raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		got.WriteByte('\n')
		path := filepath.Join("testdata", "features", file)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		snap, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no snapshot (run with -update): %v", method, err)
			continue
		}
		if diff := cmp.Diff(string(snap), got.String()); diff != "" {
			t.Errorf("%s changed (-snapshot +now); run with -update if intended:\n%s", method, diff)
		}
	}
}
