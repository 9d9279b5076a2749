package workspace_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestBatchIDsOnly: a batch asked for ids only (what an import's chunk asks) gives each
// item the status and id a full batch gives, the error of a refused one, and no record;
// the ids are those of the rows the database holds, for creates and for upserts' updates.
func TestBatchIDsOnly(t *testing.T) {
	s := storetest.New(t)
	ops := workspace.NewOps(workspace.Config{Store: s})
	fx := storetest.Workspace(t, s, workspace.Scopes())
	ctx := context.Background()
	people := workspace.Lookup("people")
	rec := func(fields string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(fields), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	idOf := func(email string) string {
		var id string
		if err := storetest.Pool(t).QueryRow(ctx, `SELECT id::text FROM people WHERE workspace_id = $1 AND email = $2`, fx.WorkspaceID, email).Scan(&id); err != nil {
			t.Fatalf("%s: %v", email, err)
		}
		return id
	}
	run := func(op, match string, recs ...map[string]json.RawMessage) []workspace.BatchItem {
		t.Helper()
		req := &workspace.BatchRequest{Operation: op, Match: match, Records: recs, IDsOnly: true}
		posted, err := ops.Batch(ctx, fx.Admin, people, req, "", httpx.Status)
		if err != nil {
			t.Fatal(err)
		}
		var items []workspace.BatchItem
		if err := json.Unmarshal(posted.Data, &items); err != nil {
			t.Fatal(err)
		}
		return items
	}

	items := run(workspace.BatchCreate, "", rec(`{"name": "Ada", "email": "ada@ids.example"}`),
		rec(`{"email": "nameless@ids.example"}`), rec(`{"name": "Bo", "email": "bo@ids.example"}`))
	if len(items) != 3 {
		t.Fatalf("%d items, want 3", len(items))
	}
	for i, want := range []struct {
		status int
		email  string
	}{{201, "ada@ids.example"}, {422, ""}, {201, "bo@ids.example"}} {
		it := items[i]
		if it.Index != i || it.Status != want.status || it.Record != nil {
			t.Errorf("item %d: index %d, status %d, record %s; want index %d, status %d, no record", i, it.Index, it.Status, it.Record, i, want.status)
		}
		if want.email == "" {
			if it.ID != nil || it.Error == nil {
				t.Errorf("item %d: id %v, error %v; want no id and an error", i, it.ID, it.Error)
			}
			continue
		}
		if it.ID == nil || *it.ID != idOf(want.email) {
			t.Errorf("item %d: id %v, want %s's %s", i, it.ID, want.email, idOf(want.email))
		}
	}

	items = run(workspace.BatchUpsert, "email", rec(`{"name": "Ada Lovelace", "email": "ada@ids.example"}`),
		rec(`{"name": "Cy", "email": "cy@ids.example"}`))
	if len(items) != 2 || items[0].Status != 200 || items[1].Status != 201 || items[0].Record != nil || items[1].Record != nil {
		t.Fatalf("upsert items %+v, want 200 and 201 without records", items)
	}
	if *items[0].ID != idOf("ada@ids.example") || *items[1].ID != idOf("cy@ids.example") {
		t.Errorf("upsert ids %s, %s; want %s, %s", *items[0].ID, *items[1].ID, idOf("ada@ids.example"), idOf("cy@ids.example"))
	}
	var name string
	if err := storetest.Pool(t).QueryRow(ctx, `SELECT name FROM people WHERE id = $1`, *items[0].ID).Scan(&name); err != nil || name != "Ada Lovelace" {
		t.Errorf("the updated person's name is %q (%v), want Ada Lovelace", name, err)
	}
}
