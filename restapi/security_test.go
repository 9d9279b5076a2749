package restapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// Regression tests of a security audit: each names the hole it keeps closed.

// member adds a member with the given grants and every scope.
func member(t testing.TB, e *env, ws string, grants map[string]string) *auth.Principal {
	t.Helper()
	return storetest.AddUser(t, e.store, ws, "member", grants, workspace.Scopes())
}

// withGrants is p with other grants, as after an admin changed them.
func withGrants(p *auth.Principal, grants map[string]string) *auth.Principal {
	c := *p
	c.Grants = grants
	return &c
}

// TestActivityOfCommentsFollowsParent: activity about a comment is as visible as the
// comment: hidden with its private task, and on deals only with the crm grant, in the
// database policy.
func TestActivityOfCommentsFollowsParent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a := e.as(t, tm.a)
	noCRM := member(t, e, tm.ws, map[string]string{})
	deal := newDeal(t, a)
	private := create(t, a, "/tasks", map[string]any{"name": "Secret", "is_private": true})["id"].(string)
	public := create(t, a, "/tasks", map[string]any{"name": "Open"})["id"].(string)
	onDeal := create(t, a, "/comments", map[string]any{"entity_type": "deal", "entity_id": deal, "content": "price is 9k"})["id"].(string)
	onPrivate := create(t, a, "/comments", map[string]any{"entity_type": "task", "entity_id": private, "content": "hush"})["id"].(string)
	onPublic := create(t, a, "/comments", map[string]any{"entity_type": "task", "entity_id": public, "content": "hello"})["id"].(string)

	seen := func(p *auth.Principal) map[string]bool {
		out := map[string]bool{}
		for _, r := range e.as(t, p).listAll("/activity?entity_type=comments") {
			out[r["entity_id"].(string)] = true
		}
		return out
	}
	if got := seen(noCRM); got[onDeal] || got[onPrivate] || !got[onPublic] {
		t.Fatalf("a member without crm, not on the private task, sees activity of comments %v; want only %s", got, onPublic)
	}
	if got := seen(tm.b); !got[onDeal] || got[onPrivate] || !got[onPublic] {
		t.Fatalf("a member with crm sees activity of comments %v; want the deal's and the public task's", got)
	}
	for _, who := range []*auth.Principal{tm.a, tm.admin} {
		if got := seen(who); !got[onDeal] || !got[onPrivate] || !got[onPublic] {
			t.Fatalf("the author or an admin sees activity of comments %v; want all three", got)
		}
	}
	// The database itself hides them: the request role reading activity without filters.
	var n int
	if err := e.store.Query(context.Background(), noCRM.Actor(), `SELECT count(*) FROM activity WHERE entity_id = ANY($1::uuid[])`,
		[]any{[]string{onDeal, onPrivate}}, func(rows pgx.Rows) error {
			rows.Next()
			return rows.Scan(&n)
		}); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("under RLS a member without crm reads %d activity rows of hidden comments", n)
	}
}

