package workspace_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestKeptFieldsFollowChanges: two Ops on two stores of one database are two replicas.
// Each keeps the custom field definitions its lists read (workspace/fieldcache.go); a
// definition changed through one replica (an option added, a field archived and
// unarchived) is what the other's next list is checked against, and a list from kept
// definitions is one round trip. The gates hold as without them: a member without the
// crm grant is refused, one with it sees what the admin sees, and another workspace's
// admin sees none of the kept fields.
func TestKeptFieldsFollowChanges(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	other := storetest.Workspace(t, s, workspace.Scopes())
	crmReader := storetest.AddUser(t, s, f.WorkspaceID, "member", map[string]string{"crm": "read"}, workspace.Scopes())
	sb, batches := countedReplica(t)
	a := workspace.NewOps(workspace.Config{Store: s})
	b := workspace.NewOps(workspace.Config{Store: sb})
	deals, fields := workspace.Lookup("deals"), workspace.Lookup("custom_fields")

	define := func(body string) string {
		t.Helper()
		posted, err := a.Post(ctx, f.Admin, workspace.OpCreate, fields, workspace.NewBody([]byte(body)), "")
		if err != nil {
			t.Fatal(err)
		}
		var rec struct{ ID string }
		if err := json.Unmarshal(posted.Data, &rec); err != nil {
			t.Fatal(err)
		}
		return rec.ID
	}
	tier := define(`{"resource": "deals", "key": "tier", "label": "Tier", "type": "select",
		"options": [{"key": "gold", "label": "Gold"}, {"key": "silver", "label": "Silver"}]}`)
	score := define(`{"resource": "deals", "key": "score", "label": "Score", "type": "number"}`)
	// Defining them started their sort and list indexes' builds in a's background. Until
	// both are valid, b's lists would start builds of their own, whose statements on b's
	// store the count below would take for the list's.
	for _, name := range []string{"deals_cf_score_n", "deals_cfl_tier_t"} {
		waitValid(t, name, "fields defined")
	}
	change := func(id, body string) {
		t.Helper()
		if _, err := a.Update(ctx, f.Admin, fields, id, json.RawMessage(body)); err != nil {
			t.Fatal(err)
		}
	}
	pipeline := ""
	if err := storetest.Pool(t).QueryRow(ctx, `INSERT INTO pipelines (workspace_id, name) VALUES ($1, 'P') RETURNING id::text`, f.WorkspaceID).Scan(&pipeline); err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{`{"tier": "gold", "score": 3}`, `{"tier": "silver", "score": 2}`, `{"tier": "gold", "score": 1}`} {
		if _, err := a.Post(ctx, f.Admin, workspace.OpCreate, deals, workspace.NewBody([]byte(
			`{"name": "Deal `+string(rune('A'+i))+`", "pipeline_id": "`+pipeline+`", "custom_fields": `+v+`}`)), ""); err != nil {
			t.Fatal(err)
		}
	}

	// list is a list of deals by query through ops as p: the names in order, or the error.
	list := func(ops *workspace.Ops, p *auth.Principal, query string) ([]string, error) {
		t.Helper()
		q, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		params, err := workspace.ParseListParams(deals, q)
		if err != nil {
			return nil, err
		}
		page, err := ops.List(ctx, p, deals, params)
		if err != nil {
			return nil, err
		}
		var recs []struct{ Name string }
		if err := json.Unmarshal(page.Data, &recs); err != nil {
			t.Fatal(err)
		}
		names := []string{}
		for _, r := range recs {
			names = append(names, r.Name)
		}
		return names, nil
	}
	want := func(ops *workspace.Ops, p *auth.Principal, query string, names ...string) {
		t.Helper()
		got, err := list(ops, p, query)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		if len(got) != len(names) || len(got) > 0 && (got[0] != names[0] || got[len(got)-1] != names[len(names)-1]) {
			t.Fatalf("%s: %v, want %v", query, got, names)
		}
	}
	refused := func(ops *workspace.Ops, p *auth.Principal, query string, code apierr.Code) {
		t.Helper()
		_, err := list(ops, p, query)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != code {
			t.Fatalf("%s: %v, want %s", query, err, code)
		}
	}
	gold := "custom_fields.tier=gold&sort=-custom_fields.score"
	want(a, f.Admin, gold, "Deal A", "Deal C")
	want(b, f.Admin, gold, "Deal A", "Deal C")
	batches.Store(0)
	want(b, f.Admin, gold, "Deal A", "Deal C")
	if n := batches.Load(); n != 1 {
		t.Errorf("a list from kept definitions sent %d statements and batches, want 1", n)
	}

	change(tier, `{"options": [{"key": "gold", "label": "Gold"}, {"key": "silver", "label": "Silver"}, {"key": "platinum", "label": "Platinum"}]}`)
	want(b, f.Admin, "custom_fields.tier=platinum")
	change(score, `{"archived": true}`)
	refused(b, f.Admin, gold, apierr.CodeBadRequest)
	want(b, f.Admin, "custom_fields.tier=silver", "Deal B")
	// The archived field's value is hidden from a list built from the definitions (its
	// archived keys come from them) and shown again once it is unarchived.
	shown := func(wantScore bool) {
		t.Helper()
		params, err := workspace.ParseListParams(deals, url.Values{"custom_fields.tier": {"silver"}})
		if err != nil {
			t.Fatal(err)
		}
		page, err := b.List(ctx, f.Admin, deals, params)
		if err != nil {
			t.Fatal(err)
		}
		var recs []struct {
			CustomFields map[string]json.RawMessage `json:"custom_fields"`
		}
		if err := json.Unmarshal(page.Data, &recs); err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || recs[0].CustomFields["tier"] == nil {
			t.Fatalf("custom_fields.tier=silver: %s", page.Data)
		}
		if _, ok := recs[0].CustomFields["score"]; ok != wantScore {
			t.Errorf("custom_fields.tier=silver with score archived=%v: %s", !wantScore, page.Data)
		}
	}
	shown(false)
	change(score, `{"archived": false}`)
	shown(true)
	want(b, f.Admin, gold, "Deal A", "Deal C")

	// The gates, on the replica keeping the definitions.
	refused(b, f.Member, gold, apierr.CodeInsufficientPermission)
	want(b, crmReader, gold, "Deal A", "Deal C")
	refused(b, other.Admin, gold, apierr.CodeBadRequest)
	refused(b, other.Admin, "custom_fields.tier=gold", apierr.CodeBadRequest)
}

