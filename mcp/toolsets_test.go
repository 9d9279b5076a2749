package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// listTools posts tools/list to path with bearer and extra headers and returns the tool
// names and the size of the compact JSON answer.
func (e *env) listTools(t testing.TB, path, bearer string, headers ...string) ([]string, int) {
	t.Helper()
	h := append(mcpHeaders(bearer), "MCP-Protocol-Version", mcpgo.ProtocolVersion20250618)
	status, _, body := e.post(t, "POST", path, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, append(h, headers...)...)
	if status != http.StatusOK {
		t.Fatalf("tools/list on %s %v: %d %s", path, headers, status, body)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		t.Fatalf("tools/list answer is not JSON: %s", body)
	}
	var res struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Result.Tools {
		names = append(names, tl.Name)
	}
	return names, compact.Len()
}

// defaultListBudget is what the default tools/list may weigh in bytes of compact JSON,
// with or without the record views' links (TestViewsLinkedOnlyForAppHosts): every byte
// of it is paid on every turn.
const defaultListBudget = 24000

// TestToolsetCounts measures what each selection lists and how large its tools/list is.
// The measurements are the table of docs/mcp.md, a snapshot this test compares row by row
// and rewrites with go test ./mcp/ -run TestToolsetCounts -update, so a new resource's tools
// show there with no edit here. What is checked beside it: the default stays within the
// budget of docs/mcp.md (24 KB, and 32 tools), no selection averages more than
// maxToolBytes a tool, every selection lists me, search, find_tools and call_tool, and a
// selection of several toolsets, or of a toolset by another name, lists the union of theirs.
func TestToolsetCounts(t *testing.T) {
	const (
		maxDefaultTools = 32
		maxToolBytes    = 1200
	)
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := *f.Admin
	admin.Scopes = workspace.Scopes()
	adminTok := e.token(&admin)
	const (
		defaultRow = "default (`/mcp`), full-scope agent key"
		allRow     = "`all`"
	)
	type selection struct {
		path   string
		bearer string
		header string   // X-MCP-Toolsets
		row    string   // its row of the table in docs/mcp.md, if any
		union  []string // else the rows whose tools it lists, together
	}
	cases := []selection{
		{path: "/mcp", bearer: f.Agent.Key, row: defaultRow},
		{path: "/mcp/x/all", bearer: adminTok, row: allRow},
		{path: "/mcp/readonly", bearer: adminTok, row: "default, readonly (`/mcp/readonly`)"},
		{path: "/mcp/x/all/readonly", bearer: adminTok, row: "`all`, readonly"},
		{path: "/mcp/x/all", bearer: e.token(f.Member), row: "`all`, member without feature grants (all scopes)"},
		{path: "/mcp", bearer: e.token(f.Member), row: "default, member without feature grants"},
	}
	notes := map[string]string{"webhooks": " (admins only)"} // what a toolset's row says beside its name
	for _, ts := range mcp.Toolsets() {
		cases = append(cases, selection{path: "/mcp/x/" + ts, bearer: adminTok, row: "`" + ts + "`" + notes[ts]})
	}
	cases = append(cases,
		selection{path: "/mcp/x/default", bearer: adminTok, union: []string{defaultRow}},
		selection{path: "/mcp", bearer: adminTok, header: "default", union: []string{defaultRow}},
		selection{path: "/mcp", bearer: adminTok, header: "all", union: []string{allRow}},
		selection{path: "/mcp", bearer: adminTok, header: "default,hr", union: []string{defaultRow, "`hr`"}},
		selection{path: "/mcp/x/hr", bearer: adminTok, header: "deals", union: []string{"`hr`", "`deals`"}},
	)
	measured := map[string]string{} // the table's rows as measured
	listed := map[string][]string{} // each row's tool names
	for _, c := range cases {
		t.Run(c.path+" "+c.header, func(t *testing.T) {
			var h []string
			if c.header != "" {
				h = []string{mcp.HeaderToolsets, c.header}
			}
			names, size := e.listTools(t, c.path, c.bearer, h...)
			t.Logf("%d tools, %d bytes", len(names), size)
			if c.row != "" {
				measured[c.row] = fmt.Sprintf("| %s | %d | %s |", c.row, len(names), thousands(size))
				listed[c.row] = names
			}
			if size > maxToolBytes*len(names) {
				t.Errorf("%d tools in %d bytes, more than %d bytes a tool", len(names), size, maxToolBytes)
			}
			if c.row == defaultRow && (len(names) > maxDefaultTools || size > defaultListBudget) {
				t.Errorf("the default lists %d tools in %d bytes, over its budget of %d tools and %d bytes", len(names), size, maxDefaultTools, defaultListBudget)
			}
			for _, always := range []string{"me", "search", "find_tools", "call_tool"} {
				if !slices.Contains(names, always) {
					t.Errorf("%s missing from %v", always, names)
				}
			}
			if c.union != nil {
				var want []string
				for _, row := range c.union {
					if listed[row] == nil {
						t.Fatalf("row %s not measured", row)
					}
					want = append(want, listed[row]...)
				}
				slices.Sort(want)
				want = slices.Compact(want)
				got := slices.Sorted(slices.Values(names))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("tools (-the union of %v +listed):\n%s", c.union, diff)
				}
			}
		})
	}
	checkDocTable(t, filepath.Join("..", "docs", "mcp.md"), measured)
}

