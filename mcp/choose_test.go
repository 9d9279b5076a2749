package mcp_test

import (
	"context"
	"net/http"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestCreateAsksForAMissingChoice: create_deals without pipeline_id, from a 2026-07-28
// client that can elicit, in a workspace with two pipelines, asks the user which one (an
// input_required result whose form lists both by name) and creates nothing; the retry
// with the answer and the state creates the deal in the chosen pipeline, and a declined
// form creates nothing. A client that cannot elicit gets the validation error as before.
func TestCreateAsksForAMissingChoice(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key := f.Agent.Key
	sales := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	partners := e.mustCreate(t, key, "pipelines", `{"name":"Partnerships"}`)["id"].(string)
	deals := func() int {
		t.Helper()
		var n int
		if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT count(*) FROM deals WHERE workspace_id = $1`, f.WorkspaceID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	v := mcpgo.ProtocolVersion20260728
	args := map[string]any{"name": "Acme retainer"}
	createDeal := func(caps map[string]any, extra map[string]any) (int, map[string]any) {
		params := map[string]any{"name": "create_deals", "arguments": args}
		for k, x := range extra {
			params[k] = x
		}
		return e.rpcCall(t, mcp.Path, key, v, "tools/call", params, caps)
	}

	status, out := createDeal(elicitCaps, nil)
	res, _ := out["result"].(map[string]any)
	if status != http.StatusOK || res == nil || res["resultType"] != "input_required" {
		t.Fatalf("want input_required, got %d %v", status, out)
	}
	form := res["inputRequests"].(map[string]any)["pipeline_id"].(map[string]any)
	prop := form["params"].(map[string]any)["requestedSchema"].(map[string]any)["properties"].(map[string]any)["pipeline_id"].(map[string]any)
	choices := map[string]string{}
	for _, o := range prop["oneOf"].([]any) {
		choices[o.(map[string]any)["const"].(string)] = o.(map[string]any)["title"].(string)
	}
	if form["method"] != "elicitation/create" || choices[sales] != "Sales" || choices[partners] != "Partnerships" || len(choices) != 2 {
		t.Fatalf("the form: %v", form)
	}
	if deals() != 0 {
		t.Fatal("asking created a deal")
	}
	state := res["requestState"].(string)
	answer := func(action string, content map[string]any) map[string]any {
		_, out := createDeal(elicitCaps, map[string]any{"requestState": state,
			"inputResponses": map[string]any{"pipeline_id": map[string]any{"action": action, "content": content}}})
		return out
	}
	if body := toolErrorBody(t, answer("decline", nil)); body["error"] != string(mcp.CodeConfirmationDeclined) || deals() != 0 {
		t.Fatalf("declined: %v", body)
	}
	out = answer("accept", map[string]any{"pipeline_id": partners})
	res, _ = out["result"].(map[string]any)
	if res == nil || res["isError"] == true || res["structuredContent"].(map[string]any)["pipeline_id"] != partners || deals() != 1 {
		t.Fatalf("the answered create: %v", out)
	}

	// A client that cannot ask: the error as before, nothing created.
	_, out = createDeal(map[string]any{}, nil)
	if body := toolErrorBody(t, out); body["error"] != "validation_error" || deals() != 1 {
		t.Fatalf("without elicitation: %v", body)
	}
}