// TestKeptFieldsWithoutDefinitions: a resource without custom field definitions is kept
// too (workspace/fieldcache.go), so a second q list on it is one round trip, and a field
// defined through another replica is seen by the next list: a searchable one's value
// matches q.
func TestKeptFieldsWithoutDefinitions(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	f := storetest.Workspace(t, s, workspace.Scopes())
	sb, batches := countedReplica(t)
	a := workspace.NewOps(workspace.Config{Store: s})
	b := workspace.NewOps(workspace.Config{Store: sb})
	deals := workspace.Lookup("deals")
	pipeline := ""
	if err := storetest.Pool(t).QueryRow(ctx, `INSERT INTO pipelines (workspace_id, name) VALUES ($1, 'P') RETURNING id::text`, f.WorkspaceID).Scan(&pipeline); err != nil {
		t.Fatal(err)
	}
	create := func(body string) {
		t.Helper()
		if _, err := a.Post(ctx, f.Admin, workspace.OpCreate, deals, workspace.NewBody([]byte(body)), ""); err != nil {
			t.Fatal(err)
		}
	}
	create(`{"name": "Harbour refit", "pipeline_id": "` + pipeline + `"}`)

	// names lists deals matching q through b as the admin: their names.
	names := func(q string) []string {
		t.Helper()
		params, err := workspace.ParseListParams(deals, url.Values{"q": {q}})
		if err != nil {
			t.Fatal(err)
		}
		page, err := b.List(ctx, f.Admin, deals, params)
		if err != nil {
			t.Fatal(err)
		}
		var recs []struct{ Name string }
		if err := json.Unmarshal(page.Data, &recs); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.Name)
		}
		return out
	}
	if got := names("harbour"); len(got) != 1 {
		t.Fatalf("q=harbour: %v, want Harbour refit", got)
	}
	batches.Store(0)
	if got := names("harbour"); len(got) != 1 {
		t.Fatalf("q=harbour again: %v, want Harbour refit", got)
	}
	if n := batches.Load(); n != 1 {
		t.Errorf("a q list on a resource without definitions, kept, sent %d statements and batches, want 1", n)
	}

	if _, err := a.Post(ctx, f.Admin, workspace.OpCreate, workspace.Lookup("custom_fields"), workspace.NewBody([]byte(
		`{"resource": "deals", "key": "vessel", "label": "Vessel", "type": "text", "searchable": true}`)), ""); err != nil {
		t.Fatal(err)
	}
	create(`{"name": "Dry dock", "pipeline_id": "` + pipeline + `", "custom_fields": {"vessel": "Kestrel"}}`)
	if got := names("kestrel"); len(got) != 1 || got[0] != "Dry dock" {
		t.Errorf("q=kestrel after a searchable field was defined on another replica: %v, want Dry dock", got)
	}
}

// countedReplica opens a second store on the test database, as another process of the
// deployment would, and counts the statements and batches it sends.
func countedReplica(t *testing.T) (*store.Store, *atomic.Int64) {
	t.Helper()
	batches := new(atomic.Int64)
	sb, err := store.OpenWith(context.Background(), storetest.DSN(t), store.Options{Observe: func(error) { batches.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	return sb, batches
}
