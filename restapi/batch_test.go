package restapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// batch posts a batch to /{resource}/batch.
func (c client) batch(resource string, body map[string]any) response {
	c.t.Helper()
	return c.post("/"+resource+"/batch", body)
}

// items returns a batch answer's per-record results.
func items(t testing.TB, r response) []map[string]any {
	t.Helper()
	must(t, r, http.StatusOK)
	return r.list()
}

// wantStatuses asserts each item's index and status, in order.
func wantStatuses(t testing.TB, got []map[string]any, want ...int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d: %v", len(got), len(want), got)
	}
	for i, it := range got {
		if int(it["index"].(float64)) != i || int(it["status"].(float64)) != want[i] {
			t.Fatalf("result %d: %v, want index %d status %d", i, it, i, want[i])
		}
		if want[i] < 300 && (it["id"] == nil || it["record"] == nil || it["error"] != nil) {
			t.Fatalf("result %d succeeded without id and record: %v", i, it)
		}
		if want[i] >= 400 && (it["id"] != nil || it["error"] == nil) {
			t.Fatalf("result %d failed without an error: %v", i, it)
		}
	}
}

// TestBatchWrites: create, update and upsert many records in one request, each record
// judged as its single write would be, with activity and webhook events for every row.
func TestBatchWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a, admin := e.as(t, tm.a), e.as(t, tm.admin)
	if _, err := storetest.Pool(t).Exec(t.Context(),
		`INSERT INTO webhook_endpoints (workspace_id, url) VALUES ($1, 'https://hooks.example/in')`, tm.ws); err != nil {
		t.Fatal(err)
	}
	events := func(id string) int {
		return e.count(t, `SELECT (SELECT count(*) FROM webhook_outbox WHERE object_id = $1) + (SELECT count(*) FROM webhook_events WHERE object_id = $1)`, id)
	}

	// Create: per-record errors do not stop the others.
	got := items(t, a.batch("people", map[string]any{"operation": "create", "records": []any{
		map[string]any{"name": "Ada", "email": "ada@acme.example"},
		map[string]any{"email": "nameless@acme.example"},
		map[string]any{"name": 5},
		map[string]any{"name": "Cy", "email": "cy@acme.example"},
	}}))
	wantStatuses(t, got, 201, 422, 422, 201)
	if f := got[1]["error"].(map[string]any); f["error"] != "validation_error" || !strings.Contains(fmt.Sprint(f["fields"]), "name") {
		t.Fatalf("missing name: %v", f)
	}
	ada, cy := got[0]["id"].(string), got[3]["id"].(string)
	if got[0]["record"].(map[string]any)["name"] != "Ada" {
		t.Fatalf("record not returned: %v", got[0])
	}
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws); n != 2 {
		t.Fatalf("%d people, want 2", n)
	}
	for _, id := range []string{ada, cy} {
		if n := e.count(t, `SELECT count(*) FROM activity WHERE entity_id = $1 AND action = 'created'`, id); n != 1 {
			t.Fatalf("%d created activity rows for %s, want 1", n, id)
		}
		if events(id) != 1 {
			t.Fatalf("%d webhook events for %s, want 1", events(id), id)
		}
	}

	// Update: by id in each record; an unknown id is 404, a missing one 422.
	got = items(t, a.batch("people", map[string]any{"operation": "update", "records": []any{
		map[string]any{"id": ada, "position": "CTO"},
		map[string]any{"id": "7c0a4c1e-59ad-4f3e-9b47-2f7f3e4c1d11", "position": "x"},
		map[string]any{"position": "no id"},
		map[string]any{"id": cy, "email": 5},
	}}))
	wantStatuses(t, got, 200, 404, 422, 422)
	if got[0]["id"] != ada || got[0]["record"].(map[string]any)["position"] != "CTO" {
		t.Fatalf("update: %v", got[0])
	}

	// Upsert on email: matched without case, created when new, and a key twice in one
	// batch is one record.
	got = items(t, a.batch("people", map[string]any{"operation": "upsert", "match": "email", "records": []any{
		map[string]any{"name": "Ada L.", "email": "ADA@acme.example"},
		map[string]any{"name": "Dee", "email": "dee@acme.example"},
		map[string]any{"name": "Dee Again", "email": "dee@acme.example"},
		map[string]any{"name": "No email"},
	}}))
	wantStatuses(t, got, 200, 201, 200, 422)
	if got[0]["id"] != ada || got[1]["id"] != got[2]["id"] {
		t.Fatalf("upsert matched the wrong records: %v", got)
	}
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1 AND lower(email) = 'dee@acme.example'`, tm.ws); n != 1 {
		t.Fatalf("%d people with dee's email, want 1", n)
	}

	// Upsert on a company's domain, the host of its website.
	acme := create(t, a, "/companies", map[string]any{"name": "Acme", "website": "https://www.Acme.example/about"})["id"]
	got = items(t, a.batch("companies", map[string]any{"operation": "upsert", "match": "domain", "records": []any{
		map[string]any{"name": "Acme Inc", "website": "acme.example"},
		map[string]any{"name": "Beta", "website": "http://beta.example:8080/"},
		map[string]any{"name": "Nowhere", "website": "https://"},
	}}))
	wantStatuses(t, got, 200, 201, 422)
	if got[0]["id"] != acme {
		t.Fatalf("domain upsert did not match Acme: %v", got[0])
	}

	// Upsert on a unique custom field.
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "ext", "label": "External id", "type": "text", "unique": true})
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "note", "label": "Note", "type": "text"})
	got = items(t, a.batch("people", map[string]any{"operation": "upsert", "match": "custom_fields.ext", "records": []any{
		map[string]any{"name": "Eve", "custom_fields": map[string]any{"ext": "E-1"}},
		map[string]any{"name": "Eve 2", "custom_fields": map[string]any{"ext": "E-1"}},
	}}))
	wantStatuses(t, got, 201, 200)
	if got[0]["id"] != got[1]["id"] {
		t.Fatalf("custom key upsert made two records: %v", got)
	}
	// A match that is neither id, a natural key nor a unique custom field is refused.
	for _, m := range []string{"name", "custom_fields.note", "custom_fields.missing", "domain"} {
		wantError(t, a.batch("people", map[string]any{"operation": "upsert", "match": m, "records": []any{map[string]any{"name": "x"}}}),
			http.StatusBadRequest, "bad_request")
	}
	// Upsert on id updates; an id that does not exist is 404, never created.
	got = items(t, a.batch("people", map[string]any{"operation": "upsert", "match": "id", "records": []any{
		map[string]any{"id": cy, "position": "CFO"},
		map[string]any{"id": "7c0a4c1e-59ad-4f3e-9b47-2f7f3e4c1d11", "name": "Ghost"},
	}}))
	wantStatuses(t, got, 200, 404)

	// Atomic: one failing record writes none, and the answer names it.
	before := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws)
	r := a.batch("people", map[string]any{"operation": "create", "atomic": true, "records": []any{
		map[string]any{"name": "Fay"}, map[string]any{"name": "Gus"}, map[string]any{"position": "nameless"},
	}})
	wantFieldError(t, r, "records[2].name")
	wantMessage(t, r, "records[2]", "no record was written")
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws); n != before {
		t.Fatalf("atomic batch left %d people, want %d", n, before)
	}
	got = items(t, a.batch("people", map[string]any{"operation": "create", "atomic": true, "records": []any{
		map[string]any{"name": "Fay"}, map[string]any{"name": "Gus"},
	}}))
	wantStatuses(t, got, 201, 201)

	// Join resources create links; they take no update.
	deal := newDeal(t, a)
	wantStatuses(t, items(t, a.batch("deal_people", map[string]any{"operation": "create", "records": []any{
		map[string]any{"deal_id": deal, "person_id": ada}, map[string]any{"deal_id": deal, "person_id": cy},
	}})), 201, 201)
	wantError(t, a.batch("deal_people", map[string]any{"operation": "update", "records": []any{map[string]any{"id": ada}}}),
		http.StatusMethodNotAllowed, "method_not_allowed")
	wantError(t, a.batch("enrich", map[string]any{"operation": "create", "records": []any{map[string]any{"domain": "acme.example"}}}),
		http.StatusBadRequest, "bad_request")
	wantError(t, a.batch("nonesuch", map[string]any{"operation": "create", "records": []any{map[string]any{}}}),
		http.StatusNotFound, "unknown_resource")
}

// TestBatchRefusals: who may not batch, and bodies that are not batches.
func TestBatchRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	ada := create(t, a, "/people", map[string]any{"name": "Ada", "email": "ada@acme.example"})["id"].(string)
	one := map[string]any{"operation": "create", "records": []any{map[string]any{"name": "X"}}}

	// Another workspace's token: its records are not ours; ours are not found.
	other := storetest.Workspace(t, e.store, workspace.Scopes())
	o := e.as(t, other.Admin)
	wantStatuses(t, items(t, o.batch("people", map[string]any{"operation": "update", "records": []any{map[string]any{"id": ada, "name": "Mine"}}})), 404)
	wantStatuses(t, items(t, o.batch("people", map[string]any{"operation": "upsert", "match": "email",
		"records": []any{map[string]any{"name": "Theirs", "email": "ada@acme.example"}}})), 201)
	if n := e.count(t, `SELECT count(*) FROM people WHERE id = $1 AND name = 'Ada'`, ada); n != 1 {
		t.Fatal("another workspace's batch changed our record")
	}

	// A member without the crm grant, and a token without the write scope.
	noCRM := e.as(t, member(t, e, tm.ws, map[string]string{}))
	wantError(t, noCRM.batch("people", one), http.StatusForbidden, "insufficient_permission")
	readOnly := e.as(t, withScopes(tm.a, []string{"people:read"}))
	wantError(t, readOnly.batch("people", one), http.StatusForbidden, "insufficient_scope")
	// A member may not batch admin-only resources.
	wantError(t, a.batch("webhook_endpoints", map[string]any{"operation": "create", "records": []any{map[string]any{"url": "https://hooks.example/x"}}}),
		http.StatusForbidden, "insufficient_permission")

	// An agent key batches as its grants allow (crm full).
	ws := storetest.Workspace(t, e.store, workspace.Scopes())
	r := e.do("POST", "/people/batch", ws.Agent.Key, testAPIKey, `{"operation":"create","records":[{"name":"By agent"}]}`)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Raw), `"status":201`) {
		t.Fatalf("agent batch: %d %s", r.Status, r.Raw)
	}

	// A suspended agent's key is refused before any record is read.
	susp, err := e.store.CreateAgent(t.Context(), ws.WorkspaceID, "Suspended", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetMember(t.Context(), susp.UserID, store.Member{Status: "suspended"}); err != nil {
		t.Fatal(err)
	}
	wantError(t, e.do("POST", "/people/batch", susp.Key, testAPIKey, `{"operation":"create","records":[{"name":"No"}]}`),
		http.StatusUnauthorized, "unauthorized")

	// Malformed bodies are 400 in the error shape; a NUL inside a value is that record's error.
	big := make([]any, workspace.MaxBatch+1)
	for i := range big {
		big[i] = map[string]any{"name": "x"}
	}
	for name, body := range map[string]string{
		"not json":        `{"operation":`,
		"array":           `[]`,
		"no operation":    `{"records":[{"name":"x"}]}`,
		"bad operation":   `{"operation":"delete","records":[{"name":"x"}]}`,
		"no records":      `{"operation":"create"}`,
		"empty records":   `{"operation":"create","records":[]}`,
		"records object":  `{"operation":"create","records":{"name":"x"}}`,
		"record scalar":   `{"operation":"create","records":[1]}`,
		"unknown member":  `{"operation":"create","records":[{"name":"x"}],"all":true}`,
		"match on create": `{"operation":"create","match":"email","records":[{"name":"x"}]}`,
		"upsert no match": `{"operation":"upsert","records":[{"name":"x"}]}`,
		"atomic string":   `{"operation":"create","atomic":"yes","records":[{"name":"x"}]}`,
		"raw NUL":         "{\"operation\":\"create\",\"records\":[{\"name\":\"a\x00b\"}]}",
		"too many":        mustJSON(t, map[string]any{"operation": "create", "records": big}),
		"over 1 MiB":      `{"operation":"create","records":[{"name":"` + strings.Repeat("x", workspace.MaxBody) + `"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, e.as(t, tm.a).req("POST", "/people/batch", body), http.StatusBadRequest, "bad_request")
		})
	}
	got := items(t, a.req("POST", "/people/batch", `{"operation":"create","records":[{"name":"a\u0000b"},{"name":"ok"}]}`))
	if int(got[0]["status"].(float64)) < 400 || int(got[0]["status"].(float64)) >= 500 || got[1]["status"].(float64) != 201 {
		t.Fatalf("NUL in a value: %v", got)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestBatchUpsertConcurrent: twenty batches upserting the same keys at once leave exactly
// one record per key.
func TestBatchUpsertConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	keys := []string{"k1@acme.example", "k2@acme.example", "k3@acme.example", "k4@acme.example", "k5@acme.example"}
	var wg sync.WaitGroup
	fail := make(chan string, 20)
	for g := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs := []any{}
			for i := range keys { // each batch in another order
				k := keys[(i+g)%len(keys)]
				recs = append(recs, map[string]any{"name": fmt.Sprintf("from %d", g), "email": k})
			}
			r := e.as(t, tm.a).batch("people", map[string]any{"operation": "upsert", "match": "email", "records": recs})
			if r.Status != http.StatusOK || strings.Contains(string(r.Raw), `"error"`) {
				fail <- fmt.Sprintf("%d %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	close(fail)
	for f := range fail {
		t.Fatalf("a concurrent upsert failed: %s", f)
	}
	for _, k := range keys {
		if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1 AND email = $2`, tm.ws, k); n != 1 {
			t.Fatalf("%d people with %s, want exactly 1", n, k)
		}
	}
}

// TestBatchIdempotency: a batch with an Idempotency-Key replays its answer and writes
// nothing the second time; another body with the key is a 422.
func TestBatchIdempotency(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	body := map[string]any{"operation": "create", "records": []any{map[string]any{"name": "One"}, map[string]any{"position": "bad"}}}
	first := must(t, a.postKey("/people/batch", "batch-key-1", body), http.StatusOK)
	again := must(t, a.postKey("/people/batch", "batch-key-1", body), http.StatusOK)
	if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Raw) != string(first.Raw) {
		t.Fatalf("replay differs: %s vs %s", again.Raw, first.Raw)
	}
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws); n != 1 {
		t.Fatalf("%d people after a replay, want 1", n)
	}
	body["records"] = []any{map[string]any{"name": "Two"}}
	wantError(t, a.postKey("/people/batch", "batch-key-1", body), http.StatusUnprocessableEntity, "idempotency_conflict")
	// A failed atomic batch stores nothing: its corrected retry with the same key runs.
	atomic := map[string]any{"operation": "create", "atomic": true, "records": []any{map[string]any{"name": "Three"}, map[string]any{}}}
	wantError(t, a.postKey("/people/batch", "batch-key-2", atomic), http.StatusUnprocessableEntity, "validation_error")
	atomic["records"] = []any{map[string]any{"name": "Three"}}
	wantStatuses(t, items(t, a.postKey("/people/batch", "batch-key-2", atomic)), 201)
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws); n != 2 {
		t.Fatalf("%d people, want 2", n)
	}
}

// TestBatchRateLimit: a batch costs one request plus one per ten records, and the
// X-RateLimit-Remaining header says so.
func TestBatchRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withLimiter(newLimiter(t, ratelimit.Config{PerCredential: 10, PerWorkspace: 100})))
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	tok := e.token(credential(f.Admin, "batch-token"))
	recs := make([]string, 25)
	for i := range recs {
		recs[i] = fmt.Sprintf(`{"name":"P%d"}`, i)
	}
	body := `{"operation":"create","records":[` + strings.Join(recs, ",") + `]}`
	r := e.do("GET", "/me", tok, testAPIKey, "")
	if got := header(t, r, "X-RateLimit-Remaining"); got != 9 {
		t.Fatalf("remaining %d after one call, want 9", got)
	}
	r = e.do("POST", "/people/batch", tok, testAPIKey, body)
	must(t, r, http.StatusOK)
	if got := header(t, r, "X-RateLimit-Remaining"); got != 5 { // 1 + 3 units for 25 records
		t.Fatalf("remaining %d after a batch of 25, want 5", got)
	}
	r = e.do("POST", "/people/batch", tok, testAPIKey, body)
	must(t, r, http.StatusOK)
	if got := header(t, r, "X-RateLimit-Remaining"); got != 1 {
		t.Fatalf("remaining %d after a second batch, want 1", got)
	}
	// One unit left: a batch of 25 needs four; it is refused and writes nothing.
	r = e.do("POST", "/people/batch", tok, testAPIKey, body)
	wantError(t, r, http.StatusTooManyRequests, "rate_limited")
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, f.WorkspaceID); n != 50 {
		t.Fatalf("%d people, want 50", n)
	}
}

// TestBatchMixedRecords: the records of one batch give different fields, and a record the
// database refuses (a reference to no record) fails alone: each record's result is its
// own, in order, as if it were written alone.
func TestBatchMixedRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a, admin := e.as(t, tm.a), e.as(t, tm.admin)
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "ext", "label": "External id", "type": "text", "unique": true})
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "score", "label": "Score", "type": "number"})

	got := items(t, a.batch("people", map[string]any{"operation": "create", "records": []any{
		map[string]any{"name": "Ann", "email": "ann@acme.example", "custom_fields": map[string]any{"ext": "A-1", "score": 1.5}},
		map[string]any{"name": "Bob", "company_id": "7c0a4c1e-59ad-4f3e-9b47-2f7f3e4c1d11"},
		map[string]any{"name": "Cat", "phone": "+44 1"},
		map[string]any{"name": "Dan", "custom_fields": map[string]any{"ext": "A-1"}},
	}}))
	wantStatuses(t, got, 201, 400, 201, 409)
	for i, name := range map[int]string{0: "Ann", 2: "Cat"} {
		if rec := got[i]["record"].(map[string]any); rec["name"] != name {
			t.Fatalf("result %d is %v, want %s", i, rec, name)
		}
	}
	ann, cat := got[0]["id"].(string), got[2]["id"].(string)
	if n := e.count(t, `SELECT count(*) FROM people WHERE workspace_id = $1`, tm.ws); n != 2 {
		t.Fatalf("%d people, want 2", n)
	}

	// Updates with other fields each; custom values merge (set, kept, cleared).
	got = items(t, a.batch("people", map[string]any{"operation": "update", "records": []any{
		map[string]any{"id": ann, "position": "CTO", "phone": "+44 2", "custom_fields": map[string]any{"score": nil}},
		map[string]any{"id": cat, "custom_fields": map[string]any{"ext": "C-1"}},
	}}))
	wantStatuses(t, got, 200, 200)
	if rec := got[0]["record"].(map[string]any); rec["position"] != "CTO" || rec["email"] != "ann@acme.example" ||
		fmt.Sprint(rec["custom_fields"]) != "map[ext:A-1]" {
		t.Fatalf("ann after update: %v", rec)
	}
	if rec := got[1]["record"].(map[string]any); rec["phone"] != "+44 1" || rec["position"] != nil ||
		fmt.Sprint(rec["custom_fields"]) != "map[ext:C-1]" {
		t.Fatalf("cat after update: %v", rec)
	}
	if n := e.count(t, `SELECT count(*) FROM activity WHERE entity_id = $1 AND action = 'updated'`, cat); n != 1 {
		t.Fatalf("%d updated activity rows for cat, want 1", n)
	}

	// Upsert: found and new keys in one batch, answered in order.
	got = items(t, a.batch("people", map[string]any{"operation": "upsert", "match": "custom_fields.ext", "records": []any{
		map[string]any{"name": "Eve", "custom_fields": map[string]any{"ext": "E-1"}},
		map[string]any{"name": "Cat C.", "custom_fields": map[string]any{"ext": "C-1"}},
		map[string]any{"name": "Ann A.", "custom_fields": map[string]any{"ext": "A-1", "score": 2}},
	}}))
	wantStatuses(t, got, 201, 200, 200)
	if got[1]["id"] != cat || got[2]["id"] != ann || got[0]["record"].(map[string]any)["name"] != "Eve" {
		t.Fatalf("upsert matched the wrong records: %v", got)
	}
	if rec := got[2]["record"].(map[string]any); rec["name"] != "Ann A." || rec["position"] != "CTO" {
		t.Fatalf("ann after upsert: %v", rec)
	}

	// An empty id names no record; an atomic batch names its first failing record.
	wantStatuses(t, items(t, a.batch("people", map[string]any{"operation": "update", "records": []any{
		map[string]any{"id": "", "name": "Nobody"}}})), 404)
	r := a.batch("people", map[string]any{"operation": "upsert", "match": "email", "atomic": true, "records": []any{
		map[string]any{"name": 5, "email": "new@acme.example"}, map[string]any{"name": "No email"}}})
	wantFieldError(t, r, "records[0].name")
}

// TestBatchUpdateUnchanged: a batch update that gives a record the values it already holds
// leaves it alone (no new updated_at, no activity row) and answers the record as it is,
// whether the batch writes in one statement or, when the database refuses another record,
// record by record, and whatever the case of the id's hex digits.
func TestBatchUpdateUnchanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	ann := create(t, a, "/people", map[string]any{"name": "Ann", "position": "CTO"})
	id := ann["id"].(string)
	updated := func() int {
		return e.count(t, `SELECT count(*) FROM activity WHERE entity_id = $1 AND action = 'updated'`, id)
	}
	same := func(got map[string]any) {
		t.Helper()
		if rec := got["record"].(map[string]any); rec["updated_at"] != ann["updated_at"] || rec["name"] != "Ann" || got["id"] != id {
			t.Fatalf("an unchanged record answered %v, want it as it was (%v)", got, ann)
		}
		if n := updated(); n != 0 {
			t.Fatalf("%d updated activity rows for an unchanged record, want 0", n)
		}
	}
	for _, ref := range []string{id, strings.ToUpper(id)} {
		got := items(t, a.batch("people", map[string]any{"operation": "update", "records": []any{
			map[string]any{"id": ref, "name": "Ann", "position": "CTO"}}}))
		wantStatuses(t, got, 200)
		same(got[0])

		// The database refuses the second record (a company that does not exist), so the
		// batch runs record by record.
		got = items(t, a.batch("people", map[string]any{"operation": "update", "records": []any{
			map[string]any{"id": ref, "name": "Ann"},
			map[string]any{"id": id, "company_id": "7c0a4c1e-59ad-4f3e-9b47-2f7f3e4c1d11"}}}))
		if len(got) != 2 || int(got[0]["status"].(float64)) != 200 || int(got[1]["status"].(float64)) < 400 {
			t.Fatalf("record by record: %v, want 200 then a refusal", got)
		}
		same(got[0])
	}
}
