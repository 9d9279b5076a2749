package restapi_test

import (
	"net/http"
	"testing"

	"github.com/agencyos/workspaced/workspace"
)

// TestPatchOfAnotherWorkspacesRecordIsNotFound: the record is found before the body is
// judged, so an admin of another workspace who PATCHes a record's id gets 404 whatever the
// body (an unknown field, a value of the wrong type, not an object, not JSON, a webhook URL
// that does not resolve), never a 422 or 400 about it; the same bodies on their own record
// are refused as bodies, so each is really invalid.
func TestPatchOfAnotherWorkspacesRecordIsNotFound(t *testing.T) {
	e := newEnv(t)
	a, b := newWorld(t, e), newWorld(t, e)
	for _, r := range workspace.Catalog() {
		if !r.CanUpdate() {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			own, other := recordOf(t, e, a, r), recordOf(t, e, b, r)
			bodies := []string{`{"no_such_field": 1}`, `[1]`, `{"`}
			if w := r.Writable(); len(w) > 0 && w[0].Type != workspace.JSON {
				bodies = append(bodies, `{"`+w[0].Name+`": {"not": "this type"}}`)
			}
			if r.Name == "webhook_endpoints" {
				bodies = append(bodies, `{"url": "https://no-such-host.invalid/hook"}`)
			}
			c := e.as(t, a.admin)
			for _, body := range bodies {
				res := c.patch("/"+r.Name+"/"+own, body)
				if res.Status != http.StatusUnprocessableEntity && res.Status != http.StatusBadRequest {
					t.Errorf("PATCH own %s with %s: %d %s, want the body refused", r.Name, body, res.Status, clipBody(res.Raw))
				}
				res = c.patch("/"+r.Name+"/"+other, body)
				if res.Status != http.StatusNotFound || res.Body["error"] != "not_found" {
					t.Errorf("PATCH another workspace's %s with %s: %d %s, want 404 not_found", r.Name, body, res.Status, clipBody(res.Raw))
				}
			}
		})
	}
}

// recordOf returns the id of a record of r in w, as its admin sees it.
func recordOf(t testing.TB, e *env, w *world, r *workspace.Resource) string {
	t.Helper()
	c := e.as(t, w.admin)
	switch {
	case r.Access == workspace.Singleton:
		return w.id
	case r.Name == "webhook_endpoints":
		return must(t, c.post("/webhook_endpoints", map[string]any{"url": "https://93.184.216.34/hook"}), http.StatusCreated).data()["id"].(string)
	}
	recs := must(t, c.get("/"+r.Name+"?limit=1"), http.StatusOK).list()
	if len(recs) == 0 {
		t.Fatalf("no %s record in workspace %s", r.Name, w.id)
	}
	return recs[0]["id"].(string)
}
