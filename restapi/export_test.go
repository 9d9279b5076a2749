package restapi_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestExport: an export is the list's records in CSV or NDJSON, with its filters, q, sort
// and fields, custom fields as columns, formulas neutralised, and the list's gates and RLS.
func TestExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a, b, admin := e.as(t, tm.a), e.as(t, tm.b), e.as(t, tm.admin)
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "tier", "label": "Tier", "type": "text"})
	for _, name := range []string{"=HYPERLINK(\"http://evil.example\")", "+1", "-2", "@SUM(A1)", "\tTab", "\rCR", "Plain, with comma"} {
		create(t, a, "/people", map[string]any{"name": name, "email": "x@acme.example", "custom_fields": map[string]any{"tier": "gold"}})
	}
	// 252 more, so the export walks more than one page of the list.
	recs := make([]any, 84)
	for i := range recs {
		recs[i] = map[string]any{"name": "Bulk person"}
	}
	for range 3 {
		must(t, a.batch("people", map[string]any{"operation": "create", "records": recs}), http.StatusOK)
	}

	r := must(t, a.get("/people/export?format=csv&sort=name"), http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("content type %q", ct)
	}
	rows, err := csv.NewReader(strings.NewReader(string(r.Raw))).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, clipBody(r.Raw))
	}
	header := rows[0]
	if header[0] != "id" || !contains(header, "custom_fields.tier") || contains(header, "custom_fields") {
		t.Fatalf("header %v", header)
	}
	if len(rows) != 1+7+252 {
		t.Fatalf("%d rows, want %d", len(rows)-1, 7+252)
	}
	name, tier := index(header, "name"), index(header, "custom_fields.tier")
	got := map[string]bool{}
	for _, row := range rows[1:] {
		got[row[name]] = true
		if row[name] != "Bulk person" && row[tier] != "gold" {
			t.Fatalf("custom field not exported: %v", row)
		}
	}
	for _, want := range []string{"'=HYPERLINK(\"http://evil.example\")", "'+1", "'-2", "'@SUM(A1)", "'\tTab", "'\rCR", "Plain, with comma"} {
		if !got[want] {
			t.Errorf("cell %q not exported as such; got %v", want, got)
		}
	}

	// NDJSON, with q and fields.
	r = must(t, a.get("/people/export?format=ndjson&q=acme&fields=name"), http.StatusOK)
	lines := strings.Split(strings.TrimSpace(string(r.Raw)), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d ndjson lines for q=acme, want 7", len(lines))
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec["id"] == nil || rec["name"] == nil || rec["email"] != nil {
		t.Fatalf("ndjson line %s (err %v)", lines[0], err)
	}

	// Private tasks are exported to whom the list shows them, never to another member.
	secret := create(t, a, "/tasks", map[string]any{"name": "Secret", "is_private": true})["id"].(string)
	create(t, a, "/tasks", map[string]any{"name": "Open"})
	if body := string(must(t, b.get("/tasks/export?format=ndjson"), http.StatusOK).Raw); strings.Contains(body, secret) || !strings.Contains(body, "Open") {
		t.Fatalf("member b's export: %s", body)
	}
	if body := string(must(t, b.get("/tasks/export?format=csv"), http.StatusOK).Raw); strings.Contains(body, secret) || strings.Contains(body, "Secret") {
		t.Fatalf("member b's CSV export shows the private task: %s", body)
	}
	if body := string(must(t, a.get("/tasks/export?format=csv"), http.StatusOK).Raw); !strings.Contains(body, secret) {
		t.Fatalf("the creator's export lacks the private task")
	}

	// Refusals: a bad format or filter, a member without the grant, another workspace.
	wantError(t, a.get("/people/export?format=xlsx"), http.StatusBadRequest, "bad_request")
	wantError(t, a.get("/people/export"), http.StatusBadRequest, "bad_request")
	wantError(t, a.get("/people/export?format=csv&nope=1"), http.StatusBadRequest, "bad_request")
	noCRM := e.as(t, member(t, e, tm.ws, map[string]string{}))
	wantError(t, noCRM.get("/people/export?format=csv"), http.StatusForbidden, "insufficient_permission")
	other := e.as(t, storetest.Workspace(t, e.store, workspace.Scopes()).Admin)
	if body := string(must(t, other.get("/people/export?format=ndjson"), http.StatusOK).Raw); strings.TrimSpace(body) != "" {
		t.Fatalf("another workspace exported: %s", body)
	}
}

func contains(ss []string, s string) bool { return index(ss, s) >= 0 }

func index(ss []string, s string) int {
	for i, v := range ss {
		if v == s {
			return i
		}
	}
	return -1
}
