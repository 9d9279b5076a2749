package restapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestMergePeople: a merge moves every reference to the kept person, fills its blanks,
// marks the merged one (which lists and search leave out and a get still answers), and
// leaves one "merged" activity row and one people.merged event.
func TestMergePeople(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	admin, a := e.as(t, tm.admin), e.as(t, tm.a)
	ctx := context.Background()
	db := storetest.Pool(t)

	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "tier", "label": "Tier", "type": "text"})
	create(t, admin, "/custom_fields", map[string]any{"resource": "people", "key": "code", "label": "Code", "type": "text", "unique": true})
	create(t, admin, "/custom_fields", map[string]any{"resource": "deals", "key": "champion", "label": "Champion", "type": "reference", "reference_resource": "people"})
	create(t, admin, "/webhook_endpoints", map[string]any{"url": "https://93.184.216.34/hooks", "events": []string{"people.merged"}})

	kept := create(t, a, "/people", map[string]any{"name": "Ada Lovelace", "email": "ada@acme.example", "custom_fields": map[string]any{"tier": "gold"}})["id"].(string)
	dup := create(t, a, "/people", map[string]any{"name": "Ada L.", "email": "ada.l@acme.example", "phone": "+44 20 7946 0958",
		"position": "CTO", "custom_fields": map[string]any{"tier": "silver", "code": "A-1"}})["id"].(string)
	d1, d2 := newDeal(t, a), newDeal(t, a)
	create(t, a, "/deal_people", map[string]any{"deal_id": d1, "person_id": dup, "is_primary": true})
	create(t, a, "/deal_people", map[string]any{"deal_id": d1, "person_id": kept})
	create(t, a, "/deal_people", map[string]any{"deal_id": d2, "person_id": dup, "role": "buyer"})
	must(t, a.patch("/deals/"+d2, map[string]any{"custom_fields": map[string]any{"champion": dup}}), http.StatusOK)

	got := must(t, a.post("/people/"+kept+"/merge", map[string]any{"from": dup}), http.StatusOK).data()
	cf := got["custom_fields"].(map[string]any)
	if got["id"] != kept || got["name"] != "Ada Lovelace" || got["email"] != "ada@acme.example" || got["phone"] != "+44 20 7946 0958" ||
		got["position"] != "CTO" || got["merged_into_id"] != nil || cf["tier"] != "gold" || cf["code"] != "A-1" {
		t.Fatalf("kept record after merge: %v", got)
	}
	// The merged record stays, marked; a get follows it; lists and search leave it out.
	old := must(t, a.get("/people/"+dup), http.StatusOK).data()
	if old["merged_into_id"] != kept || old["name"] != "Ada L." {
		t.Fatalf("merged record: %v", old)
	}
	if ids := ids(a.listAll("/people")); ids[dup] || !ids[kept] {
		t.Fatalf("list after merge: %v", ids)
	}
	if ids := ids(a.listAll("/people?q=Ada")); ids[dup] || !ids[kept] {
		t.Fatalf("q after merge: %v", ids)
	}
	for _, hit := range must(t, a.get("/search?q=Ada"), http.StatusOK).list() {
		if hit["id"] == dup {
			t.Fatalf("search answers the merged record: %v", hit)
		}
	}
	// Links: d1 had both (the kept one's link stays as it was), d2's moved with its role.
	var links []string
	rows, err := db.Query(ctx, `SELECT deal_id::text || ' ' || person_id::text || ' ' || is_primary::text || ' ' || coalesce(role, '')
		FROM deal_people WHERE deal_id IN ($1, $2) ORDER BY deal_id = $1 DESC`, d1, d2)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		links = append(links, s)
	}
	if want := []string{d1 + " " + kept + " false ", d2 + " " + kept + " false buyer"}; strings.Join(links, "|") != strings.Join(want, "|") {
		t.Fatalf("deal_people after merge:\n got %q\nwant %q", links, want)
	}
	if v := must(t, a.get("/deals/"+d2), http.StatusOK).data()["custom_fields"].(map[string]any)["champion"]; v != kept {
		t.Fatalf("custom reference after merge: %v", v)
	}
	// The unique custom value moved: the kept record is found by it, the merged one not.
	if ids := ids(a.listAll("/people?custom_fields.code=A-1")); len(ids) != 1 || !ids[kept] {
		t.Fatalf("unique custom value after merge: %v", ids)
	}
	var acts, events int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM activity WHERE entity_id = $1 AND action = 'merged'
		AND changes ->> 'merged_into_id' = $2`, dup, kept).Scan(&acts); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `SELECT count(*) FROM webhook_outbox WHERE object_id = $1 AND type = 'people.merged'
		AND record ->> 'merged_into_id' = $2`, dup, kept).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if acts != 1 || events != 1 {
		t.Fatalf("merged activity rows %d, people.merged events %d; want 1 and 1", acts, events)
	}

	// Refusals.
	third := create(t, a, "/people", map[string]any{"name": "Third"})["id"].(string)
	wantError(t, a.post("/people/"+kept+"/merge", map[string]any{"from": kept}), http.StatusBadRequest, "bad_request")
	wantError(t, a.post("/people/"+third+"/merge", map[string]any{"from": dup}), http.StatusBadRequest, "bad_request")
	wantError(t, a.post("/people/"+dup+"/merge", map[string]any{"from": third}), http.StatusBadRequest, "bad_request")
	wantError(t, a.post("/people/"+kept+"/merge", map[string]any{"from": "00000000-0000-4000-8000-000000000000"}), http.StatusBadRequest, "bad_request")
	wantError(t, a.post("/people/00000000-0000-4000-8000-000000000000/merge", map[string]any{"from": third}), http.StatusNotFound, "not_found")
	wantError(t, a.post("/people/nope/merge", map[string]any{"from": third}), http.StatusNotFound, "not_found")
	for _, body := range []string{`{"from":`, `[]`, `{"from": 7}`, `{"from": "x"}`, `{}`, `{"from": "` + third + `", "into": 1}`,
		"{\"from\": \"" + third + "\u0000\"}", "{\"from\x00\": 1}", `{"from": "` + strings.Repeat("a", 2<<20) + `"}`} {
		r := a.req("POST", "/people/"+kept+"/merge", body)
		if r.Status != http.StatusBadRequest || r.Body["error"] == nil {
			t.Errorf("body %.40q: %d %s", body, r.Status, clipBody(r.Raw))
		}
	}
	// Another workspace's record: as a missing one, whichever side it is on.
	other := newTeam(t, e)
	foreign := create(t, e.as(t, other.a), "/people", map[string]any{"name": "Foreign"})["id"].(string)
	r1 := a.post("/people/"+kept+"/merge", map[string]any{"from": foreign})
	wantError(t, r1, http.StatusBadRequest, "bad_request")
	missing := "00000000-0000-4000-8000-000000000001"
	r2 := a.post("/people/"+kept+"/merge", map[string]any{"from": missing})
	if strings.ReplaceAll(r1.Body["message"].(string), foreign, "<id>") != strings.ReplaceAll(r2.Body["message"].(string), missing, "<id>") {
		t.Fatalf("another workspace's from answers unlike a missing one: %s | %s", r1.Raw, r2.Raw)
	}
	wantError(t, a.post("/people/"+foreign+"/merge", map[string]any{"from": third}), http.StatusNotFound, "not_found")
	// Gates: no crm grant, a read-only token, an agent as for an update.
	wantError(t, e.as(t, tm.none).post("/people/"+kept+"/merge", map[string]any{"from": third}), http.StatusForbidden, "insufficient_permission")
	ro := *tm.a
	ro.Scopes = []string{"people:read"}
	wantError(t, e.as(t, &ro).post("/people/"+kept+"/merge", map[string]any{"from": third}), http.StatusForbidden, "insufficient_scope")
	agent := client{e: e, t: t, token: storetest.Workspace(t, e.store, workspace.Scopes()).Agent.Key}
	if m, p := agent.post("/people/"+kept+"/merge", map[string]any{"from": third}), agent.patch("/people/"+kept, map[string]any{"name": "x"}); m.Status != p.Status {
		t.Fatalf("agent: merge %d, update %d", m.Status, p.Status)
	}
	wantError(t, a.post("/deals/"+d1+"/merge", map[string]any{"from": d2}), http.StatusBadRequest, "bad_request")
	if r := a.get("/people/" + kept + "/merge"); r.Status != http.StatusMethodNotAllowed {
		t.Fatalf("GET merge: %d", r.Status)
	}
	if third := must(t, a.get("/people/"+third), http.StatusOK).data(); third["merged_into_id"] != nil {
		t.Fatalf("a refused merge changed the record: %v", third)
	}
}

// TestMergeCompaniesRace: two merges racing on the same pair, either way round, give one
// success; the company's deals and people move to the kept company.
func TestMergeCompaniesRace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	for i := 0; i < 5; i++ {
		x := create(t, a, "/companies", map[string]any{"name": "Acme", "website": "https://acme.example"})["id"].(string)
		y := create(t, a, "/companies", map[string]any{"name": "ACME Inc", "industry": "Widgets"})["id"].(string)
		person := create(t, a, "/people", map[string]any{"name": "P", "company_id": y})["id"].(string)
		deal := newDeal(t, a)
		must(t, a.patch("/deals/"+deal, map[string]any{"company_id": y}), http.StatusOK)
		var wg sync.WaitGroup
		res := make([]response, 2)
		for j, pair := range [][2]string{{x, y}, {y, x}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[j] = a.post("/companies/"+pair[0]+"/merge", map[string]any{"from": pair[1]})
			}()
		}
		wg.Wait()
		ok := 0
		keptID := ""
		for _, r := range res {
			switch r.Status {
			case http.StatusOK:
				ok++
				keptID = r.data()["id"].(string)
			case http.StatusBadRequest:
			default:
				t.Fatalf("racing merge: %d %s", r.Status, r.Raw)
			}
		}
		if ok != 1 {
			t.Fatalf("racing merges: %d successes, want 1", ok)
		}
		if c := must(t, a.get("/people/"+person), http.StatusOK).data()["company_id"]; c != keptID {
			t.Fatalf("person's company after merge: %v", c)
		}
		if c := must(t, a.get("/deals/"+deal), http.StatusOK).data()["company_id"]; c != keptID {
			t.Fatalf("deal's company after merge: %v", c)
		}
		if k := must(t, a.get("/companies/"+keptID), http.StatusOK).data(); k["industry"] != "Widgets" || k["website"] != "https://acme.example" {
			t.Fatalf("kept company not filled: %v", k)
		}
	}
}
