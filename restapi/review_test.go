package restapi_test

import (
	"net/http"
	"testing"
)

// TestReviewStampedOnCreate: a leave or HR change request created with a status other
// than pending is a review made at creation, so it stamps reviewed_by and reviewed_at with
// the creator, as a status change does (docs/contract.md section 2.2 rule 1); one created
// pending is unreviewed.
func TestReviewStampedOnCreate(t *testing.T) {
	e := newEnv(t)
	tm := newTeam(t, e)
	c := e.as(t, tm.a)
	member := create(t, c, "/team_members", map[string]any{"display_name": "Ada"})["id"]
	cases := []struct {
		path   string
		body   map[string]any
		review bool
	}{
		{"/leave_requests", map[string]any{"leave_date": "2026-12-01", "return_date": "2026-12-03", "reason": "trip", "status": "approved"}, true},
		{"/leave_requests", map[string]any{"leave_date": "2026-12-01", "return_date": "2026-12-03", "reason": "trip", "status": "rejected"}, true},
		{"/leave_requests", map[string]any{"leave_date": "2026-12-01", "return_date": "2026-12-03", "reason": "trip", "status": "pending"}, false},
		{"/leave_requests", map[string]any{"leave_date": "2026-12-01", "return_date": "2026-12-03", "reason": "trip"}, false},
		{"/hr_change_requests", map[string]any{"member_id": member, "status": "approved"}, true},
		{"/hr_change_requests", map[string]any{"member_id": member, "status": "pending"}, false},
		{"/hr_change_requests", map[string]any{"member_id": member}, false},
	}
	for _, tc := range cases {
		rec := must(t, c.post(tc.path, tc.body), http.StatusCreated).data()
		if tc.review && (rec["reviewed_by"] != tm.a.UserID || rec["reviewed_at"] == nil) {
			t.Errorf("%s %v: reviewed_by %v at %v, want the creator %s", tc.path, tc.body["status"], rec["reviewed_by"], rec["reviewed_at"], tm.a.UserID)
		}
		if !tc.review && (rec["reviewed_by"] != nil || rec["reviewed_at"] != nil) {
			t.Errorf("%s %v: stamped %v at %v, want no review", tc.path, tc.body["status"], rec["reviewed_by"], rec["reviewed_at"])
		}
	}
}