// TestToolsetNames: the toolsets are the catalogue's scope families, with the two file
// listings grouped as files, import (import_records) and merge (merge_people,
// merge_companies).
func TestToolsetNames(t *testing.T) {
	want := []string{"deals", "files", "people", "companies", "pipelines", "tasks", "spaces", "labels", "comments",
		"activity", "metrics", "finance", "hr", "docs", "automations", "webhooks", "competitors", "agents", "directory",
		"credits", "enrich", "import", "merge"}
	if diff := cmp.Diff(want, mcp.Toolsets()); diff != "" {
		t.Fatalf("toolsets (-want +got):\n%s", diff)
	}
}

// TestDefaultAndFilteredNames pins the default list of a full-scope agent key and what a
// member without feature grants sees: no CRM tools, no admin-only writes.
func TestDefaultAndFilteredNames(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	got, _ := e.listTools(t, "/mcp", f.Agent.Key)
	slices.Sort(got)
	want := []string{"call_tool", "create_companies", "create_deal_labels", "create_deal_people", "create_deal_tasks",
		"create_deals", "create_people", "create_tasks", "detach_deal_labels", "detach_deal_people", "find_tools",
		"get_companies", "get_deal_tasks", "get_deals", "get_people", "get_tasks", "list_companies", "list_deal_labels",
		"list_deal_people", "list_deal_tasks", "list_deals", "list_people", "list_tasks", "me", "search", "update_companies",
		"update_deal_tasks", "update_deals", "update_people", "update_tasks"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("default tools/list (-want +got):\n%s", diff)
	}
	member, _ := e.listTools(t, "/mcp/x/all", e.token(f.Member))
	for _, hidden := range []string{"list_deals", "list_team_members", "list_income", "create_automations", "update_workspace"} {
		if slices.Contains(member, hidden) {
			t.Errorf("a member without grants, not admin, sees %s", hidden)
		}
	}
	for _, shown := range []string{"list_automations", "get_workspace", "update_users", "create_tasks", "list_spaces"} {
		if !slices.Contains(member, shown) {
			t.Errorf("a member should see %s", shown)
		}
	}
}

// TestSelectionErrors: an unknown toolset is a 400 JSON-RPC error naming the valid ones,
// never fewer tools; a path that names no view is 404. Each answers the request's id.
func TestSelectionErrors(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	list := `{"jsonrpc":"2.0","id":"sel-7","method":"tools/list"}`
	cases := []struct {
		path       string
		headers    []string
		wantStatus int
		wantText   string
	}{
		{"/mcp/x/nope", nil, http.StatusBadRequest, `unknown toolset \"nope\"; valid toolsets are all, default, deals, files`},
		{"/mcp", []string{mcp.HeaderToolsets, "deals,nope"}, http.StatusBadRequest, "valid toolsets are"},
		{"/mcp", []string{mcp.HeaderReadonly, "yes"}, http.StatusBadRequest, "must be true or false"},
		{"/mcp/x/deals/extra", nil, http.StatusNotFound, "no MCP endpoint"},
		{"/mcp/other", nil, http.StatusNotFound, "no MCP endpoint"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			status, _, body := e.post(t, "POST", c.path, list, append(mcpHeaders(f.Agent.Key), c.headers...)...)
			var rpc struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if status != c.wantStatus || json.Unmarshal(body, &rpc) != nil || rpc.JSONRPC != "2.0" || rpc.Error.Code == 0 ||
				!strings.Contains(string(body), c.wantText) {
				t.Fatalf("%d %s, want %d with a JSON-RPC error containing %s", status, body, c.wantStatus, c.wantText)
			}
			if string(rpc.ID) != `"sel-7"` {
				t.Fatalf("error answers id %s, want the request's \"sel-7\": %s", rpc.ID, body)
			}
		})
	}
}

// TestReadonly: the readonly views list only list_ and get_ tools (and me, search,
// find_tools, call_tool), and refuse writes whether called directly or through call_tool.
func TestReadonly(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	for _, sel := range []struct{ path, header string }{{"/mcp/readonly", ""}, {"/mcp/x/labels/readonly", ""}, {"/mcp", "true"}} {
		var h []string
		if sel.header != "" {
			h = []string{mcp.HeaderReadonly, sel.header}
		}
		names, _ := e.listTools(t, sel.path, f.Agent.Key, h...)
		for _, n := range names {
			if !(strings.HasPrefix(n, "list_") || strings.HasPrefix(n, "get_") || n == "me" || n == "search" || n == "find_tools" || n == "call_tool") {
				t.Errorf("%s %s lists %s", sel.path, sel.header, n)
			}
		}
	}
}

// checkDocTable checks that the table rows of doc whose first cell is a key of rows read as
// rows says, and that each is there; with -update it rewrites them.
func checkDocTable(t *testing.T, doc string, rows map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	seen := map[string]bool{}
	for i, line := range lines {
		cells := strings.Split(line, " | ")
		want, ok := rows[strings.TrimPrefix(cells[0], "| ")]
		if !strings.HasPrefix(line, "| ") || !ok {
			continue
		}
		seen[want] = true
		if *update {
			lines[i] = want
		} else if line != want {
			t.Errorf("%s: %q, measured %q (go test ./mcp/ -run %s -update)", doc, line, want, t.Name())
		}
	}
	for _, want := range rows {
		if !seen[want] {
			t.Errorf("%s has no row %q", doc, want)
		}
	}
	if *update {
		if err := os.WriteFile(doc, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// thousands writes n with commas between groups of three digits, as the docs do.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