// TestCommentEdits: a comment is edited by its author or an admin only, and writes on deal
// comments need crm full, at the gate and in the database.
func TestCommentEdits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	a, b, admin := e.as(t, tm.a), e.as(t, tm.b), e.as(t, tm.admin)
	deal := newDeal(t, a)
	task := create(t, a, "/tasks", map[string]any{"name": "Open"})["id"].(string)
	onDeal := create(t, a, "/comments", map[string]any{"entity_type": "deal", "entity_id": deal, "content": "mine"})["id"].(string)
	onTask := create(t, a, "/comments", map[string]any{"entity_type": "task", "entity_id": task, "content": "mine"})["id"].(string)

	content := func(id string) (text, author string) {
		t.Helper()
		if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT content, user_id::text FROM comments WHERE id = $1`, id).
			Scan(&text, &author); err != nil {
			t.Fatal(err)
		}
		return text, author
	}
	t.Run("another member cannot rewrite it", func(t *testing.T) {
		for _, id := range []string{onDeal, onTask} {
			wantError(t, b.patch("/comments/"+id, map[string]any{"content": "rewritten"}), http.StatusForbidden, "insufficient_permission")
			if text, author := content(id); text != "mine" || author != tm.a.UserID {
				t.Fatalf("comment now %q by %s", text, author)
			}
		}
	})
	t.Run("crm=read cannot write deal comments, even its own", func(t *testing.T) {
		readOnly := e.as(t, withGrants(tm.a, map[string]string{"crm": "read"}))
		wantError(t, readOnly.patch("/comments/"+onDeal, map[string]any{"content": "edited"}), http.StatusForbidden, "insufficient_permission")
		wantError(t, readOnly.post("/comments", map[string]any{"entity_type": "deal", "entity_id": deal, "content": "x"}),
			http.StatusForbidden, "insufficient_permission")
		must(t, readOnly.patch("/comments/"+onTask, map[string]any{"content": "edited task comment"}), http.StatusOK)
	})
	t.Run("the author and an admin can", func(t *testing.T) {
		must(t, a.patch("/comments/"+onDeal, map[string]any{"content": "mine, edited"}), http.StatusOK)
		r := must(t, admin.patch("/comments/"+onDeal, map[string]any{"content": "moderated"}), http.StatusOK)
		if r.data()["user_id"] != tm.a.UserID {
			t.Fatalf("an admin's edit changed the author: %s", r.Raw)
		}
	})
	t.Run("the database refuses what the gate refuses", func(t *testing.T) {
		update := func(p *auth.Principal, id string) int64 {
			t.Helper()
			var n int64
			err := e.store.Query(context.Background(), p.Actor(), `WITH x AS (UPDATE comments SET content = 'sql' WHERE id = $1 RETURNING 1)
				SELECT count(*) FROM x`, []any{id}, func(rows pgx.Rows) error {
				rows.Next()
				return rows.Scan(&n)
			})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := update(tm.b, onTask); n != 0 {
			t.Fatal("RLS lets a member rewrite another member's comment")
		}
		if n := update(withGrants(tm.a, map[string]string{"crm": "read"}), onDeal); n != 0 {
			t.Fatal("RLS lets crm=read rewrite a deal comment")
		}
		err := e.store.Query(context.Background(), withGrants(tm.a, map[string]string{"crm": "read"}).Actor(),
			`INSERT INTO comments (entity_type, entity_id, content) VALUES ('deal', $1, 'sql')`, []any{deal},
			func(pgx.Rows) error { return nil })
		if err == nil {
			t.Fatal("RLS lets crm=read comment on a deal")
		}
		if n := update(tm.a, onTask); n != 1 {
			t.Fatal("RLS refuses the author")
		}
	})
}

// TestArrayReferencesStayInWorkspace: uuid-array references name records of the same
// workspace only; another workspace's ids are refused by the database.
func TestArrayReferencesStayInWorkspace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home, away := newTeam(t, e), newTeam(t, e)
	a, other := e.as(t, home.a), e.as(t, away.a)
	foreignSpace := create(t, other, "/spaces", map[string]any{"name": "Theirs"})["id"].(string)
	foreignPipeline := create(t, other, "/pipelines", map[string]any{"name": "Theirs"})["id"].(string)
	ownSpace := create(t, a, "/spaces", map[string]any{"name": "Ours"})["id"].(string)
	ownPipeline := create(t, a, "/pipelines", map[string]any{"name": "Ours"})["id"].(string)
	deal := create(t, a, "/deals", map[string]any{"name": "D", "pipeline_id": ownPipeline})["id"].(string)

	cases := []struct {
		res          string
		base         map[string]any
		field        string
		own, foreign string
	}{
		{"tasks", map[string]any{"name": "T"}, "assignee_ids", home.b.UserID, away.b.UserID},
		{"deal_tasks", map[string]any{"name": "T", "deal_id": deal}, "assignee_ids", home.b.UserID, away.b.UserID},
		{"metrics", map[string]any{"name": "M"}, "member_ids", home.b.UserID, away.b.UserID},
		{"metrics", map[string]any{"name": "M"}, "space_ids", ownSpace, foreignSpace},
		{"metrics", map[string]any{"name": "M"}, "pipeline_ids", ownPipeline, foreignPipeline},
	}
	for _, tc := range cases {
		t.Run(tc.res+"."+tc.field, func(t *testing.T) {
			body := clone(tc.base)
			body[tc.field] = []string{tc.own, tc.foreign}
			r := a.post("/"+tc.res, body)
			wantError(t, r, http.StatusBadRequest, "create_failed")
			wantMessage(t, r, tc.field)

			body[tc.field] = []string{tc.own}
			id := create(t, a, "/"+tc.res, body)["id"].(string)
			r = a.patch("/"+tc.res+"/"+id, map[string]any{tc.field: []string{tc.foreign}})
			wantError(t, r, http.StatusBadRequest, "update_failed")
			wantMessage(t, r, tc.field)
			must(t, a.patch("/"+tc.res+"/"+id, map[string]any{tc.field: []string{}}), http.StatusOK)
		})
	}
}

// TestUnauthorizedChallenge: REST 401s carry WWW-Authenticate: Bearer, with
// error="invalid_token" when a token was sent (RFC 6750 section 3).
func TestUnauthorizedChallenge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		name, bearer, apikey string
		invalidToken         bool
	}{
		{"no token", "", testAPIKey, false},
		{"unknown token", "tst_nope", testAPIKey, true},
		{"no apikey", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("GET", "/deals", tc.bearer, tc.apikey, "")
			wantError(t, r, http.StatusUnauthorized, "unauthorized")
			h := r.Header.Get("WWW-Authenticate")
			if !strings.HasPrefix(h, "Bearer") {
				t.Fatalf("WWW-Authenticate %q, want a Bearer challenge", h)
			}
			if got := strings.Contains(h, `error="invalid_token"`); got != tc.invalidToken {
				t.Fatalf("WWW-Authenticate %q: invalid_token present %v, want %v", h, got, tc.invalidToken)
			}
		})
	}
}

// TestHostileInput: NUL bytes, invalid UTF-8, oversized values, deep JSON and unparseable
// query strings are client errors, never 500.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tm := newTeam(t, e)
	tok := e.token(tm.a)
	send := func(method, path, rawQuery, body string) response {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, e.srv.URL+"/v1"+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.RawQuery = rawQuery
		req.Header.Set("apikey", testAPIKey)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return response{Status: res.StatusCode, Header: res.Header, Raw: raw, Body: decode(raw)}
	}
	huge := strings.Repeat("x", 500_000)
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	cases := []struct {
		name, method, path, query, body string
		status                          int
	}{
		{"NUL in a string", "POST", "/companies", "", `{"name":"a\u0000b"}`, 422},
		{"NUL in a filter", "GET", "/companies", "industry=%00", "", 400},
		{"invalid UTF-8 in a filter", "GET", "/companies", "industry=%ff%fe", "", 400},
		{"invalid UTF-8 in an id filter", "GET", "/deals", "company_id=%ff%fe", "", 400},
		{"NUL in jsonb", "POST", "/canvases", "", `{"type":"flow","data":{"k":"a\u0000b"}}`, 422},
		{"NUL in a jsonb key", "POST", "/canvases", "", `{"type":"flow","data":{"a\u0000":1}}`, 422},
		{"invalid UTF-8 in jsonb", "POST", "/canvases", "", "{\"type\":\"flow\",\"data\":\"\xff\xfe\"}", 400},
		{"invalid UTF-8 in a string", "POST", "/companies", "", "{\"name\":\"\xff\xfe\"}", 400},
		{"deep jsonb", "POST", "/canvases", "", `{"type":"flow","data":` + deep + `}`, 422},
		{"500 KB in an indexed column", "POST", "/companies", "", `{"name":"n","industry":"` + huge + `"}`, 422},
		{"500 KB filter", "GET", "/companies", "industry=" + huge[:20_000], "", 400},
		{"a query that does not parse", "GET", "/companies", "cursor=%%%garbage", "", 400},
		{"a query that does not parse on an item", "GET", "/companies/" + tm.ws, "x=%zz", "", 400},
		{"size_bytes beyond 32 bits", "POST", "/knowledge", "", `{"name":"k","size_bytes":9223372036854775807}`, 201},
		{"size_bytes beyond 64 bits", "POST", "/knowledge", "", `{"name":"k","size_bytes":9223372036854775808}`, 422},
		{"position beyond 32 bits", "POST", "/pipelines", "", `{"name":"p","position":2147483648}`, 422},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := send(tc.method, tc.path, tc.query, tc.body)
			if r.Status != tc.status {
				t.Fatalf("%s %s?%s: want %d, got %d %s", tc.method, tc.path, clipBody([]byte(tc.query)), tc.status, r.Status, clipBody(r.Raw))
			}
			if tc.status >= 400 && (r.Body["error"] == nil || r.Body["message"] == nil) {
				t.Fatalf("not the error envelope: %s", clipBody(r.Raw))
			}
		})
	}
}

func decode(raw []byte) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// TestSchemasBoundText: the OpenAPI document states the catalogue's text bounds and integer
// widths, so clients learn them before a 422.
func TestSchemasBoundText(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(restapi.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema, field, key string
		want               any
	}{
		{"companies_create", "industry", "maxLength", float64(workspace.ShortText)},
		{"companies_create", "website", "maxLength", float64(workspace.LinkText)},
		{"companies_create", "notes", "maxLength", float64(workspace.LongText)},
		{"knowledge_create", "size_bytes", "format", "int64"},
		{"pipelines_create", "position", "format", "int32"},
	} {
		got := doc.Components.Schemas[tc.schema].Properties[tc.field][tc.key]
		if got != tc.want {
			t.Errorf("%s.%s %s = %v, want %v", tc.schema, tc.field, tc.key, got, tc.want)
		}
	}
}
