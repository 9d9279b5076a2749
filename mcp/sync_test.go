package mcp_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/store/storetest"
)

// List tools take REST's incremental sync (docs/decisions.md 4; docs/rest.md, "Incremental
// sync"): what changed since a time, least recently updated first. Their input schemas say
// it as where on updated_at and sort updated_at, which admit nothing else; updated_since
// and order=updated_at, advertised before, still work.
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
	var schema struct {
		Sort  struct{ Pattern string }
		Where struct {
			Items struct {
				Properties struct{ Field struct{ Pattern string } }
			}
		}
	}
	_ = json.Unmarshal(props["sort"], &schema.Sort)
	_ = json.Unmarshal(props["where"], &schema.Where)
	for what, pattern := range map[string]string{"sort": schema.Sort.Pattern, "where field": schema.Where.Items.Properties.Field.Pattern} {
		re, err := regexp.Compile(pattern)
		if err != nil || !re.MatchString("updated_at") || re.MatchString("updated_at_x") {
			t.Errorf("list_deals input %s pattern %q does not take exactly updated_at", what, pattern)
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
	got = wantOK(t, call(t, c, "list_deals", map[string]any{"sort": "updated_at",
		"where": []any{map[string]any{"field": "updated_at", "op": "gte", "value": since}}}))
	order = nil
	for _, r := range got["data"].([]any) {
		order = append(order, r.(map[string]any)["id"])
	}
	if diff := cmp.Diff([]any{ids[2], ids[0]}, order); diff != "" {
		t.Fatalf("deals where updated_at >= %s, sort updated_at (-want +got):\n%s", since, diff)
	}
	wantToolError(t, call(t, c, "list_deals", map[string]any{"order": "name"}), "bad_request")
}
