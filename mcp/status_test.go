package mcp_test

import (
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestOpenDealsAsREST: "open deals" means status=open in list_deals as in REST
// (docs/rest.md, "Deal status"): the biggest open deal is the one REST names, not a
// bigger won or lost one, and list_deals shows each deal's status.
func TestOpenDealsAsREST(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	key := f.Agent.Key
	c := e.client(t, key, "")
	pipeline := wantOK(t, call(t, c, "create_pipelines", map[string]any{"name": "Sales"}))["id"].(string)
	stage := func(name, outcome string) string {
		return wantOK(t, call(t, c, "create_pipeline_stages", map[string]any{"pipeline_id": pipeline, "name": name, "outcome": outcome}))["id"].(string)
	}
	stages := map[string]string{"open": stage("Proposal", "open"), "won": stage("Won", "won"), "lost": stage("Lost", "lost")}
	for _, d := range []struct {
		name, outcome string
		value         float64
	}{{"Small open", "open", 1000}, {"Big open", "open", 5000}, {"Bigger won", "won", 9000}, {"Biggest lost", "lost", 20000}} {
		wantOK(t, call(t, c, "create_deals", map[string]any{"name": d.name, "pipeline_id": pipeline,
			"pipeline_stage_id": stages[d.outcome], "value": d.value}))
	}
	for _, args := range []map[string]any{
		{"status": "open", "sort": "-value", "limit": 1},
		{"where": []any{map[string]any{"field": "status", "op": "eq", "value": "open"}}, "sort": "-value", "limit": 1},
	} {
		got := wantOK(t, call(t, c, "list_deals", args))["data"].([]any)
		if len(got) != 1 || got[0].(map[string]any)["name"] != "Big open" || got[0].(map[string]any)["status"] != "open" {
			t.Errorf("list_deals %v: %v, want Big open with status open", args, got)
		}
	}
	_, rest := e.rest(t, "GET", "/deals?status=open&sort=-value&limit=1", key, "")
	if data, _ := rest["data"].([]any); len(data) != 1 || data[0].(map[string]any)["name"] != "Big open" {
		t.Errorf("REST: %v, want Big open", rest)
	}
}
