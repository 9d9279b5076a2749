package mcp_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestImportRecords: import_records runs a batch write with the REST batch's checks,
// answers per record compactly, and is listed only in its own toolset, never read-only.
func TestImportRecords(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	if slices.Contains(toolNames(t, e.client(t, f.Agent.Key, "")), "import_records") {
		t.Fatal("import_records is in the default toolsets")
	}
	if slices.Contains(toolNames(t, e.client(t, f.Agent.Key, "", "X-MCP-Toolsets", "import", "X-MCP-Readonly", "true")), "import_records") {
		t.Fatal("import_records is listed on a read-only connection")
	}
	c := e.client(t, f.Agent.Key, "", "X-MCP-Toolsets", "default,import")
	if !slices.Contains(toolNames(t, c), "import_records") {
		t.Fatal("import_records is not listed with the import toolset")
	}
	out := wantOK(t, call(t, c, "import_records", map[string]any{"resource": "people", "operation": "upsert", "match": "email",
		"records": []any{map[string]any{"name": "Ada", "email": "ada@acme.example"}, map[string]any{"email": "x@acme.example"},
			map[string]any{"name": "Ada Again", "email": "ADA@acme.example"}}}))
	items := out["results"].([]any)
	if len(items) != 3 {
		t.Fatalf("results: %v", out)
	}
	first, bad, again := items[0].(map[string]any), items[1].(map[string]any), items[2].(map[string]any)
	if first["s"] != float64(201) || bad["s"] != float64(422) || bad["error"].(map[string]any)["code"] != "validation_error" ||
		again["s"] != float64(200) || again["id"] != first["id"] || first["record"] != nil {
		t.Fatalf("compact results: %v", items)
	}
	var n int
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT count(*) FROM people WHERE workspace_id = $1`, f.WorkspaceID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d people (err %v), want 1", n, err)
	}
	// An idempotency_key replays the first answer and writes nothing more.
	keyed := map[string]any{"resource": "people", "operation": "create", "idempotency_key": "import-1",
		"records": []any{map[string]any{"name": "Keyed"}}}
	once := wantOK(t, call(t, c, "import_records", keyed))
	twice := wantOK(t, call(t, c, "import_records", keyed))
	if once["results"].([]any)[0].(map[string]any)["id"] != twice["results"].([]any)[0].(map[string]any)["id"] {
		t.Fatalf("replay differs: %v vs %v", once, twice)
	}
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT count(*) FROM people WHERE workspace_id = $1`, f.WorkspaceID).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d people after a keyed replay (err %v), want 2", n, err)
	}
	// A member without the crm grant is refused the whole batch.
	m := storetest.AddUser(t, e.store, f.WorkspaceID, "member", map[string]string{}, workspace.Scopes())
	mc := e.client(t, e.token(m), "", "X-MCP-Toolsets", "import")
	wantToolError(t, call(t, mc, "import_records", map[string]any{"resource": "people", "operation": "create",
		"records": []any{map[string]any{"name": "X"}}}), "insufficient_permission")
	wantToolError(t, call(t, c, "import_records", map[string]any{"resource": "people", "operation": "create", "records": []any{}}), "bad_request")
	wantToolError(t, call(t, c, "import_records", map[string]any{"resource": "nope", "operation": "create",
		"records": []any{map[string]any{"name": "X"}}}), "unknown_resource")
}
