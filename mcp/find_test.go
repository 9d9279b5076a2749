package mcp_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestFindingWithTheTypeScriptSDK: the official SDK, with an agent key, finds records in
// one call each (docs/mcp.md, "Tools"): search across resources, list_ with q, where, sort,
// fields and a batch read by id; every result validated against the tool's output schema. A
// private task of the admin's never appears to the agent, in search or in list_tasks with
// q.
func TestFindingWithTheTypeScriptSDK(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key, admin := f.Agent.Key, e.token(f.Admin)
	pipeline := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	var deals []string
	for _, d := range []string{`"name":"Acme Corp","value":500`, `"name":"Globex","value":100`, `"name":"Crème Brûlée","value":300`} {
		deals = append(deals, e.mustCreate(t, key, "deals", `{`+d+`,"pipeline_id":"`+pipeline+`"}`)["id"].(string))
	}
	space := e.mustCreate(t, admin, "spaces", `{"name":"Client"}`)["id"].(string)
	e.mustCreate(t, admin, "tasks", `{"name":"Acme secret","space_id":"`+space+`","is_private":true}`)
	e.mustCreate(t, admin, "tasks", `{"name":"Acme kickoff","space_id":"`+space+`"}`)

	calls := []sdkCall{
		{Name: "search", Arguments: map[string]any{"q": "acme"}},
		{Name: "search", Arguments: map[string]any{"q": "creme", "types": []string{"deals"}}},
		{Name: "list_deals", Arguments: map[string]any{"q": "acm"}},
		{Name: "list_deals", Arguments: map[string]any{"where": []any{map[string]any{"field": "value", "op": "gte", "value": "300"}},
			"sort": "-value"}},
		{Name: "list_deals", Arguments: map[string]any{"fields": "name", "sort": "name"}},
		{Name: "list_deals", Arguments: map[string]any{"where": []any{map[string]any{"field": "id", "op": "in", "value": deals[0] + "," + deals[2]}}}},
		{Name: "list_tasks", Arguments: map[string]any{"q": "acme"}},
		{Name: "list_deals", Arguments: map[string]any{"where": []any{map[string]any{"field": "name", "op": "lt", "value": "b"}}}},
		{Name: "find_tools", Arguments: map[string]any{"query": "find a deal by name"}},
	}
	out := runAgentKeySDK(t, e, key, calls)
	data := func(i int) []map[string]any {
		var recs []map[string]any
		raw, _ := json.Marshal(out.Results[i].StructuredContent["data"])
		_ = json.Unmarshal(raw, &recs)
		return recs
	}
	field := func(recs []map[string]any, k string) []string {
		var s []string
		for _, r := range recs {
			s = append(s, r[k].(string))
		}
		return s
	}
	for i, r := range out.Results[:7] {
		if r.IsError || r.StructuredContent == nil {
			t.Fatalf("%s %v: error %v, text %s", calls[i].Name, calls[i].Arguments, r.IsError, r.Text)
		}
	}
	hits := data(0)
	if got := field(hits, "title"); !slices.Equal(got, []string{"Acme Corp", "Acme kickoff"}) && !slices.Equal(got, []string{"Acme kickoff", "Acme Corp"}) {
		t.Errorf("search acme: %v", hits)
	}
	if got := field(data(1), "title"); !slices.Equal(got, []string{"Crème Brûlée"}) {
		t.Errorf("search creme in deals: %v", got)
	}
	if got := field(data(2), "name"); !slices.Equal(got, []string{"Acme Corp"}) {
		t.Errorf("list_deals q=acm: %v", got)
	}
	if got := field(data(3), "name"); !slices.Equal(got, []string{"Acme Corp", "Crème Brûlée"}) {
		t.Errorf("list_deals value >= 300, -value: %v", got)
	}
	if recs := data(4); len(recs) != 3 || len(recs[0]) != 2 || recs[0]["name"] != "Acme Corp" {
		t.Errorf("list_deals fields=name sorted: %v", recs)
	}
	if got := field(data(5), "id"); len(got) != 2 || !slices.Contains(got, deals[0]) || !slices.Contains(got, deals[2]) {
		t.Errorf("list_deals where id in: %v", got)
	}
	if got := field(data(6), "name"); !slices.Equal(got, []string{"Acme kickoff"}) {
		t.Errorf("list_tasks q=acme as the agent: %v", got)
	}
	// The default summary: a deal's main fields (status included), not its notes or links.
	if d := data(2)[0]; d["value"] == nil || d["status"] != "open" || d["pipeline_id"] != nil || d["owner_id"] != nil || len(d) != 6 {
		t.Errorf("list_deals summary: %v", d)
	}
	if r := out.Results[7]; !r.IsError || !strings.Contains(r.Text, "name[lt]") || !strings.Contains(r.Text, "prefix") {
		t.Errorf("where name lt: %v %s", r.IsError, r.Text)
	}
	var found struct{ Tools []struct{ Name string } }
	raw, _ := json.Marshal(out.Results[8].StructuredContent)
	_ = json.Unmarshal(raw, &found)
	var names []string
	for _, tl := range found.Tools {
		names = append(names, tl.Name)
	}
	if len(names) < 2 || !slices.Contains(names[:2], "search") || !slices.Contains(names[:2], "list_deals") {
		t.Errorf("find_tools \"find a deal by name\": %v, want search and list_deals first", names)
	}
}

