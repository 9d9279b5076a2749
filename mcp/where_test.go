package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestWhereInTakesValuesAsSent: an array given to where in reaches the list as its items,
// never joined into text and split again, so a value with a comma in it is found by in as
// by eq; a comma-separated string still lists several values, as REST's query does.
func TestWhereInTakesValuesAsSent(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key := f.Agent.Key
	pipeline := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	for _, name := range []string{"Acme, Inc", "Other", "Acme"} {
		e.mustCreate(t, key, "deals", `{"name":"`+name+`","pipeline_id":"`+pipeline+`"}`)
	}
	c := e.client(t, key, "")
	names := func(where ...map[string]any) []string {
		t.Helper()
		res := call(t, c, "list_deals", map[string]any{"where": where, "fields": "name"})
		if res.IsError {
			t.Fatalf("list_deals where %v: %s", where, resultText(t, res))
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var page struct{ Data []struct{ Name string } }
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatalf("structured content %s: %v", raw, err)
		}
		var out []string
		for _, d := range page.Data {
			out = append(out, d.Name)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		value any
		want  []string
	}{
		{[]string{"Acme, Inc", "Other"}, []string{"Acme, Inc", "Other"}},
		{[]string{"Acme, Inc"}, []string{"Acme, Inc"}},
		{"Acme,Other", []string{"Acme", "Other"}},
	} {
		if got := names(map[string]any{"field": "name", "op": "in", "value": tc.value}); !slices.Equal(got, tc.want) {
			t.Errorf("name in %q: %q, want %q", tc.value, got, tc.want)
		}
	}
	if got := names(map[string]any{"field": "name", "op": "eq", "value": "Acme, Inc"}); !slices.Equal(got, []string{"Acme, Inc"}) {
		t.Errorf("name eq \"Acme, Inc\": %q", got)
	}
}

// TestWhereIsBounded: a list takes at most workspace.MaxWhere operator filters (each in up
// to 100 values); more is a 400 over REST and a bad_request tool error over MCP naming the
// limit, never the database's parameter limit surfacing as internal_error.
func TestWhereIsBounded(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key := f.Agent.Key
	c := e.client(t, key, "")
	values := make([]string, 100)
	for i := range values {
		values[i] = fmt.Sprint(i)
	}
	var where []map[string]any
	for range 700 {
		where = append(where, map[string]any{"field": "value", "op": "in", "value": values})
	}
	body := wantToolError(t, call(t, c, "list_deals", map[string]any{"where": where}), "bad_request")
	if msg := body["message"].(string); !strings.Contains(msg, "at most 20") || !strings.Contains(msg, "700") {
		t.Errorf("700 conditions: %s", msg)
	}
	wantOK := func(n int) {
		t.Helper()
		res := call(t, c, "list_deals", map[string]any{"where": where[:n]})
		if res.IsError {
			t.Fatalf("%d conditions: %s", n, resultText(t, res))
		}
	}
	wantOK(20)

	// REST: 21 distinct field[op] parameters.
	q := url.Values{}
	for _, fo := range []string{"value", "created_at", "updated_at"} {
		for _, op := range []string{"eq", "ne", "lt", "lte", "gt", "gte", "null"} {
			v := "2026-01-01T00:00:00Z"
			if fo == "value" {
				v = "1"
			}
			if op == "null" {
				v = "false"
			}
			q.Set(fo+"["+op+"]", v)
		}
	}
	status, out := e.rest(t, "GET", "/deals?"+q.Encode(), key, "")
	if msg, _ := out["message"].(string); status != http.StatusBadRequest || out["error"] != "bad_request" || !strings.Contains(msg, "at most 20") {
		t.Errorf("REST with 21 operator filters: %d %v", status, out)
	}
	q.Del("value[null]")
	if status, out := e.rest(t, "GET", "/deals?"+q.Encode(), key, ""); status != http.StatusOK {
		t.Errorf("REST with 20 operator filters: %d %v", status, out)
	}
}

// TestWhereSchemaNamesOperators: a list tool's where items declare op, an enum of the
// operators, and value, so a model need not guess them.
func TestWhereSchemaNamesOperators(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.client(t, f.Agent.Key, "")
	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != "list_deals" {
			continue
		}
		var schema struct {
			InputSchema struct {
				Properties struct {
					Where struct {
						Items struct {
							Properties map[string]struct {
								Enum  []string
								AnyOf []map[string]any
							}
						}
					}
				}
			}
		}
		raw, _ := json.Marshal(tl)
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		props := schema.InputSchema.Properties.Where.Items.Properties
		if got := props["op"].Enum; !slices.Equal(got, []string{"eq", "ne", "lt", "lte", "gt", "gte", "in", "prefix", "contains", "null"}) {
			t.Errorf("where op enum: %v (%s)", got, raw)
		}
		if _, ok := props["value"]; !ok {
			t.Errorf("where items do not declare value: %s", raw)
		}
		return
	}
	t.Fatal("list_deals not listed")
}
