package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/store/storetest"
)

// List tools take REST's incremental-sync parameters (docs/decisions.md 4, issue 12):
// updated_since and order=updated_at fetch what changed since a time, least recently
// updated first. Their input schemas say so, since they admit no other property.
func TestListToolsSync(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	c := e.client(t, f.Agent.Key, "x/deals")

	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var props map[string]json.RawMessage
	for _, tl := range res.Tools {
		if tl.Name == "list_deals" {
			raw, _ := json.Marshal(tl.InputSchema)
			var s struct{ Properties map[string]json.RawMessage }
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			props = s.Properties
		}
	}
	for name, want := range map[string]string{
		"updated_since": `{"type":"string","format":"date-time"}`,
		"order":         `{"type":"string","enum":["created_at","updated_at"]}`,
	} {
		var got, exp any
		_ = json.Unmarshal(props[name], &got)
		_ = json.Unmarshal([]byte(want), &exp)
		if diff := cmp.Diff(exp, got); diff != "" {
			t.Errorf("list_deals input %s (-want +got):\n%s", name, diff)
		}
	}

	pipeline := wantOK(t, call(t, c, "call_tool", map[string]any{"name": "create_pipelines",
		"arguments": map[string]any{"name": "Sales"}}))["id"].(string)
	var ids []string
	for _, name := range []string{"Acme", "Globex", "Initech"} {
		ids = append(ids, wantOK(t, call(t, c, "create_deals", map[string]any{"name": name, "pipeline_id": pipeline}))["id"].(string))
	}
	time.Sleep(10 * time.Millisecond) // updated_at is the transaction's clock: keep the edits apart from the creations
	since := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(10 * time.Millisecond)
	for _, id := range []string{ids[2], ids[0]} {
		wantOK(t, call(t, c, "update_deals", map[string]any{"id": id, "notes": "changed"}))
	}
	got := wantOK(t, call(t, c, "list_deals", map[string]any{"updated_since": since, "order": "updated_at"}))
	var order []any
	for _, r := range got["data"].([]any) {
		order = append(order, r.(map[string]any)["id"])
	}
	if diff := cmp.Diff([]any{ids[2], ids[0]}, order); diff != "" {
		t.Fatalf("deals changed since %s, least recently updated first (-want +got):\n%s", since, diff)
	}
	wantToolError(t, call(t, c, "list_deals", map[string]any{"order": "name"}), "bad_request")
}
