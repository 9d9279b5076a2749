package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestListPageBytes measures what a page of 50 deals costs a model over MCP (issue 19):
// the tool result's text and structured content with the default summary, against the
// same page with every field (what list_deals returned before summaries). The goal is at
// most a quarter; the figures are in docs/performance.md.
func TestListPageBytes(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	ctx := context.Background()
	pool := storetest.Pool(t)
	var pipeline, stage, company string
	if err := pool.QueryRow(ctx, `INSERT INTO pipelines (workspace_id, created_by, name) VALUES ($1, $2, 'Sales') RETURNING id::text`,
		f.WorkspaceID, f.Admin.UserID).Scan(&pipeline); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO pipeline_stages (workspace_id, created_by, pipeline_id, name) VALUES ($1, $2, $3, 'Proposal') RETURNING id::text`,
		f.WorkspaceID, f.Admin.UserID, pipeline).Scan(&stage); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO companies (workspace_id, created_by, name) VALUES ($1, $2, 'Acme') RETURNING id::text`,
		f.WorkspaceID, f.Admin.UserID).Scan(&company); err != nil {
		t.Fatal(err)
	}
	// A deal as agencies keep them: owner, stage, company, value, links and a few lines of notes.
	if _, err := pool.Exec(ctx, `INSERT INTO deals (workspace_id, created_by, pipeline_id, pipeline_stage_id, owner_id, company_id,
		name, value, confidence, website, instagram, twitter, notes)
		SELECT $1, $2, $3, $4, $2, $5, 'Acme retainer ' || g, 1000 + g * 250, 0.6, 'https://acme-' || g || '.example.com',
		'https://instagram.com/acme' || g, 'https://x.com/acme' || g, $6
		FROM generate_series(1, 50) g`, f.WorkspaceID, f.Admin.UserID, pipeline, stage, company,
		strings.Repeat("Met the marketing lead; wants a proposal for Q3. ", 4)); err != nil {
		t.Fatal(err)
	}
	c := e.client(t, f.Agent.Key, "")
	size := func(args map[string]any) int {
		res := call(t, c, "list_deals", args)
		if res.IsError {
			t.Fatalf("list_deals %v: %v", args, res.Content)
		}
		text := res.Content[0].(mcpgo.TextContent).Text
		structured, _ := json.Marshal(res.StructuredContent)
		var page struct{ Data []any }
		if err := json.Unmarshal([]byte(text), &page); err != nil || len(page.Data) != 50 {
			t.Fatalf("list_deals %v: %d records", args, len(page.Data))
		}
		return len(text) + len(structured)
	}
	full := size(map[string]any{"limit": 50, "fields": strings.Join(workspace.Columns(workspace.Lookup("deals")), ",")})
	summary := size(map[string]any{"limit": 50})
	t.Logf("list_deals, 50 deals: %d bytes with every field, %d with the summary (%.2f)", full, summary, float64(summary)/float64(full))
	if summary*4 > full {
		t.Errorf("the summary page is %d bytes, more than a quarter of the full page's %d", summary, full)
	}
}
