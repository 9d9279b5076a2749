package restapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestCustomFields: an admin defines fields, records carry typed values that lists filter,
// sort, project and search on, and every refusal is the spec's error.
func TestCustomFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	admin, a := e.as(t, tm.admin), e.as(t, tm.a)

	def := func(body map[string]any) string {
		t.Helper()
		body["resource"] = "deals"
		if body["label"] == nil {
			body["label"] = body["key"]
		}
		return create(t, admin, "/custom_fields", body)["id"].(string)
	}
	// A member may not define fields; an admin may.
	wantError(t, a.post("/custom_fields", map[string]any{"resource": "deals", "key": "tier", "label": "Tier", "type": "text"}),
		http.StatusForbidden, "insufficient_permission")
	tier := def(map[string]any{"key": "tier", "type": "select", "searchable": false,
		"options": []map[string]any{{"key": "gold", "label": "Gold", "order": 1}, {"key": "silver", "label": "Silver", "order": 2}}})
	def(map[string]any{"key": "source", "type": "text", "searchable": true})
	def(map[string]any{"key": "retainer", "type": "money"})
	def(map[string]any{"key": "score", "type": "number"})
	def(map[string]any{"key": "renewal", "type": "date"})
	def(map[string]any{"key": "signed_at", "type": "timestamp"})
	def(map[string]any{"key": "vip", "type": "boolean"})
	def(map[string]any{"key": "tags", "type": "multi_select", "options": []map[string]any{{"key": "a", "label": "A"}, {"key": "b", "label": "B"}}})
	def(map[string]any{"key": "site", "type": "url"})
	def(map[string]any{"key": "mail", "type": "email"})
	def(map[string]any{"key": "tel", "type": "phone"})
	def(map[string]any{"key": "notes_long", "type": "long_text"})
	def(map[string]any{"key": "manager", "type": "member"})
	def(map[string]any{"key": "task", "type": "reference", "reference_resource": "tasks"})
	def(map[string]any{"key": "code", "type": "text", "unique": true})

	// Definitions are refused for a bad key, a built-in name, a duplicate key.
	wantError(t, admin.post("/custom_fields", map[string]any{"resource": "deals", "key": "Bad Key", "label": "x", "type": "text"}), http.StatusBadRequest, "bad_request")
	wantError(t, admin.post("/custom_fields", map[string]any{"resource": "deals", "key": "name", "label": "x", "type": "text"}), http.StatusBadRequest, "bad_request")
	wantError(t, admin.post("/custom_fields", map[string]any{"resource": "deals", "key": "tier", "label": "x", "type": "text"}), http.StatusConflict, "conflict")
	wantError(t, admin.post("/custom_fields", map[string]any{"resource": "deals", "key": "sel", "label": "x", "type": "select"}), http.StatusBadRequest, "bad_request")

	pl := create(t, a, "/pipelines", map[string]any{"name": "Sales"})["id"]
	task := create(t, a, "/tasks", map[string]any{"name": "T"})["id"]
	secret := create(t, e.as(t, tm.b), "/tasks", map[string]any{"name": "S", "is_private": true})["id"]
	deal := func(name string, cf map[string]any) map[string]any {
		t.Helper()
		body := map[string]any{"name": name, "pipeline_id": pl}
		if cf != nil {
			body["custom_fields"] = cf
		}
		return create(t, a, "/deals", body)
	}
	d1 := deal("one", map[string]any{"tier": "gold", "source": "Referral partner", "retainer": map[string]any{"amount": 1500, "currency": "EUR"},
		"score": 7.5, "renewal": "2026-12-01", "signed_at": "2026-01-02T10:00:00Z", "vip": true, "tags": []string{"a", "b"},
		"site": "https://example.com", "mail": "ana@example.com", "tel": "+44 20 7946 0958", "notes_long": "long", "manager": tm.b.UserID,
		"task": task, "code": "A-1"})
	if cf := d1["custom_fields"].(map[string]any); cf["tier"] != "gold" || cf["retainer"].(map[string]any)["currency"] != "EUR" {
		t.Fatalf("custom_fields not returned: %v", d1["custom_fields"])
	}
	d2 := deal("two", map[string]any{"tier": "silver", "score": 3, "renewal": "2027-03-01", "vip": false, "tags": []string{"b"}, "code": "B-2"})
	d3 := deal("three", nil)
	id1, id2, id3 := d1["id"].(string), d2["id"].(string), d3["id"].(string)

	// Invalid values of every type, and unknown keys, are 400 naming the field.
	for key, bad := range map[string]any{"tier": "bronze", "source": 5, "retainer": map[string]any{"amount": 1, "currency": "XXQ"},
		"score": "7", "renewal": "2026-13-01", "signed_at": "yesterday", "vip": "yes", "tags": []string{"a", "a"}, "site": "ftp://x",
		"mail": "not-an-email", "tel": "call me", "notes_long": 1, "manager": "3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f",
		"task": secret, "code": 1, "nope": "x"} {
		for _, r := range []response{a.post("/deals", map[string]any{"name": "x", "pipeline_id": pl, "custom_fields": map[string]any{key: bad}}),
			a.patch("/deals/"+id1, map[string]any{"custom_fields": map[string]any{key: bad}})} {
			wantError(t, r, http.StatusBadRequest, "bad_request")
			if msg := r.Body["message"].(string); !strings.Contains(msg, "custom_fields."+key) {
				t.Errorf("%s: message does not name the field: %s", key, msg)
			}
		}
	}

	list := func(c client, q string) []string {
		t.Helper()
		var out []string
		for _, r := range must(t, c.get("/deals?"+q), http.StatusOK).list() {
			out = append(out, r["id"].(string))
		}
		return out
	}
	for q, want := range map[string][]string{
		"custom_fields.tier=gold":                          {id1},
		"custom_fields.tier[ne]=gold":                      {id2},
		"custom_fields.tier[in]=gold,silver":               {id2, id1},
		"custom_fields.tier[null]=true":                    {id3},
		"custom_fields.score[gt]=5":                        {id1},
		"custom_fields.score[lte]=3":                       {id2},
		"custom_fields.retainer[gte]=1000":                 {id1},
		"custom_fields.renewal[lt]=2027-01-01":             {id1},
		"custom_fields.signed_at[gt]=2026-01-01T00:00:00Z": {id1},
		"custom_fields.vip=false":                          {id2},
		"custom_fields.tags=a":                             {id1},
		"custom_fields.tags[ne]=a":                         {id2},
		"custom_fields.source[prefix]=Refer":               {id1},
		"custom_fields.notes_long[null]=false":             {id1},
		"custom_fields.manager=" + tm.b.UserID:             {id1},
		"custom_fields.code[in]=A-1,B-2":                   {id2, id1},
		"q=referral":                                       {id1},
		"sort=custom_fields.score":                         {id2, id1, id3},
		"sort=-custom_fields.score":                        {id1, id2, id3},
		"sort=custom_fields.renewal&limit=1":               {id1},
	} {
		if got := list(a, q); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", q, got, want)
		}
	}
	// A custom sort pages by keyset, one record a page, through the records without a value,
	// which come last either way.
	for sort, want := range map[string][]string{"custom_fields.score": {id2, id1, id3}, "-custom_fields.score": {id1, id2, id3},
		"custom_fields.renewal": {id1, id2, id3}, "-custom_fields.code": {id2, id1, id3}} {
		var got []string
		cursor := ""
		for range 5 {
			page := must(t, a.get("/deals?limit=1&sort="+sort+cursor), http.StatusOK)
			for _, r := range page.list() {
				got = append(got, r["id"].(string))
			}
			next, _ := page.Body["next_cursor"].(string)
			if next == "" {
				break
			}
			cursor = "&cursor=" + next
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("sort=%s one a page: got %v, want %v", sort, got, want)
		}
	}
	// A cursor of one sort is refused by another.
	first := must(t, a.get("/deals?limit=1&sort=custom_fields.score"), http.StatusOK).Body["next_cursor"].(string)
	wantError(t, a.get("/deals?limit=1&sort=custom_fields.renewal&cursor="+first), http.StatusBadRequest, "bad_request")
	// fields= projects one key.
	got := must(t, a.get("/deals?fields=name,custom_fields.tier&custom_fields.tier=gold"), http.StatusOK).list()
	if cf := got[0]["custom_fields"].(map[string]any); len(cf) != 1 || cf["tier"] != "gold" || got[0]["pipeline_id"] != nil {
		t.Fatalf("fields=name,custom_fields.tier: %v", got[0])
	}
	wantError(t, a.get("/deals?custom_fields.nope=1"), http.StatusBadRequest, "bad_request")
	wantError(t, a.get("/deals?custom_fields.vip[lt]=true"), http.StatusBadRequest, "bad_request")
	wantError(t, a.get("/deals?custom_fields.score=abc"), http.StatusBadRequest, "bad_request")
	wantError(t, a.get("/deals?sort=custom_fields.tags"), http.StatusBadRequest, "bad_request")

	// PATCH merges; null clears one key.
	up := must(t, a.patch("/deals/"+id1, map[string]any{"custom_fields": map[string]any{"score": 9, "vip": nil}}), http.StatusOK).data()
	cf := up["custom_fields"].(map[string]any)
	if cf["score"] != 9.0 || cf["tier"] != "gold" || cf["vip"] != nil {
		t.Fatalf("PATCH merge: %v", cf)
	}
	if got := list(a, "custom_fields.vip[null]=true"); !strings.Contains(fmt.Sprint(got), id1) {
		t.Fatalf("cleared vip is still indexed: %v", got)
	}
	// A record created without values takes them on PATCH, and gives them up.
	if cf := must(t, a.patch("/deals/"+id3, map[string]any{"custom_fields": map[string]any{"score": 1}}), http.StatusOK).data()["custom_fields"].(map[string]any); cf["score"] != 1.0 {
		t.Fatalf("PATCH of a record without values: %v", cf)
	}
	must(t, a.patch("/deals/"+id3, map[string]any{"custom_fields": map[string]any{"score": nil}}), http.StatusOK)
	// Activity names the custom changes per key.
	acts := must(t, a.get("/activity?entity_id="+id1), http.StatusOK).list()
	changes := acts[0]["changes"].(map[string]any)
	if _, ok := changes["custom_fields.score"]; !ok {
		t.Fatalf("activity changes do not name custom_fields.score: %v", changes)
	}
	if _, ok := changes["custom_fields.tier"]; ok {
		t.Fatalf("activity names an unchanged custom field: %v", changes)
	}

	// Required on create.
	req := def(map[string]any{"key": "region", "type": "text", "required": true})
	wantError(t, a.post("/deals", map[string]any{"name": "x", "pipeline_id": pl}), http.StatusBadRequest, "bad_request")
	must(t, admin.patch("/custom_fields/"+req, map[string]any{"required": false}), http.StatusOK)

	// Archive hides the field from reads and filters and keeps the values; unarchive restores.
	must(t, admin.patch("/custom_fields/"+tier, map[string]any{"archived": true}), http.StatusOK)
	if cf := must(t, a.get("/deals/"+id1), http.StatusOK).data()["custom_fields"].(map[string]any); cf["tier"] != nil {
		t.Fatalf("archived field still shown: %v", cf)
	}
	wantError(t, a.get("/deals?custom_fields.tier=gold"), http.StatusBadRequest, "bad_request")
	wantError(t, a.patch("/deals/"+id1, map[string]any{"custom_fields": map[string]any{"tier": "gold"}}), http.StatusBadRequest, "bad_request")
	must(t, admin.patch("/custom_fields/"+tier, map[string]any{"archived": false}), http.StatusOK)
	if cf := must(t, a.get("/deals/"+id1), http.StatusOK).data()["custom_fields"].(map[string]any); cf["tier"] != "gold" {
		t.Fatalf("unarchived field not restored: %v", cf)
	}

	// Type change: refused while a value does not convert, allowed once they all do.
	src := findDef(t, admin, "source")
	wantError(t, admin.patch("/custom_fields/"+src, map[string]any{"type": "number"}), http.StatusBadRequest, "bad_request")
	must(t, admin.patch("/custom_fields/"+src, map[string]any{"type": "long_text", "searchable": false}), http.StatusOK)
	wantError(t, admin.patch("/custom_fields/"+src, map[string]any{"key": "renamed"}), http.StatusBadRequest, "bad_request")

	// Definitions: another workspace's admin neither sees nor uses them; a member without
	// the crm grant does not see those of deals.
	other := storetest.Workspace(t, e.store, workspace.Scopes())
	wantError(t, e.as(t, other.Admin).get("/custom_fields/"+tier), http.StatusNotFound, "not_found")
	wantError(t, e.as(t, other.Admin).patch("/custom_fields/"+tier, map[string]any{"label": "x"}), http.StatusNotFound, "not_found")
	if n := len(must(t, e.as(t, other.Admin).get("/custom_fields"), http.StatusOK).list()); n != 0 {
		t.Fatalf("another workspace lists %d definitions", n)
	}
	none := e.as(t, tm.none)
	wantError(t, none.get("/custom_fields/"+tier), http.StatusNotFound, "not_found")
	if n := len(must(t, none.get("/custom_fields"), http.StatusOK).list()); n != 0 {
		t.Fatalf("a member without crm lists %d deal definitions", n)
	}
	if n := len(must(t, a.get("/custom_fields?resource=deals"), http.StatusOK).list()); n < 15 {
		t.Fatalf("a member with crm lists %d deal definitions", n)
	}
}

