package restapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// references maps "table.column" to the resource a uuid column refers to, read from the
// schema's composite foreign keys ((workspace_id, x_id) REFERENCES x (workspace_id, id)), so
// bodies are built from the catalogue and the database alone and a new resource needs no
// entry here. A uuid column without a foreign key takes any uuid (canvases.folder_id),
// except the polymorphic comments.entity_id: value() gives entity_type its first enum
// value, "deal", so the entity is a deal.
func references(t testing.TB) map[string]string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storetest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	byTable := map[string]string{}
	for _, r := range workspace.Catalog() {
		byTable[r.Table] = r.Name
	}
	rows, err := conn.Query(ctx, `SELECT c.conrelid::regclass::text, a.attname, c.confrelid::regclass::text
		FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
		WHERE c.contype = 'f' AND cardinality(c.conkey) = 2 AND a.attname <> 'workspace_id'`)
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]string{"comments.entity_id": "deals"}
	for rows.Next() {
		var table, column, parent string
		if err := rows.Scan(&table, &column, &parent); err != nil {
			t.Fatal(err)
		}
		refs[table+"."+column] = byTable[parent]
		if byTable[parent] == "" {
			refs[table+"."+column] = "table " + parent + " (not a resource)"
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return refs
}

// allFull grants every feature in full; allRead every feature read-only.
func grantsAll(level string) map[string]string {
	g := map[string]string{}
	for _, f := range store.Features {
		g[f] = level
	}
	return g
}

// world is one workspace with a record in every table and principals of every kind.
type world struct {
	e     *env
	id    string
	admin *auth.Principal   // admin, every scope
	full  *auth.Principal   // member, every grant full, every scope
	read  *auth.Principal   // member, every grant read, every scope
	none  *auth.Principal   // member, no grants, every scope
	refs  map[string]string // "table.column" -> resource, see references
}

func newWorld(t testing.TB, e *env) *world {
	t.Helper()
	all := workspace.Scopes()
	f := storetest.Workspace(t, e.store, all)
	w := &world{e: e, id: f.WorkspaceID, admin: f.Admin, none: f.Member, refs: references(t),
		full: storetest.AddUser(t, e.store, f.WorkspaceID, "member", grantsAll("full"), all),
		read: storetest.AddUser(t, e.store, f.WorkspaceID, "member", grantsAll("read"), all)}
	ctx := context.Background()
	if err := e.store.SeedRecords(ctx, f.WorkspaceID, f.Admin.UserID); err != nil {
		t.Fatal(err)
	}
	// Resources the API cannot create (read-only ones) need a row to test with; a new one
	// the hand-written seed does not know gets one made from the schema.
	if err := e.store.SeedEmptyTables(ctx, f.WorkspaceID, f.Admin.UserID, workspace.RecordTables()); err != nil {
		t.Fatal(err)
	}
	// The seed's attachment hangs off a task; point it at the deal task too, so the
	// crm_task_id filter has a value to find.
	if _, err := storetest.Pool(t).Exec(ctx, `UPDATE task_attachments SET crm_task_id =
		(SELECT id FROM deal_tasks WHERE workspace_id = $1 LIMIT 1) WHERE workspace_id = $1`, f.WorkspaceID); err != nil {
		t.Fatal(err)
	}
	return w
}

// writer is who writes r in the matrix: admins for admin-only resources, else the member
// with full grants (so member paths are what the matrix exercises).
func (w *world) writer(r *workspace.Resource) *auth.Principal {
	if r.AdminWrites || r.AdminOnly {
		return w.admin
	}
	return w.full
}

// withScopes clones p with other scopes.
func withScopes(p *auth.Principal, scopes []string) *auth.Principal {
	c := *p
	c.Scopes = scopes
	return &c
}

// scopesWithout is the catalogue's scopes minus those of one resource scope name, plus
// extra.
func scopesWithout(name string, extra ...string) []string {
	var out []string
	for _, s := range workspace.Scopes() {
		if !strings.HasPrefix(s, name+":") {
			out = append(out, s)
		}
	}
	return append(out, extra...)
}

// value is a valid body value for f of r in w, creating referenced records as needed.
func (w *world) value(t testing.TB, c client, r *workspace.Resource, f workspace.Field) any {
	t.Helper()
	if len(f.Enum) > 0 {
		return f.Enum[0]
	}
	if r.Name == "custom_fields" && f.Name == "key" { // distinct and snake_case
		return "k_" + strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	}
	if f.Example != "" {
		return f.ExampleValue()
	}
	switch f.Type {
	case workspace.UUID: // a reference: the record must exist
		return w.parent(t, c, r.Table+"."+f.Name)
	case workspace.UUIDs:
		return []string{w.admin.UserID}
	case workspace.String: // distinct, for unique names
		return fmt.Sprintf("%s %s", f.Name, uuid.NewString()[:8])
	}
	return f.Type.Example()
}

// parent returns the id of a fresh record that column ("table.column") may refer to.
func (w *world) parent(t testing.TB, c client, column string) string {
	t.Helper()
	res, ok := w.refs[column]
	if !ok {
		return uuid.NewString() // no foreign key: any uuid will do
	}
	if res == "users" {
		return storetest.AddUser(t, w.e.store, w.id, "member", nil, nil).UserID
	}
	r := workspace.Lookup(res)
	if r == nil || !r.CanCreate() {
		t.Fatalf("%s refers to %s, which the API cannot create", column, res)
	}
	return w.create(t, c, r, nil)["id"].(string)
}

// body builds a create body: the required fields plus extra fields.
func (w *world) body(t testing.TB, c client, r *workspace.Resource, extra []workspace.Field) map[string]any {
	t.Helper()
	b := map[string]any{}
	for _, f := range append(r.Required(), extra...) {
		if _, done := b[f.Name]; !done {
			b[f.Name] = w.value(t, c, r, f)
		}
	}
	return b
}

// create makes a record of r with the required fields plus extra and returns it.
func (w *world) create(t testing.TB, c client, r *workspace.Resource, extra []workspace.Field) map[string]any {
	t.Helper()
	return must(t, c.post("/"+r.Name, w.body(t, c, r, extra)), http.StatusCreated).data()
}

// writableFilters are the filter fields a create body can set.
func writableFilters(r *workspace.Resource) []workspace.Field {
	var out []workspace.Field
	for _, f := range r.Filters() {
		if f.Writable {
			out = append(out, f)
		}
	}
	return out
}

// filterValue renders a record's value as a query value, and a value that cannot match.
func filterValue(f workspace.Field, v any) (match, other string) {
	switch x := v.(type) {
	case bool:
		return fmt.Sprint(x), fmt.Sprint(!x)
	case string:
		if len(f.Enum) > 0 {
			for _, e := range f.Enum {
				if e != x {
					return x, e
				}
			}
		}
		switch f.Type {
		case workspace.UUID:
			return x, uuid.NewString()
		case workspace.String:
			return x, "no-such-" + uuid.NewString()[:8]
		}
		return x, "" // another formatted text (a date, a timestamp): no miss to try
	}
	return fmt.Sprint(v), ""
}

// patchValue is a valid new value for the first patchable field of r.
// Plain strings come first, enumerations last (changing comments.entity_type would point
// the comment at a missing entity).
func patchField(r *workspace.Resource) (workspace.Field, any) {
	for _, kind := range []workspace.Type{workspace.String, workspace.Number, workspace.Date, workspace.Int, workspace.Bool} {
		for _, f := range r.Writable() {
			if f.Type != kind || len(f.Enum) > 0 || f.Example != "" { // an Example field has further checks
				continue
			}
			switch kind {
			case workspace.String:
				return f, "patched " + uuid.NewString()[:8]
			case workspace.Number:
				return f, 99.5
			case workspace.Date:
				return f, "2026-02-01"
			case workspace.Int:
				return f, 2
			case workspace.Bool:
				return f, false
			}
		}
	}
	for _, f := range r.Writable() {
		if len(f.Enum) > 0 {
			return f, f.Enum[len(f.Enum)-1]
		}
	}
	panic("no patchable field in " + r.Name)
}

// TestCatalogMatrix runs every operation of every resource of the catalogue, in two
// workspaces and as several principals: creates with the required fields, 422s for each
// required field missing, enum and uuid errors, lists, each filter narrowing, get, patch,
// isolation from the other workspace, both gates, and 405 for DELETE.
func TestCatalogMatrix(t *testing.T) {
	e := newEnv(t)
	a, b := newWorld(t, e), newWorld(t, e)
	for _, r := range workspace.Catalog() {
		if r.Access == workspace.WriteOnly {
			continue // enrich: its own tests
		}
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			matrix(t, e, a, b, r)
		})
	}
}

