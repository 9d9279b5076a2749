package restapi_test

import (
	"net/http"
	"slices"
	"testing"
)

// TestDealStatusFollowsItsStage: a deal's status is its stage's outcome (open while it has
// no stage), whether the deal moves or the stage's outcome changes, and ?status= lists by
// it (docs/rest.md, "Deal status"). A status a client sends is ignored.
func TestDealStatusFollowsItsStage(t *testing.T) {
	e := newEnv(t)
	tm := newTeam(t, e)
	c := e.as(t, tm.a)
	pl := create(t, c, "/pipelines", map[string]any{"name": "Sales"})["id"]
	stage := func(name string, outcome ...string) string {
		body := map[string]any{"pipeline_id": pl, "name": name}
		if len(outcome) > 0 {
			body["outcome"] = outcome[0]
		}
		return create(t, c, "/pipeline_stages", body)["id"].(string)
	}
	talking, won, lost := stage("Talking"), stage("Won", "won"), stage("Lost", "lost")
	if got := must(t, c.get("/pipeline_stages/"+talking), http.StatusOK).data()["outcome"]; got != "open" {
		t.Fatalf("a stage created without an outcome has %v, want open", got)
	}
	deal := func(name string, stage string) string {
		body := map[string]any{"name": name, "pipeline_id": pl}
		if stage != "" {
			body["pipeline_stage_id"] = stage
		}
		return create(t, c, "/deals", body)["id"].(string)
	}
	status := func(id string) any { return must(t, c.get("/deals/"+id), http.StatusOK).data()["status"] }
	unstaged, a, b := deal("No stage", ""), deal("A", talking), deal("B", won)
	for id, want := range map[string]string{unstaged: "open", a: "open", b: "won"} {
		if got := status(id); got != want {
			t.Errorf("deal %s: status %v, want %s", id, got, want)
		}
	}
	must(t, c.patch("/deals/"+a, map[string]any{"pipeline_stage_id": lost}), http.StatusOK)
	if got := status(a); got != "lost" {
		t.Errorf("a deal moved to a lost stage: status %v, want lost", got)
	}
	must(t, c.patch("/pipeline_stages/"+won, map[string]any{"outcome": "open"}), http.StatusOK)
	if got := status(b); got != "open" {
		t.Errorf("a deal whose stage became open: status %v, want open", got)
	}
	// Like every field that is not writable, a status in a body is ignored (docs/contract.md
	// section 2.2).
	if got := must(t, c.patch("/deals/"+b, map[string]any{"name": "B", "status": "won"}), http.StatusOK).data()["status"]; got != "open" {
		t.Errorf("a deal patched with status won: %v, want its stage's open", got)
	}
	wantFieldError(t, c.post("/pipeline_stages", map[string]any{"pipeline_id": pl, "name": "X", "outcome": "maybe"}), "outcome")

	listed := func(query string) []string {
		var names []string
		for _, r := range c.listAll("/deals?" + query) {
			names = append(names, r["name"].(string))
		}
		slices.Sort(names)
		return names
	}
	if got := listed("status=open"); !slices.Equal(got, []string{"B", "No stage"}) {
		t.Errorf("status=open lists %v, want [B, No stage]", got)
	}
	if got := listed("status=lost"); !slices.Equal(got, []string{"A"}) {
		t.Errorf("status=lost lists %v, want [A]", got)
	}
	wantError(t, c.get("/deals?status=closed"), http.StatusBadRequest, "bad_request")
}

// TestTaskAssigneesAgree: assignee_ids lists every assignee and assignee_id is its first,
// whichever of the two a write sends (docs/rest.md, "Task assignees").
func TestTaskAssigneesAgree(t *testing.T) {
	e := newEnv(t)
	tm := newTeam(t, e)
	c := e.as(t, tm.admin)
	a, b, admin := tm.a.UserID, tm.b.UserID, tm.admin.UserID
	dealID := newDeal(t, c)
	for _, path := range []string{"/tasks", "/deal_tasks"} {
		t.Run(path, func(t *testing.T) {
			c := e.as(t, tm.admin)
			body := func(extra map[string]any) map[string]any {
				m := map[string]any{"name": "Task"}
				if path == "/deal_tasks" {
					m["deal_id"] = dealID
				}
				for k, v := range extra {
					m[k] = v
				}
				return m
			}
			check := func(rec map[string]any, wantID any, wantIDs ...string) {
				t.Helper()
				var got []string
				for _, v := range rec["assignee_ids"].([]any) {
					got = append(got, v.(string))
				}
				if rec["assignee_id"] != wantID || !slices.Equal(got, wantIDs) {
					t.Errorf("assignee_id %v, assignee_ids %v; want %v, %v", rec["assignee_id"], got, wantID, wantIDs)
				}
			}
			one := create(t, c, path, body(map[string]any{"assignee_id": a}))
			check(one, a, a)
			many := create(t, c, path, body(map[string]any{"assignee_ids": []string{b, a}}))
			check(many, b, b, a)
			both := create(t, c, path, body(map[string]any{"assignee_id": a, "assignee_ids": []string{b}}))
			check(both, a, a, b)
			check(create(t, c, path, body(nil)), nil)

			id := one["id"].(string)
			check(must(t, c.patch(path+"/"+id, map[string]any{"assignee_ids": []string{b, admin}}), http.StatusOK).data(), b, b, admin)
			check(must(t, c.patch(path+"/"+id, map[string]any{"assignee_id": a}), http.StatusOK).data(), a, a, admin)
			check(must(t, c.patch(path+"/"+id, map[string]any{"assignee_id": nil}), http.StatusOK).data(), admin, admin)
			check(must(t, c.patch(path+"/"+id, map[string]any{"assignee_ids": []string{}}), http.StatusOK).data(), nil)
		})
	}
}
