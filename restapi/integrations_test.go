package restapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// Tests of docs/rest.md, "For integrations": Idempotency-Key on POST, conditional requests,
// incremental sync.

// post sends a POST with an Idempotency-Key.
func (c client) postKey(path, key string, body any) response {
	c.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.e.doT(c.t, "POST", path, c.token, testAPIKey, string(raw), "Idempotency-Key", key)
}

func (e *env) count(t testing.TB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := storetest.Pool(t).QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIdempotencyKeyReplaysCreates: the same key and body replays the first response
// (status, body, Idempotent-Replayed: true) and writes nothing; another body is a 422
// idempotency_conflict; a failed request stores nothing; keys belong to one credential.
func TestIdempotencyKeyReplaysCreates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Member)
	labels := func(name string) int {
		return e.count(t, `SELECT count(*) FROM labels WHERE workspace_id = $1 AND name = $2`, f.WorkspaceID, name)
	}
	key := uuid.NewString()

	first := must(t, c.postKey("/labels", key, map[string]any{"name": "idem"}), http.StatusCreated)
	if first.Header.Get("Idempotent-Replayed") != "" || first.Header.Get("ETag") == "" {
		t.Fatalf("first response headers: %v", first.Header)
	}
	again := must(t, c.postKey("/labels", key, map[string]any{"name": "idem"}), http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay lacks Idempotent-Replayed: true: %v", again.Header)
	}
	if string(again.Raw) != string(first.Raw) || again.Header.Get("ETag") != first.Header.Get("ETag") {
		t.Fatalf("replayed body differs:\n%s\n%s", first.Raw, again.Raw)
	}
	// Re-encoding the same object (members in another order, other spacing) is the same request.
	r := e.doT(t, "POST", "/labels", c.token, testAPIKey, `{ "name" : "idem" }`, "Idempotency-Key", key)
	if must(t, r, http.StatusCreated).Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("a re-encoded body was not replayed")
	}
	if n := labels("idem"); n != 1 {
		t.Fatalf("%d labels written, want 1", n)
	}

	t.Run("another body is a conflict", func(t *testing.T) {
		c := e.as(t, f.Member)
		c.token = e.token(f.Member)
		r := c.postKey("/labels", key, map[string]any{"name": "other"})
		wantError(t, r, http.StatusUnprocessableEntity, "idempotency_conflict")
		if labels("other") != 0 {
			t.Fatal("the conflicting request wrote")
		}
	})
	t.Run("another resource is a conflict", func(t *testing.T) {
		r := e.as(t, f.Member).postKey("/spaces", key, map[string]any{"name": "idem"})
		wantError(t, r, http.StatusUnprocessableEntity, "idempotency_conflict")
	})
	t.Run("another credential has its own keys", func(t *testing.T) {
		r := must(t, e.as(t, f.Admin).postKey("/labels", key, map[string]any{"name": "idem"}), http.StatusCreated)
		if r.Header.Get("Idempotent-Replayed") != "" || r.data()["id"] == first.data()["id"] {
			t.Fatalf("another credential's request was replayed: %s", r.Raw)
		}
	})
	t.Run("a failed request stores nothing", func(t *testing.T) {
		c := e.as(t, f.Member)
		k := uuid.NewString()
		wantFieldError(t, c.postKey("/labels", k, map[string]any{"name": 7}), "name")
		must(t, c.postKey("/labels", k, map[string]any{"name": "after failure"}), http.StatusCreated)
		if labels("after failure") != 1 {
			t.Fatal("the retry after a failure did not write")
		}
	})
	t.Run("malformed keys", func(t *testing.T) {
		c := e.as(t, f.Member)
		wantError(t, c.postKey("/labels", strings.Repeat("k", 256), map[string]any{"name": "long"}), http.StatusBadRequest, "bad_request")
		wantError(t, c.postKey("/labels", "caf\u00e9", map[string]any{"name": "long"}), http.StatusBadRequest, "bad_request")
		if labels("long") != 0 {
			t.Fatal("a request with a malformed key wrote")
		}
	})
	t.Run("detach", func(t *testing.T) {
		c := e.as(t, f.Admin)
		space := must(t, c.post("/spaces", map[string]any{"name": "room"}), http.StatusCreated).data()["id"]
		link := map[string]any{"space_id": space, "user_id": f.Member.UserID}
		must(t, c.post("/space_members", link), http.StatusCreated)
		k := uuid.NewString()
		d1 := must(t, c.postKey("/space_members?detach=true", k, link), http.StatusOK)
		d2 := must(t, c.postKey("/space_members?detach=true", k, link), http.StatusOK)
		if d2.Header.Get("Idempotent-Replayed") != "true" || string(d1.Raw) != string(d2.Raw) {
			t.Fatalf("detach was not replayed: %s / %s", d1.Raw, d2.Raw)
		}
		// The same key and body as a create (no detach flag) is another operation.
		wantError(t, c.postKey("/space_members", k, link), http.StatusUnprocessableEntity, "idempotency_conflict")
	})
}

