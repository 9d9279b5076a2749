package mcp_test

import (
	"strings"
	"testing"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestMergeTools: merge_companies runs the merge REST runs (the kept record answered, the
// duplicate marked), through its own toolset and through call_tool from the default view;
// a second merge of the same duplicate and a member without the grant are tool errors.
func TestMergeTools(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := crmAdmin(t, e, f.WorkspaceID)
	kept := e.mustCreate(t, admin, "companies", `{"name": "Acme"}`)["id"].(string)
	dup := e.mustCreate(t, admin, "companies", `{"name": "ACME Inc", "industry": "Widgets"}`)["id"].(string)
	other := e.mustCreate(t, admin, "companies", `{"name": "Other"}`)["id"].(string)

	a := e.callOn(t, "/mcp/x/merge", admin, "merge_companies", `{"id":"`+kept+`","from":"`+dup+`"}`)
	if a.Result.IsError || !strings.Contains(string(a.Result.StructuredContent), `"industry":"Widgets"`) {
		t.Fatalf("merge_companies: %+v", a.Result)
	}
	if status, got := e.rest(t, "GET", "/companies/"+dup, admin, ""); status != 200 || got["data"].(map[string]any)["merged_into_id"] != kept {
		t.Fatalf("the duplicate after merge_companies: %d %v", status, got)
	}
	again := e.callOn(t, mcp.Path, admin, "call_tool", `{"name":"merge_companies","arguments":{"id":"`+other+`","from":"`+dup+`"}}`)
	if !again.Result.IsError || !strings.Contains(again.Result.Content[0].Text, "bad_request") {
		t.Fatalf("merging a merged record through call_tool: %+v", again.Result)
	}
	member := e.callOn(t, "/mcp/x/merge", e.token(f.Member), "merge_companies", `{"id":"`+other+`","from":"`+kept+`"}`)
	if !member.Result.IsError || !strings.Contains(member.Result.Content[0].Text, "insufficient_permission") {
		t.Fatalf("a member without the grant: %+v", member.Result)
	}
}