func matrix(t *testing.T, e *env, a, b *world, r *workspace.Resource) {
	path := "/" + r.Name
	cw := e.as(t, a.writer(r))
	cb := e.as(t, b.writer(r))

	// The record under test: created with the required fields and every writable filter,
	// or, for resources the API does not create, one the seed (or the fixture) made.
	var rec, other map[string]any
	switch {
	case r.CanCreate():
		t.Run("create with only the required fields", func(t *testing.T) {
			c := client{e, t, cw.token}
			got := a.create(t, c, r, nil)
			for _, col := range workspace.Columns(r) {
				if _, ok := got[col]; !ok {
					t.Errorf("created record lacks %s: %v", col, got)
				}
			}
		})
		rec = a.create(t, cw, r, writableFilters(r))
		other = b.create(t, cb, r, writableFilters(r))
	case r.Name == "users":
		rec = must(t, cw.get("/users/"+a.full.UserID), http.StatusOK).data()
		other = must(t, cb.get("/users/"+b.full.UserID), http.StatusOK).data()
	default:
		recs := must(t, cw.get(path), http.StatusOK).list()
		others := must(t, cb.get(path), http.StatusOK).list()
		if len(recs) == 0 || len(others) == 0 {
			t.Fatalf("no %s records to test with (seed)", r.Name)
		}
		rec, other = recs[0], others[0]
	}
	id, otherID := rec["id"].(string), other["id"].(string)

	if r.CanCreate() {
		t.Run("validation", func(t *testing.T) {
			c := client{e, t, cw.token}
			valid := a.body(t, c, r, nil)
			for _, f := range r.Required() {
				without := clone(valid)
				delete(without, f.Name)
				wantFieldError(t, c.post(path, without), f.Name)
				if f.Type == workspace.String && len(f.Enum) == 0 {
					empty := clone(valid)
					empty[f.Name] = ""
					wantFieldError(t, c.post(path, empty), f.Name)
				}
				null := clone(valid)
				null[f.Name] = nil
				wantFieldError(t, c.post(path, null), f.Name)
			}
			for _, f := range r.Writable() {
				bad := clone(valid)
				switch {
				case len(f.Enum) > 0:
					bad[f.Name] = "not-an-option"
					res := c.post(path, bad)
					wantFieldError(t, res, f.Name)
					wantMessage(t, res, strings.Join(f.Enum, ", "))
				case f.Type == workspace.UUID:
					bad[f.Name] = "not-a-uuid"
					wantFieldError(t, c.post(path, bad), f.Name)
				case f.Type == workspace.UUIDs:
					bad[f.Name] = []string{"not-a-uuid"}
					wantFieldError(t, c.post(path, bad), f.Name)
				case f.Type == workspace.Bool:
					bad[f.Name] = nil
					wantFieldError(t, c.post(path, bad), f.Name)
				case f.Type == workspace.Int && f.Max != nil:
					bad[f.Name] = *f.Max + 1
					wantFieldError(t, c.post(path, bad), f.Name)
				case f.Type == workspace.Date:
					bad[f.Name] = "31/01/2026"
					wantFieldError(t, c.post(path, bad), f.Name)
				case f.Type == workspace.Number:
					bad[f.Name] = "12"
					wantFieldError(t, c.post(path, bad), f.Name)
				}
			}
		})
	}

	t.Run("list", func(t *testing.T) {
		c := client{e, t, cw.token}
		got := c.listAll(path)
		if !ids(got)[id] {
			t.Fatalf("list of %s lacks %s", r.Name, id)
		}
		if ids(got)[otherID] {
			t.Fatalf("list of %s shows the other workspace's %s", r.Name, otherID)
		}
		if !r.Paged {
			if res := must(t, c.get(path+"?limit=1"), http.StatusOK); res.Body["next_cursor"] != nil || len(res.list()) > 1 {
				t.Fatalf("unpaged %s: want one bounded page with next_cursor null, got %s", r.Name, clipBody(res.Raw))
			}
		}
	})

	for _, f := range r.Filters() {
		t.Run("filter "+f.Name, func(t *testing.T) {
			c := client{e, t, cw.token}
			v := rec[f.Name]
			if v == nil {
				t.Skipf("the record has no %s", f.Name)
			}
			match, miss := filterValue(f, v)
			got := c.listAll(path + "?" + url.Values{f.Name: {match}}.Encode())
			if !ids(got)[id] {
				t.Fatalf("%s=%s does not return %s", f.Name, match, id)
			}
			for _, g := range got {
				if fmt.Sprint(g[f.Name]) != fmt.Sprint(v) {
					t.Fatalf("%s=%s returned a row with %s=%v", f.Name, match, f.Name, g[f.Name])
				}
			}
			if miss != "" {
				if got := c.listAll(path + "?" + url.Values{f.Name: {miss}}.Encode()); ids(got)[id] {
					t.Fatalf("%s=%s still returns %s", f.Name, miss, id)
				}
			}
		})
	}

	if r.CanGet() {
		t.Run("get", func(t *testing.T) {
			c := client{e, t, cw.token}
			got := must(t, c.get(path+"/"+id), http.StatusOK).data()
			if got["id"] != id {
				t.Fatalf("got %v", got)
			}
			wantError(t, c.get(path+"/"+otherID), http.StatusNotFound, "not_found")
			wantError(t, c.get(path+"/"+uuid.NewString()), http.StatusNotFound, "not_found")
		})
	}

	if r.CanUpdate() {
		t.Run("patch", func(t *testing.T) {
			c := client{e, t, cw.token}
			f, v := patchField(r)
			got := must(t, c.patch(path+"/"+id, map[string]any{f.Name: v}), http.StatusOK).data()
			if fmt.Sprint(got[f.Name]) != fmt.Sprint(v) {
				t.Fatalf("patched %s = %v, got %v", f.Name, v, got[f.Name])
			}
			cross := c
			if r.SelfOrAdmin { // a member's PATCH of anyone else is refused before the lookup
				cross = e.as(t, a.admin)
			}
			wantError(t, cross.patch(path+"/"+otherID, map[string]any{f.Name: v}), http.StatusNotFound, "not_found")
			wantFieldError(t, c.patch(path+"/"+id, map[string]any{f.Name: []int{1}}), f.Name)
		})
	}

	t.Run("scope", func(t *testing.T) {
		c := e.as(t, withScopes(a.writer(r), scopesWithout(r.Scope)))
		res := c.get(path)
		wantError(t, res, http.StatusForbidden, "insufficient_scope")
		wantMessage(t, res, r.Scope+":read")
		if r.CanCreate() || r.CanDetach() || r.CanUpdate() {
			ro := e.as(t, withScopes(a.writer(r), scopesWithout(r.Scope, r.Scope+":read")))
			must(t, ro.get(path), http.StatusOK)
			var res response
			if r.CanCreate() {
				res = ro.post(path, map[string]any{})
			} else {
				res = ro.patch(path+"/"+id, map[string]any{"x": 1})
			}
			wantError(t, res, http.StatusForbidden, "insufficient_scope")
			wantMessage(t, res, r.Scope+":write")
		}
	})

	if r.AdminOnly {
		t.Run("admin only", func(t *testing.T) {
			member := e.as(t, a.full) // every grant, every scope, not an admin
			wantError(t, member.get(path), http.StatusForbidden, "insufficient_permission")
			if r.CanGet() {
				wantError(t, member.get(path+"/"+id), http.StatusForbidden, "insufficient_permission")
			}
			if r.CanCreate() {
				wantError(t, member.post(path, a.body(t, cw, r, nil)), http.StatusForbidden, "insufficient_permission")
			}
			if r.CanUpdate() {
				f, v := patchField(r)
				wantError(t, member.patch(path+"/"+id, map[string]any{f.Name: v}), http.StatusForbidden, "insufficient_permission")
			}
		})
	}

	if r.Feature != workspace.NoFeature {
		t.Run("feature grant", func(t *testing.T) {
			none := e.as(t, a.none)
			wantError(t, none.get(path), http.StatusForbidden, "insufficient_permission")
			if r.CanGet() {
				wantError(t, none.get(path+"/"+id), http.StatusForbidden, "insufficient_permission")
			}
			read := e.as(t, a.read)
			visible := id // the matrix record may be a private task, hidden from other members
			if r.CanCreate() {
				visible = a.create(t, cw, r, nil)["id"].(string)
			}
			if !ids(read.listAll(path))[visible] {
				t.Fatalf("a read grant does not see %s", visible)
			}
			if r.CanGet() {
				must(t, read.get(path+"/"+visible), http.StatusOK)
			}
			if r.CanCreate() {
				wantError(t, read.post(path, a.body(t, cw, r, nil)), http.StatusForbidden, "insufficient_permission")
				wantError(t, none.post(path, a.body(t, cw, r, nil)), http.StatusForbidden, "insufficient_permission")
			}
			if r.CanUpdate() {
				f, v := patchField(r)
				wantError(t, read.patch(path+"/"+id, map[string]any{f.Name: v}), http.StatusForbidden, "insufficient_permission")
			}
		})
	}

	t.Run("DELETE answers 405", func(t *testing.T) {
		c := client{e, t, cw.token}
		res := c.req("DELETE", path+"/"+id, nil)
		wantError(t, res, http.StatusMethodNotAllowed, "method_not_allowed")
		if allow := res.Header.Get("Allow"); allow != strings.Join(r.Allow(true), ", ") {
			t.Fatalf("Allow %q, want %v", allow, r.Allow(true))
		}
		res = c.req("DELETE", path, nil)
		wantError(t, res, http.StatusMethodNotAllowed, "method_not_allowed")
		if allow := res.Header.Get("Allow"); allow != strings.Join(r.Allow(false), ", ") || allow == "" {
			t.Fatalf("Allow %q, want %v", allow, r.Allow(false))
		}
		if !r.CanCreate() && !r.CanDetach() {
			wantError(t, c.post(path, map[string]any{"name": "x"}), http.StatusMethodNotAllowed, "method_not_allowed")
		}
		if !r.CanUpdate() && r.CanGet() {
			wantError(t, c.patch(path+"/"+id, map[string]any{"name": "x"}), http.StatusMethodNotAllowed, "method_not_allowed")
		}
		if slices.Contains(r.Allow(false), "PUT") {
			t.Fatal("PUT is never allowed")
		}
	})
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