// TestIdempotencyKeyParallelCreates: ten identical requests at once write one deal; every
// other answer is the replayed response or 409 idempotency_in_flight.
func TestIdempotencyKeyParallelCreates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	pipeline := must(t, c.post("/pipelines", map[string]any{"name": "P"}), http.StatusCreated).data()["id"]
	key := uuid.NewString()
	body := map[string]any{"name": "parallel deal", "pipeline_id": pipeline}
	var wg sync.WaitGroup
	results := make([]response, 10)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.postKey("/deals", key, body)
		}()
	}
	wg.Wait()
	fresh, replayed, inFlight := 0, 0, 0
	var id any
	for _, r := range results {
		switch {
		case r.Status == http.StatusCreated && r.Header.Get("Idempotent-Replayed") == "":
			fresh++
			id = r.data()["id"]
		case r.Status == http.StatusCreated:
			replayed++
		case r.Status == http.StatusConflict:
			wantError(t, r, http.StatusConflict, "idempotency_in_flight")
			inFlight++
		default:
			t.Fatalf("unexpected answer %d %s", r.Status, r.Raw)
		}
	}
	t.Logf("fresh %d, replayed %d, in flight %d", fresh, replayed, inFlight)
	if fresh != 1 {
		t.Fatalf("%d requests wrote, want 1", fresh)
	}
	for _, r := range results {
		if r.Status == http.StatusCreated && r.data()["id"] != id {
			t.Fatalf("a replay returned another deal: %s", r.Raw)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM deals WHERE workspace_id = $1 AND name = 'parallel deal'`, f.WorkspaceID); n != 1 {
		t.Fatalf("%d deals written, want 1", n)
	}
}

// blockingProvider is an enrichment provider that counts lookups and holds each until
// released, so a request can be kept in flight.
type blockingProvider struct {
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func (p *blockingProvider) Lookup(ctx context.Context, domain string) (enrich.Company, error) {
	p.calls.Add(1)
	p.entered <- struct{}{}
	<-p.release
	return enrich.Company{Domain: domain, Name: "Example"}, nil
}

// TestIdempotencyKeyEnrichChargesOnce: ten identical enrichments at once while the first
// is in flight: nine answer 409 idempotency_in_flight, one looks up and charges one credit;
// a retry afterwards replays it and charges nothing.
func TestIdempotencyKeyEnrichChargesOnce(t *testing.T) {
	t.Parallel()
	provider := &blockingProvider{entered: make(chan struct{}, 10), release: make(chan struct{})}
	e := newEnv(t, func(cfg *envConfig) {
		svc := enrich.NewService(enrich.ServiceConfig{Store: cfg.Store, Provider: provider, Cost: 1})
		cfg.Enricher = workspace.EnricherFunc(func(ctx context.Context, p *auth.Principal, domain string) (any, error) {
			res, err := svc.Enrich(ctx, p, domain)
			if err != nil {
				return nil, err
			}
			return res, nil
		})
	})
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	ctx := context.Background()
	if _, err := e.store.GrantCredits(ctx, f.WorkspaceID, 5, store.By{}); err != nil {
		t.Fatal(err)
	}
	c := e.as(t, f.Admin)
	key := uuid.NewString()
	results := make(chan response, 10)
	for range 10 {
		go func() { results <- c.postKey("/enrich", key, map[string]any{"domain": "example.com"}) }()
	}
	var got []response
	for len(got) < 9 {
		select {
		case r := <-results:
			got = append(got, r)
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d answers while the first enrichment is held", len(got))
		}
	}
	<-provider.entered
	close(provider.release)
	got = append(got, <-results)
	ok := 0
	for _, r := range got {
		switch r.Status {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			wantError(t, r, http.StatusConflict, "idempotency_in_flight")
		default:
			t.Fatalf("unexpected answer %d %s", r.Status, r.Raw)
		}
	}
	if ok != 1 || provider.calls.Load() != 1 {
		t.Fatalf("%d answers 200 and %d lookups, want 1 and 1", ok, provider.calls.Load())
	}
	replay := must(t, c.postKey("/enrich", key, map[string]any{"domain": "example.com"}), http.StatusOK)
	if replay.Header.Get("Idempotent-Replayed") != "true" || replay.data()["credits_spent"] != float64(1) {
		t.Fatalf("replay: %v %s", replay.Header, replay.Raw)
	}
	if n := e.count(t, `SELECT balance::int FROM credit_balances WHERE workspace_id = $1`, f.WorkspaceID); n != 4 {
		t.Fatalf("balance %d after one charged lookup of 5 credits, want 4", n)
	}
	if provider.calls.Load() != 1 {
		t.Fatalf("%d lookups, want 1", provider.calls.Load())
	}
}

// TestIdempotencyKeyExpiry: a key past its 24 hours runs the request again, and the
// sweeper deletes expired keys.
func TestIdempotencyKeyExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Member)
	ctx := context.Background()
	key := uuid.NewString()
	first := must(t, c.postKey("/labels", key, map[string]any{"name": "expiring"}), http.StatusCreated)
	if n := e.count(t, `SELECT count(*) FROM idempotency_keys WHERE workspace_id = $1 AND key = $2
		AND expires_at BETWEEN now() + interval '23 hours 59 minutes' AND now() + interval '24 hours 1 minute'`, f.WorkspaceID, key); n != 1 {
		t.Fatalf("%d keys kept for 24 hours, want 1", n)
	}
	// A day passes.
	if _, err := storetest.Pool(t).Exec(ctx, `UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
		WHERE workspace_id = $1 AND key = $2`, f.WorkspaceID, key); err != nil {
		t.Fatal(err)
	}
	second := must(t, c.postKey("/labels", key, map[string]any{"name": "expiring"}), http.StatusCreated)
	if second.Header.Get("Idempotent-Replayed") != "" || second.data()["id"] == first.data()["id"] {
		t.Fatalf("an expired key replayed: %s", second.Raw)
	}
	if n := e.count(t, `SELECT count(*) FROM labels WHERE workspace_id = $1 AND name = 'expiring'`, f.WorkspaceID); n != 2 {
		t.Fatalf("%d labels, want 2", n)
	}
	// A request that died mid-way (its process crashed) leaves its key in flight: 409
	// until the lease ends, then the key is claimed again.
	crashed := uuid.NewString()
	must(t, c.postKey("/labels", crashed, map[string]any{"name": "crashed"}), http.StatusCreated)
	if _, err := storetest.Pool(t).Exec(ctx, `UPDATE idempotency_keys SET response_status = NULL, response_body = NULL,
		locked_until = now() + interval '1 minute' WHERE workspace_id = $1 AND key = $2`, f.WorkspaceID, crashed); err != nil {
		t.Fatal(err)
	}
	wantError(t, c.postKey("/labels", crashed, map[string]any{"name": "crashed"}), http.StatusConflict, "idempotency_in_flight")
	if _, err := storetest.Pool(t).Exec(ctx, `UPDATE idempotency_keys SET locked_until = now() - interval '1 second'
		WHERE workspace_id = $1 AND key = $2`, f.WorkspaceID, crashed); err != nil {
		t.Fatal(err)
	}
	r := must(t, c.postKey("/labels", crashed, map[string]any{"name": "crashed"}), http.StatusCreated)
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("a key whose lease ran out was replayed instead of claimed")
	}

	// The sweeper deletes what expired, and nothing else.
	other := uuid.NewString()
	must(t, c.postKey("/labels", other, map[string]any{"name": "kept"}), http.StatusCreated)
	if _, err := storetest.Pool(t).Exec(ctx, `UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
		WHERE workspace_id = $1 AND key = $2`, f.WorkspaceID, key); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SweepIdempotencyKeys(ctx, e.store, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n := e.count(t, `SELECT count(*) FROM idempotency_keys WHERE workspace_id = $1`, f.WorkspaceID); n != 2 {
		t.Fatalf("%d keys after the sweep, want 2", n)
	}
	if n := e.count(t, `SELECT count(*) FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`, f.WorkspaceID, other); n != 1 {
		t.Fatal("the sweep deleted a live key")
	}
}

// TestConditionalRequests: ETag on GET, PATCH and POST; If-None-Match answers 304;
// If-Match updates only the named version and otherwise answers 412, atomically under
// concurrent writers.
func TestConditionalRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Member)
	created := must(t, c.post("/labels", map[string]any{"name": "v1"}), http.StatusCreated)
	id := created.data()["id"].(string)
	v1 := created.Header.Get("ETag")
	if !strings.HasPrefix(v1, `"`) || !strings.HasSuffix(v1, `"`) || len(v1) < 3 {
		t.Fatalf("POST ETag %q is not a strong entity tag", v1)
	}
	get := func(headers ...string) response {
		return e.doT(t, "GET", "/labels/"+id, c.token, testAPIKey, "", headers...)
	}
	if got := must(t, get(), http.StatusOK).Header.Get("ETag"); got != v1 {
		t.Fatalf("GET ETag %q, POST gave %q", got, v1)
	}
	for _, inm := range []string{v1, "W/" + v1, `"other", ` + v1, "*"} {
		r := get("If-None-Match", inm)
		if r.Status != http.StatusNotModified || len(r.Raw) != 0 || r.Header.Get("ETag") != v1 {
			t.Fatalf("If-None-Match %s: %d %q ETag %q", inm, r.Status, r.Raw, r.Header.Get("ETag"))
		}
	}
	must(t, get("If-None-Match", `"other"`), http.StatusOK)

	patch := func(ifMatch string, name string) response {
		return e.doT(t, "PATCH", "/labels/"+id, c.token, testAPIKey, fmt.Sprintf(`{"name": %q}`, name), "If-Match", ifMatch)
	}
	p2 := must(t, patch(v1, "v2"), http.StatusOK)
	v2 := p2.Header.Get("ETag")
	if v2 == "" || v2 == v1 {
		t.Fatalf("PATCH ETag %q after %q", v2, v1)
	}
	if got := must(t, get(), http.StatusOK).Header.Get("ETag"); got != v2 {
		t.Fatalf("GET ETag %q after PATCH gave %q", got, v2)
	}
	must(t, get("If-None-Match", v1), http.StatusOK)

	stale := patch(v1, "lost update")
	wantError(t, stale, http.StatusPreconditionFailed, "precondition_failed")
	for _, bad := range []string{"W/" + v2, `"not-ours"`, "garbage"} {
		wantError(t, patch(bad, "lost update"), http.StatusPreconditionFailed, "precondition_failed")
	}
	if n := e.count(t, `SELECT count(*) FROM labels WHERE id = $1 AND name = 'v2'`, id); n != 1 {
		t.Fatal("a failed precondition changed the record")
	}
	wantError(t, e.doT(t, "PATCH", "/labels/"+uuid.NewString(), c.token, testAPIKey, `{"name":"x"}`, "If-Match", v2),
		http.StatusNotFound, "not_found")
	must(t, patch(`"other", `+v2, "v3"), http.StatusOK)
	must(t, patch("*", "v4"), http.StatusOK)

	t.Run("concurrent writers with the same If-Match: one wins", func(t *testing.T) {
		current := must(t, get(), http.StatusOK).Header.Get("ETag")
		var wg sync.WaitGroup
		results := make([]response, 10)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = e.doT(t, "PATCH", "/labels/"+id, c.token, testAPIKey, fmt.Sprintf(`{"name": "writer %d"}`, i), "If-Match", current)
			}()
		}
		wg.Wait()
		won := 0
		for _, r := range results {
			if r.Status == http.StatusOK {
				won++
				continue
			}
			wantError(t, r, http.StatusPreconditionFailed, "precondition_failed")
		}
		if won != 1 {
			t.Fatalf("%d writers won, want 1", won)
		}
	})
	t.Run("the workspace singleton", func(t *testing.T) {
		c := e.as(t, f.Admin)
		w := must(t, c.get("/workspace/"+f.WorkspaceID), http.StatusOK)
		tag := w.Header.Get("ETag")
		r := e.doT(t, "PATCH", "/workspace", c.token, testAPIKey, `{"name": "renamed"}`, "If-Match", tag)
		must(t, r, http.StatusOK)
		r = e.doT(t, "PATCH", "/workspace", c.token, testAPIKey, `{"name": "renamed again"}`, "If-Match", tag)
		wantError(t, r, http.StatusPreconditionFailed, "precondition_failed")
	})
}

// TestIncrementalSync walks labels changed since T0 in order=updated_at, 20 a page, while
// 1,000 updates are made between pages (four writers at a time): every label updated
// after T0 comes exactly once, none updated before it, in updated_at order.
func TestIncrementalSync(t *testing.T) {
	// Not parallel: a sync page stops at the start of the oldest transaction in flight in
	// the database that could write the workspace (docs/rest.md, "Incremental sync"), and
	// the package's parallel tests share this database; one of them seeding 100,000 deals
	// held the horizon back long enough to end this walk early ("240 updates still to
	// make"). Run alone, the walk sees only its own writes.
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	ctx := context.Background()
	rows, err := storetest.Pool(t).Query(ctx, `INSERT INTO labels (workspace_id, created_by, name)
		SELECT $1, $2, 'sync ' || g FROM generate_series(1, 1200) g RETURNING id::text`, f.WorkspaceID, f.Admin.UserID)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		all = append(all, id)
	}
	if len(all) != 1200 {
		t.Fatalf("seeded %d labels", len(all))
	}
	c := e.as(t, f.Member)
	// 100 labels change before T0: the sync must not return them.
	for _, id := range all[1100:] {
		must(t, c.patch("/labels/"+id, map[string]any{"name": "before T0"}), http.StatusOK)
	}
	time.Sleep(2 * time.Millisecond)
	t0 := time.Now().UTC()
	toUpdate := all[:1000]
	update := func(ids []string) {
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(ids); i += 4 {
					must(t, c.patch("/labels/"+ids[i], map[string]any{"name": "changed"}), http.StatusOK)
				}
			}()
		}
		wg.Wait()
	}
	update(toUpdate[:100]) // changes before the walk starts
	toUpdate = toUpdate[100:]

	seen := map[string]int{}
	var last time.Time
	base := "/labels?order=updated_at&limit=20&updated_since=" + url.QueryEscape(t0.Format(time.RFC3339Nano))
	next := base
	for pages := 0; ; pages++ {
		if pages > 200 {
			t.Fatal("the sync does not end")
		}
		r := must(t, c.get(next), http.StatusOK)
		for _, rec := range r.list() {
			seen[rec["id"].(string)]++
			at, err := time.Parse(time.RFC3339Nano, rec["updated_at"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if at.Before(last) {
				t.Fatalf("updated_at %v after %v: not in updated_at order", at, last)
			}
			last = at
		}
		// Writes go on while the integration pages: 20 more labels change.
		if len(toUpdate) > 0 {
			n := min(20, len(toUpdate))
			update(toUpdate[:n])
			toUpdate = toUpdate[n:]
		}
		cur, _ := r.Body["next_cursor"].(string)
		if cur == "" {
			if len(toUpdate) > 0 {
				t.Fatalf("the walk ended with %d updates still to make", len(toUpdate))
			}
			break
		}
		next = base + "&cursor=" + cur
	}
	for _, id := range all[:1000] {
		if seen[id] != 1 {
			t.Fatalf("label %s updated after T0 came %d times, want once", id, seen[id])
		}
	}
	if len(seen) != 1000 {
		t.Fatalf("the sync returned %d labels, want the 1000 updated after T0", len(seen))
	}

	t.Run("cursors carry their order", func(t *testing.T) {
		r := must(t, c.get("/labels?order=updated_at&limit=1"), http.StatusOK)
		syncCursor := r.Body["next_cursor"].(string)
		r = must(t, c.get("/labels?limit=1"), http.StatusOK)
		createdCursor := r.Body["next_cursor"].(string)
		for _, path := range []string{"/labels?cursor=" + syncCursor, "/labels?order=created_at&cursor=" + syncCursor,
			"/labels?order=updated_at&cursor=" + createdCursor} {
			r := c.get(path)
			wantError(t, r, http.StatusBadRequest, "bad_request")
			wantMessage(t, r, "order")
		}
		must(t, c.get("/labels?order=updated_at&cursor="+syncCursor), http.StatusOK)
	})
	t.Run("bad parameters", func(t *testing.T) {
		for _, path := range []string{"/labels?updated_since=yesterday", "/labels?updated_since=2026-01-31",
			"/labels?order=name", "/labels?order=updated_at&order=created_at"} {
			wantError(t, c.get(path), http.StatusBadRequest, "bad_request")
		}
	})
}

// TestUpdatedAtIsTheLastColumn guards what entityTag relies on: every record's JSON ends
// with its updated_at.
func TestUpdatedAtIsTheLastColumn(t *testing.T) {
	for _, r := range workspace.Catalog() {
		if cols := workspace.Columns(r); cols[len(cols)-1] != "updated_at" {
			t.Errorf("%s: columns end with %q, not updated_at", r.Name, cols[len(cols)-1])
		}
	}
}

// TestEntityTagIsTheRecordsUpdatedAt: the ETag names the record's own updated_at, even when
// a JSON field or a text field holds an "updated_at" of its own.
func TestEntityTagIsTheRecordsUpdatedAt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	decoy := map[string]any{"updated_at": "2000-01-01T00:00:00Z", "nested": map[string]any{"updated_at": "2001-01-01T00:00:00Z"}}
	created := must(t, c.post("/org_chart", map[string]any{
		"title": `"updated_at":"1999-01-01T00:00:00Z"`, "kpis": decoy}), http.StatusCreated)
	id := created.data()["id"].(string)
	for _, r := range []response{created, must(t, c.get("/org_chart/"+id), http.StatusOK)} {
		updated, err := time.Parse(time.RFC3339Nano, r.data()["updated_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if want := `"` + strconv.FormatInt(updated.UnixMicro(), 36) + `"`; r.Header.Get("ETag") != want {
			t.Fatalf("ETag %q, want %q (updated_at %s)", r.Header.Get("ETag"), want, updated)
		}
	}
}