// TestEmptyListArguments: a list tool's argument given as an empty string or array gets
// the answer REST gives the empty query parameter (docs/rest.md): a bad_request naming it,
// except cursor, which asks for the first page.
func TestEmptyListArguments(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key := f.Agent.Key
	pipeline := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	e.mustCreate(t, key, "deals", `{"name":"Acme","pipeline_id":"`+pipeline+`"}`)
	c := e.client(t, key, "")
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"q": ""}, []string{"q", "letter or digit"}},
		{map[string]any{"sort": ""}, []string{"sort", "name, value"}},
		{map[string]any{"fields": ""}, []string{"fields", "its fields are"}},
		{map[string]any{"fields": []string{}}, []string{"fields", "its fields are"}},
		{map[string]any{"ids": []string{}}, []string{"ids", "uuid"}},
		{map[string]any{"pipeline_id": ""}, []string{"pipeline_id", "empty"}},
		{map[string]any{"where": []any{map[string]any{"field": "name", "op": "prefix", "value": ""}}}, []string{"name[prefix]", "empty"}},
		{map[string]any{"where": []any{map[string]any{"field": "value", "op": "in", "value": []string{}}}}, []string{"value[in]", "empty"}},
		{map[string]any{"where": []any{map[string]any{"field": "id", "op": "in", "value": []string{}}}}, []string{"ids", "uuid"}},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			body := wantToolError(t, call(t, c, "list_deals", tc.args), "bad_request")
			for _, w := range tc.want {
				if msg := body["message"].(string); !strings.Contains(msg, w) {
					t.Errorf("message %q does not mention %q", msg, w)
				}
			}
		})
	}
	if data := wantOK(t, call(t, c, "list_deals", map[string]any{"cursor": ""}))["data"].([]any); len(data) != 1 {
		t.Errorf("list_deals cursor \"\": %v, want the first page", data)
	}
}

// TestUnknownListArgument: an argument a list tool does not take is a bad_request naming
// it and the arguments the tool lists, in the tool's words rather than REST's query
// parameters; an exact filter, accepted though not listed, still filters.
func TestUnknownListArgument(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key := f.Agent.Key
	pipeline := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	e.mustCreate(t, key, "deals", `{"name":"Acme","pipeline_id":"`+pipeline+`"}`)
	c := e.client(t, key, "")
	msg := wantToolError(t, call(t, c, "list_deals", map[string]any{"colour": "red"}), "bad_request")["message"].(string)
	for _, w := range []string{`"colour"`, "list_deals", "cursor, fields, limit, q, sort, where"} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not mention %q", msg, w)
		}
	}
	if strings.Contains(msg, "query parameter") || strings.Contains(msg, "[op]") {
		t.Errorf("message %q speaks of REST's query parameters", msg)
	}
	if data := wantOK(t, call(t, c, "list_deals", map[string]any{"pipeline_id": pipeline}))["data"].([]any); len(data) != 1 {
		t.Errorf("list_deals pipeline_id: %v, want the one deal", data)
	}
}

// TestSearchArgumentsOfTheWrongType: search's arguments of the wrong JSON type are a
// bad_request naming the argument and what it takes, as a list tool's are, never Go's
// decoding error.
func TestSearchArgumentsOfTheWrongType(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.client(t, f.Agent.Key, "")
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"q": "acme", "types": "deals"}, []string{`types must be an array of resource names`, `got "deals"`}},
		{map[string]any{"q": "acme", "types": []any{"deals", 7}}, []string{`types must be an array of resource names`}},
		{map[string]any{"q": "acme", "limit": "ten"}, []string{`limit must be an integer`, `got "ten"`}},
		{map[string]any{"q": 7}, []string{`q must be a string`, `got 7`}},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			msg := wantToolError(t, call(t, c, "search", tc.args), "bad_request")["message"].(string)
			for _, w := range append(tc.want, "") {
				if !strings.Contains(msg, w) || strings.Contains(msg, "Go ") || strings.Contains(msg, "unmarshal") {
					t.Fatalf("message %q does not mention %q, or speaks Go", msg, w)
				}
			}
		})
	}
}
