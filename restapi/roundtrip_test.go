package restapi_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestExportImportRoundTrip: a CSV export re-imported as an upsert on id, its columns
// mapped to the fields of the same name, changes nothing: the same rows with the same
// values and updated_at, and no activity row or webhook event for the updates that
// changed nothing. The values are the awkward ones: phone numbers and text a spreadsheet
// would run as a formula (exported with a leading '), a leading quote of its own, commas
// and line breaks, numbers, dates and a multi-select custom field (a JSON list).
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	withImports(t, e)
	tm := newTeam(t, e)
	a, admin := e.as(t, tm.a), e.as(t, tm.admin)
	create(t, admin, "/custom_fields", map[string]any{"resource": "deals", "key": "tags", "label": "Tags", "type": "multi_select",
		"options": []map[string]any{{"key": "a", "label": "A"}, {"key": "b", "label": "B"}}})
	create(t, admin, "/custom_fields", map[string]any{"resource": "deals", "key": "close", "label": "Close", "type": "date"})
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "score", "label": "Score", "type": "number"})
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "tier", "label": "Tier", "type": "text"})
	create(t, admin, "/webhook_endpoints", map[string]any{"url": "https://93.184.216.34/hooks"})
	company := create(t, a, "/companies", map[string]any{"name": "Acme"})["id"].(string)
	pipeline := create(t, a, "/pipelines", map[string]any{"name": "Sales"})["id"].(string)
	stage := create(t, a, "/pipeline_stages", map[string]any{"pipeline_id": pipeline, "name": "Won", "outcome": "won"})["id"].(string)

	for i, p := range []map[string]any{
		{"name": "Ada Lovelace", "email": "ada@acme.example", "phone": "+44 20 7946 0000", "company_id": company,
			"custom_fields": map[string]any{"score": 12.5, "tier": "=gold"}},
		{"name": "'quoted", "position": "'=not a formula", "phone": "-1", "custom_fields": map[string]any{"score": -3}},
		{"name": "Line\nbreak, and comma", "company": "@Globex", "custom_fields": map[string]any{"tier": "\"gold\""}},
		{"name": "Plain"},
	} {
		if create(t, a, "/people", p)["id"] == nil {
			t.Fatalf("person %d not created", i)
		}
	}
	for _, d := range []map[string]any{
		{"name": "Website", "pipeline_id": pipeline, "pipeline_stage_id": stage, "owner_id": tm.a.UserID, "value": 12000, "confidence": 0.5, "company_id": company, "notes": "-10% if signed in May",
			"custom_fields": map[string]any{"tags": []string{"a", "b"}, "close": "2026-12-01"}},
		{"name": "Renewal", "pipeline_id": pipeline, "value": 8000.75, "website": "https://acme.example/x?a=1,2", "custom_fields": map[string]any{"tags": []string{"b"}}},
		{"name": "=1+1", "pipeline_id": pipeline},
	} {
		create(t, a, "/deals", d)
	}

	for _, res := range []string{"people", "deals"} {
		snapshot := func() string {
			var out string
			err := storetest.Pool(t).QueryRow(context.Background(),
				`SELECT coalesce(json_agg(to_jsonb(t) - 'search_doc' ORDER BY t.id), '[]')::text FROM `+res+` t WHERE workspace_id = $1`, tm.ws).Scan(&out)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		before := snapshot()
		activity := e.count(t, `SELECT count(*) FROM activity WHERE workspace_id = $1`, tm.ws)
		events := e.count(t, `SELECT count(*) FROM webhook_outbox WHERE workspace_id = $1`, tm.ws)

		file := string(must(t, a.get("/"+res+"/export?format=csv"), http.StatusOK).Raw)
		rows, err := csv.NewReader(strings.NewReader(file)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		mapping := map[string]string{}
		r := workspace.Lookup(res)
		for _, h := range rows[0] {
			if f := r.Field(h); h == "id" || strings.HasPrefix(h, "custom_fields.") || f != nil && f.Writable {
				mapping[h] = h
			}
		}
		if !slices.Contains(rows[0], "custom_fields.score") && !slices.Contains(rows[0], "custom_fields.tags") {
			t.Fatalf("%s export has no custom field column: %v", res, rows[0])
		}
		raw, _ := json.Marshal(mapping)
		id := must(t, a.postImport(file, map[string]string{"resource": res, "operation": "upsert", "match": "id",
			"mapping": string(raw)}), http.StatusAccepted).data()["id"].(string)
		imp := waitImport(t, a, id)
		if imp["status"] != "completed" {
			t.Fatalf("%s import %v", res, imp)
		}
		wantCounts(t, imp, len(rows)-1, 0, len(rows)-1, 0)
		if after := snapshot(); after != before {
			t.Errorf("%s changed by the round trip:\nbefore %s\nafter  %s", res, before, after)
		}
		if n := e.count(t, `SELECT count(*) FROM activity WHERE workspace_id = $1`, tm.ws); n != activity {
			t.Errorf("%s round trip wrote %d activity rows", res, n-activity)
		}
		if n := e.count(t, `SELECT count(*) FROM webhook_outbox WHERE workspace_id = $1`, tm.ws); n != events {
			t.Errorf("%s round trip queued %d webhook events", res, n-events)
		}
	}
}
