package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestListPageBytes measures what a page of 50 deals costs a model over MCP
// (docs/performance.md, "Finding records"): the tool result's text and structured content
// with the default summary, against the same page with every field (what list_deals
// returned before summaries). The goal is at most a quarter; the figures are in
// docs/performance.md.
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
	// A deal as agencies keep them: owner, stage, company, value, links and a few lines of
	// notes, each deal's own (a column alike in every row is said once in the text).
	if _, err := pool.Exec(ctx, `INSERT INTO deals (workspace_id, created_by, pipeline_id, pipeline_stage_id, owner_id, company_id,
		name, value, confidence, website, instagram, twitter, notes)
		SELECT $1, $2, $3, $4, $2, $5, 'Acme retainer ' || g, 1000 + g * 250, 0.6, 'https://acme-' || g || '.example.com',
		'https://instagram.com/acme' || g, 'https://x.com/acme' || g, 'Call ' || g || ': ' || $6
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
		if err := json.Unmarshal(structured, &page); err != nil || len(page.Data) != 50 {
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

// TestAnswerBytes measures what five everyday questions cost over MCP in tool-result bytes
// (text and structured content), against what they cost when the text repeated the
// structured content's JSON (every result before the compact rendering, render.go). It
// prints the figures (docs/mcp.md, "Results"): 0.86 of the bytes with a table of every
// value, 0.74 since constant columns are said once and times shown to the minute. With
// DUMP=1 it also prints each answer's text and JSON, to see where the bytes go.
func TestAnswerBytes(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key := f.Agent.Key
	pipeline := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	company := e.mustCreate(t, key, "companies", `{"name":"Acme","website":"https://acme.example.com"}`)["id"].(string)
	var acme string
	for i := range 20 {
		d := e.mustCreate(t, key, "deals", fmt.Sprintf(`{"name":"Acme retainer %d","pipeline_id":%q,"company_id":%q,"value":%d,`+
			`"website":"https://acme-%d.example.com","notes":"Met the marketing lead; wants a proposal for Q3."}`, i, pipeline, company, 1000+i*500, i))
		if i == 0 {
			acme = d["id"].(string)
		}
	}
	space := e.mustCreate(t, key, "spaces", `{"name":"Client"}`)["id"].(string)
	for i := range 10 {
		e.mustCreate(t, key, "tasks", fmt.Sprintf(`{"name":"Follow up %d","space_id":%q,"priority":%d,"due_date":"2026-12-%02d"}`, i, space, i%5, i+1))
	}
	c := e.client(t, key, "")
	questions := []struct {
		question string
		tool     string
		args     map[string]any
	}{
		{"Who am I and what may I do?", "me", nil},
		{"Which deal is Acme's?", "search", map[string]any{"q": "acme", "types": []string{"deals"}}},
		{"What do we know about this deal?", "get_deals", map[string]any{"id": acme}},
		{"Which deals are worth at least 5,000, biggest first?", "list_deals",
			map[string]any{"where": []any{map[string]any{"field": "value", "op": "gte", "value": "5000"}}, "sort": "-value"}},
		{"Which urgent tasks are due?", "list_tasks",
			map[string]any{"where": []any{map[string]any{"field": "priority", "op": "gte", "value": "3"}}, "sort": "due_date"}},
	}
	var before, after int
	for _, q := range questions {
		res := call(t, c, q.tool, q.args)
		if res.IsError {
			t.Fatalf("%s %v: %s", q.tool, q.args, resultText(t, res))
		}
		text := resultText(t, res)
		structured := res.RawStructuredContent
		if len(structured) == 0 {
			structured, _ = json.Marshal(res.StructuredContent)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, structured); err != nil {
			t.Fatal(err)
		}
		was, is := 2*compact.Len(), compact.Len()+len(text)
		t.Logf("%-55s %-10s %6d bytes, was %6d (%.2f)", q.question, q.tool, is, was, float64(is)/float64(was))
		if os.Getenv("DUMP") != "" {
			t.Logf("TEXT:\n%s\nJSON:\n%s", text, compact.String())
		}
		before, after = before+was, after+is
	}
	ratio := float64(after) / float64(before)
	t.Logf("five questions: %d bytes, was %d (%.2f)", after, before, ratio)
	// At 0.6 the text could hold a fifth of the JSON: 1,600 bytes here, less than the ids
	// of the 36 records the lists and the search answer (37 bytes a row), so it would have
	// to leave records out, and clients that read only the text would lose them.
	if ratio > 0.75 {
		t.Errorf("the five questions cost %.2f of what they did; want at most 0.75", ratio)
	}
}