// TestCustomFieldUniqueConcurrent: of 50 concurrent creates with the same value of a
// unique field, exactly one wins; the others are 409 conflict.
func TestCustomFieldUniqueConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	admin := e.as(t, tm.admin)
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "external_id", "label": "External id", "type": "text", "unique": true})
	var wg sync.WaitGroup
	statuses := make([]int, 50)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.as(t, tm.a).post("/people", map[string]any{"name": fmt.Sprint("p", i), "custom_fields": map[string]any{"external_id": "X-1"}})
			statuses[i] = r.Status
			if r.Status != http.StatusCreated && r.Body["error"] != "conflict" {
				t.Errorf("want 201 or 409 conflict, got %d %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	won := 0
	for _, s := range statuses {
		if s == http.StatusCreated {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("%d creates won, want exactly 1: %v", won, statuses)
	}
}

// TestCustomFieldTypeChangeWaitsForWriters: a type change's check of the stored values and
// the change are one transaction that writes to the resource wait for. A value that does
// not convert, written by a transaction still open when the change starts, is seen once it
// commits, and the change is refused: the field never holds a value of another type.
func TestCustomFieldTypeChangeWaitsForWriters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.as(t, f.Admin)
	ctx := context.Background()
	field := create(t, admin, "/custom_fields", map[string]any{"resource": "deals", "key": "ref_code", "label": "Ref code", "type": "text"})["id"].(string)
	pl := create(t, admin, "/pipelines", map[string]any{"name": "Sales"})["id"]
	deal := create(t, admin, "/deals", map[string]any{"name": "Waits", "pipeline_id": pl})["id"].(string)

	tx, err := storetest.Pool(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `UPDATE deals SET custom_fields = '{"ref_code": "abc"}' WHERE id = $1`, deal); err != nil {
		t.Fatal(err)
	}
	changed := make(chan response, 1)
	go func() { changed <- admin.patch("/custom_fields/"+field, map[string]any{"type": "number"}) }()
	select {
	case r := <-changed:
		t.Fatalf("the type change did not wait for the open write: %d %s", r.Status, r.Raw)
	case <-time.After(500 * time.Millisecond):
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wantError(t, <-changed, http.StatusBadRequest, "bad_request")
	if typ := must(t, admin.get("/custom_fields/"+field), http.StatusOK).data()["type"]; typ != "text" {
		t.Fatalf("type = %v, want text", typ)
	}
}

// TestCustomLongTextSearch: a searchable long_text field is matched by q on the words of its
// first 10,000 characters, and not on words past them.
func TestCustomLongTextSearch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.as(t, f.Admin)
	create(t, admin, "/custom_fields", map[string]any{"resource": "deals", "key": "brief", "label": "Brief", "type": "long_text", "searchable": true})
	pl := create(t, admin, "/pipelines", map[string]any{"name": "Sales"})["id"]
	// "quokka" ends at character 10,000; "wombat" starts after it.
	brief := "quokka " + strings.Repeat("x", 10_000-len("quokka ")-len(" quokka")) + " quokka wombat"
	deal := create(t, admin, "/deals", map[string]any{"name": "Long", "pipeline_id": pl, "custom_fields": map[string]any{"brief": brief}})["id"].(string)
	if got := must(t, admin.get("/deals?q=quokka"), http.StatusOK).list(); len(got) != 1 || got[0]["id"] != deal {
		t.Fatalf("q=quokka: %v", got)
	}
	if hits := must(t, admin.get("/search?q=quokka"), http.StatusOK).list(); len(hits) != 1 || hits[0]["id"] != deal {
		t.Fatalf("/search?q=quokka: %v", hits)
	}
	if got := must(t, admin.get("/deals?q=wombat"), http.StatusOK).list(); len(got) != 0 {
		t.Fatalf("q=wombat matches a word past the first 10,000 characters: %v", got)
	}
}

func findDef(t testing.TB, c client, key string) string {
	t.Helper()
	for _, d := range must(t, c.get("/custom_fields?resource=deals&limit=200"), http.StatusOK).list() {
		if d["key"] == key {
			return d["id"].(string)
		}
	}
	t.Fatalf("no definition %s", key)
	return ""
}

// TestCustomFieldsEverywhere: custom values reach webhook events and /v1/search, agents
// cannot define fields, hostile bodies are 4xx, and adding a field takes no lock on the
// resource's table (no DDL): it succeeds while another transaction holds a write on it.
func TestCustomFieldsEverywhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.as(t, f.Admin)
	member := e.as(t, storetest.AddUser(t, e.store, f.WorkspaceID, "member", grantsAll("full"), workspace.Scopes()))
	ctx := context.Background()

	// An agent acts as a member: it may read definitions, not write them.
	agent := client{e: e, t: t, token: f.Agent.Key}
	wantError(t, agent.post("/custom_fields", map[string]any{"resource": "deals", "key": "k", "label": "K", "type": "text"}),
		http.StatusForbidden, "insufficient_permission")

	// A write on deals held open: DDL on deals would wait for it; the field does not.
	tx, err := storetest.Pool(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE deals IN ROW EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	added := make(chan response, 1)
	var leadSource string
	start := time.Now()
	go func() {
		added <- admin.post("/custom_fields", map[string]any{"resource": "deals", "key": "lead_source", "label": "Lead source",
			"type": "text", "searchable": true})
	}()
	select {
	case r := <-added:
		if r.Status != http.StatusCreated || r.data()["ready"] != true {
			t.Fatalf("adding a field beside an open write: %d %s", r.Status, r.Raw)
		}
		leadSource = r.data()["id"].(string)
		t.Logf("a field added beside an open write on deals in %v", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("adding a field waited for a lock on deals")
	}
	tx.Rollback(ctx)
	archived := create(t, admin, "/custom_fields", map[string]any{"resource": "deals", "key": "old", "label": "Old", "type": "number"})["id"].(string)

	must(t, admin.post("/webhook_endpoints", map[string]any{"url": "https://93.184.216.34/hooks"}), http.StatusCreated)
	pl := create(t, member, "/pipelines", map[string]any{"name": "Sales"})["id"]
	deal := create(t, member, "/deals", map[string]any{"name": "Plain name", "pipeline_id": pl,
		"custom_fields": map[string]any{"lead_source": "Conference Zurich", "old": 1}})["id"].(string)
	must(t, admin.patch("/custom_fields/"+archived, map[string]any{"archived": true}), http.StatusOK)
	must(t, member.patch("/deals/"+deal, map[string]any{"custom_fields": map[string]any{"lead_source": "Conference Geneva"}}), http.StatusOK)
	var changed []string
	var record string
	if err := storetest.Pool(t).QueryRow(ctx, `SELECT changed, record::text FROM (
		SELECT changed, record, seq FROM webhook_outbox WHERE object_id = $1 AND type = 'deals.updated'
		UNION ALL SELECT changed, record, seq FROM webhook_events WHERE object_id = $1 AND type = 'deals.updated') x
		ORDER BY seq DESC LIMIT 1`, deal).Scan(&changed, &record); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(changed, "custom_fields.lead_source") || slices.Contains(changed, "custom_fields") {
		t.Fatalf("event changed = %v, want custom_fields.lead_source", changed)
	}
	if strings.Contains(record, `"old"`) {
		t.Fatalf("the event's record shows an archived field: %s", record)
	}

	// q finds the record by its searchable custom text, in a list and in /v1/search.
	if got := must(t, member.get("/deals?q=geneva"), http.StatusOK).list(); len(got) != 1 || got[0]["id"] != deal {
		t.Fatalf("q=geneva: %v", got)
	}
	hits := must(t, member.get("/search?q=geneva"), http.StatusOK).list()
	if len(hits) != 1 || hits[0]["id"] != deal {
		t.Fatalf("/search?q=geneva: %v", hits)
	}
	if got := must(t, member.get("/deals?q=zurich"), http.StatusOK).list(); len(got) != 0 {
		t.Fatalf("q matches a value no longer held: %v", got)
	}
	// A value written while its field is not searchable: q finds it once the field is.
	must(t, admin.patch("/custom_fields/"+leadSource, map[string]any{"searchable": false}), http.StatusOK)
	must(t, member.patch("/deals/"+deal, map[string]any{"custom_fields": map[string]any{"lead_source": "Conference Bern"}}), http.StatusOK)
	if got := must(t, member.get("/deals?q=bern"), http.StatusOK).list(); len(got) != 0 {
		t.Fatalf("q=bern on a field not searchable: %v", got)
	}
	must(t, admin.patch("/custom_fields/"+leadSource, map[string]any{"searchable": true}), http.StatusOK)
	if got := must(t, member.get("/deals?q=bern"), http.StatusOK).list(); len(got) != 1 || got[0]["id"] != deal {
		t.Fatalf("q=bern once the field is searchable: %v", got)
	}

	// Hostile bodies: a NUL in a value or key, a huge value.
	for _, body := range []string{`{"custom_fields": {"lead_source": "a\u0000b"}}`, `{"custom_fields": {"a\u0000": 1}}`,
		`{"custom_fields": {"lead_source": "` + strings.Repeat("x", 600) + `"}}`, `{"custom_fields": [1]}`, `{"custom_fields": null}`} {
		if r := member.patch("/deals/"+deal, body); r.Status < 400 || r.Status >= 500 {
			t.Errorf("%.60s: %d %s", body, r.Status, r.Raw)
		}
	}
	if r := admin.post("/custom_fields", `{"resource": "deals", "key": "k\u0000", "label": "x", "type": "text"}`); r.Status < 400 || r.Status >= 500 {
		t.Errorf("NUL in a key: %d %s", r.Status, r.Raw)
	}
}
