package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestEveryToolKind calls each kind of tool with an agent key through mcp-go's client, on
// the real operation layer, and checks the answers against REST's.
func TestEveryToolKind(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	key := f.Agent.Key
	c := e.client(t, key, "")

	pipeline := wantOK(t, call(t, c, "create_pipelines", map[string]any{"name": "Sales"}))["id"].(string)
	var deals []string
	for _, name := range []string{"Acme", "Globex", "Initech"} {
		d := wantOK(t, call(t, c, "create_deals", map[string]any{"name": name, "pipeline_id": pipeline, "value": 1200.5}))
		if d["name"] != name || d["value"] != 1200.5 || d["pipeline_id"] != pipeline {
			t.Fatalf("create_deals answered %v", d)
		}
		deals = append(deals, d["id"].(string))
	}

	t.Run("get matches REST", func(t *testing.T) {
		got := wantOK(t, call(t, c, "get_deals", map[string]any{"id": deals[0]}))
		status, rest := e.rest(t, "GET", "/deals/"+deals[0], key, "")
		if status != 200 {
			t.Fatalf("REST: %d %v", status, rest)
		}
		if diff := cmp.Diff(rest["data"], any(got)); diff != "" {
			t.Fatalf("tool and REST disagree (-rest +tool):\n%s", diff)
		}
	})

	t.Run("list pages as REST does", func(t *testing.T) {
		// A list tool answers a summary of each deal by default (docs/mcp.md, "Tools"):
		// REST's list with those fields.
		first := wantOK(t, call(t, c, "list_deals", map[string]any{"pipeline_id": pipeline, "limit": 2}))
		_, rest := e.rest(t, "GET", "/deals?limit=2&fields=name,pipeline_stage_id,status,value,updated_at&pipeline_id="+pipeline, key, "")
		if diff := cmp.Diff(rest["data"], first["data"]); diff != "" {
			t.Fatalf("first page: tool and REST disagree (-rest +tool):\n%s", diff)
		}
		cursor, _ := first["next_cursor"].(string)
		if cursor == "" || len(first["data"].([]any)) != 2 {
			t.Fatalf("first page %v", first)
		}
		second := wantOK(t, call(t, c, "list_deals", map[string]any{"pipeline_id": pipeline, "limit": 2, "cursor": cursor}))
		rows := second["data"].([]any)
		if len(rows) != 1 || rows[0].(map[string]any)["id"] != deals[0] || second["next_cursor"] != nil {
			t.Fatalf("second page %v: want the oldest deal and next_cursor null", second)
		}
	})

	t.Run("update", func(t *testing.T) {
		got := wantOK(t, call(t, c, "update_deals", map[string]any{"id": deals[1], "value": 99, "notes": "called"}))
		if got["value"] != float64(99) || got["notes"] != "called" || got["name"] != "Globex" {
			t.Fatalf("update_deals answered %v", got)
		}
	})

	t.Run("create and detach a join record", func(t *testing.T) {
		person := wantOK(t, call(t, c, "create_people", map[string]any{"name": "Ann"}))["id"].(string)
		wantOK(t, call(t, c, "create_deal_people", map[string]any{"deal_id": deals[2], "person_id": person, "is_primary": true}))
		listed := wantOK(t, call(t, c, "list_deal_people", map[string]any{"deal_id": deals[2]}))
		if n := len(listed["data"].([]any)); n != 1 || listed["next_cursor"] != nil {
			t.Fatalf("list_deal_people: %v", listed)
		}
		got := wantOK(t, confirmCall(t, c, "detach_deal_people", map[string]any{"deal_id": deals[2], "person_id": person}))
		want := map[string]any{"deal_id": deals[2], "person_id": person, "detached": true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("detach (-want +got):\n%s", diff)
		}
		wantToolError(t, confirmCall(t, c, "detach_deal_people", map[string]any{"deal_id": deals[2], "person_id": person}), "not_found")
	})

	t.Run("me and enrich_company", func(t *testing.T) {
		me := wantOK(t, call(t, c, "me", nil))
		if len(me["scopes"].([]any)) != len(workspace.Scopes()) {
			t.Fatalf("me: %v", me)
		}
		got := wantOK(t, confirmCall(t, c, "enrich_company", map[string]any{"domain": "example.com"}))
		var want map[string]any
		raw, _ := json.Marshal(enrichAnswer("example.com"))
		_ = json.Unmarshal(raw, &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("enrich_company answers what Enrich answers (-want +got):\n%s", diff)
		}
	})

	t.Run("idempotency_key replays a create as REST's Idempotency-Key does", func(t *testing.T) {
		args := map[string]any{"name": "Once", "idempotency_key": "mcp-key-1"}
		first := wantOK(t, call(t, c, "create_labels", args))
		again := wantOK(t, call(t, c, "create_labels", args))
		if first["id"] != again["id"] || first["name"] != "Once" {
			t.Fatalf("the retry created another label: %v / %v", first, again)
		}
		// REST, with the same credential and key, replays the same record.
		status, header, raw := e.post(t, "POST", "/v1/labels", `{"name": "Once"}`, "apikey", testAPIKey, "Authorization", "Bearer "+key,
			"Idempotency-Key", "mcp-key-1")
		if status != 201 || header.Get("Idempotent-Replayed") != "true" || !strings.Contains(string(raw), first["id"].(string)) {
			t.Fatalf("REST with the tool's key: %d %v %s", status, header, raw)
		}
		args["name"] = "Twice"
		wantToolError(t, call(t, c, "create_labels", args), "idempotency_conflict")
		wantToolError(t, call(t, c, "create_labels", map[string]any{"name": "x", "idempotency_key": 7}), "validation_error")
	})

	t.Run("REST's errors as tool errors", func(t *testing.T) {
		wantToolError(t, call(t, c, "get_deals", map[string]any{"id": "0b6b3f5c-0a43-4c43-8f0e-54a4e0d7d3a1"}), "not_found")
		body := wantToolError(t, call(t, c, "create_deals", map[string]any{"pipeline_id": pipeline}), "validation_error")
		if fields, _ := body["fields"].([]any); len(fields) == 0 {
			t.Fatalf("validation_error names no field: %v", body)
		}
		body = wantToolError(t, call(t, c, "list_deals", map[string]any{"stage": "won"}), "bad_request")
		if !strings.Contains(body["message"].(string), "pipeline_id") {
			t.Fatalf("an unknown filter's message should name the valid ones: %v", body["message"])
		}
		wantToolError(t, call(t, c, "list_deals", map[string]any{"limit": 0}), "bad_request")
		wantToolError(t, call(t, c, "list_deals", map[string]any{"limit": 201}), "bad_request")
		wantToolError(t, call(t, c, "list_deals", map[string]any{"cursor": "not-a-cursor"}), "bad_request")
		wantToolError(t, call(t, c, "update_workspace", map[string]any{"name": "Mine"}), "insufficient_permission")
		wantToolError(t, call(t, c, "get_deals", nil), "validation_error")
		wantToolError(t, call(t, c, "update_deals", map[string]any{"id": 7}), "validation_error")
	})
}
