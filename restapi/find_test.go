package restapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// recordNames lists the records' name fields in page order.
func recordNames(recs []map[string]any) []string {
	var out []string
	for _, r := range recs {
		out = append(out, fmt.Sprint(r["name"]))
	}
	return out
}

// TestSearchFindsByPrefixWordAccentAndTypo: q= matches word prefixes as typed, whole words,
// spellings without accents, and a name with one letter wrong; the best match comes first;
// a q walk pages through every match once.
func TestSearchFindsByPrefixWordAccentAndTypo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	pipeline := must(t, c.post("/pipelines", map[string]any{"name": "Sales"}), http.StatusCreated).data()["id"]
	for _, n := range []string{"ACME Corp", "Crème Brûlée Ltd", "Globex Corporation", "Initech", "Umbrella"} {
		must(t, c.post("/deals", map[string]any{"name": n, "pipeline_id": pipeline}), http.StatusCreated)
	}
	must(t, c.post("/deals", map[string]any{"name": "Renewal", "pipeline_id": pipeline, "notes": "call the acme buyer"}), http.StatusCreated)
	for i := range 20 {
		must(t, c.post("/deals", map[string]any{"name": fmt.Sprintf("Other deal %d", i), "pipeline_id": pipeline}), http.StatusCreated)
	}
	for q, want := range map[string][]string{
		"acm":          {"ACME Corp", "Renewal"}, // a prefix, in the name and in the notes
		"ACME corp":    {"ACME Corp"},            // whole words, any case
		"creme brulee": {"Crème Brûlée Ltd"},     // without the accents
		"Crème":        {"Crème Brûlée Ltd"},
		"globx":        {"Globex Corporation"}, // one letter missing
		"initeck":      {"Initech"},            // one letter wrong
		"zzzz":         nil,
	} {
		got := recordNames(must(t, c.get("/deals?q="+url.QueryEscape(q)), http.StatusOK).list())
		if !slices.Equal(got, want) {
			t.Errorf("q=%s: got %q, want %q", q, got, want)
		}
	}
	// Every match once, across pages of one.
	all := c.listAll("/deals?q=deal")
	seen := ids(all)
	var walked []string
	next := "/deals?q=deal&limit=1"
	for range 50 {
		r := must(t, c.get(next), http.StatusOK)
		for _, rec := range r.list() {
			walked = append(walked, rec["id"].(string))
		}
		cur, _ := r.Body["next_cursor"].(string)
		if cur == "" {
			break
		}
		next = "/deals?q=deal&limit=1&cursor=" + cur
	}
	if len(all) != 20 || len(walked) != 20 {
		t.Fatalf("q=deal: %d records in pages of 200, %d in pages of 1, want 20", len(all), len(walked))
	}
	for _, id := range walked {
		if !seen[id] {
			t.Fatalf("page of 1 returned %s, not among the matches", id)
		}
	}
	if _, ok := all[0]["_rank"]; ok {
		t.Fatal("the rank leaks into the record")
	}
	// A cursor of the q walk is not one of the plain list.
	r := must(t, c.get("/deals?q=deal&limit=1"), http.StatusOK)
	wantError(t, c.get("/deals?cursor="+r.Body["next_cursor"].(string)), http.StatusBadRequest, "bad_request")
	for _, bad := range []string{"q=%20%2B%26", "q=" + strings.Repeat("a", 201), "q=a&order=updated_at"} {
		wantError(t, c.get("/deals?"+bad), http.StatusBadRequest, "bad_request")
	}
	wantMessage(t, c.get("/deal_people?q=x"), "q", "deal_people")
}

// TestTyposAsDocumented pins what docs/rest.md says of q's typos: forgiven from 5
// characters, by word similarity of at least 0.6, which takes a letter missing, extra or
// wrong near a word's end but not one inside the word, nor a swap; an email is one word to
// the full-text search, its parts words to the trigrams.
func TestTyposAsDocumented(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	must(t, c.post("/companies", map[string]any{"name": "Globex"}), http.StatusCreated)
	must(t, c.post("/people", map[string]any{"name": "Ada Lovelace", "email": "ada@acme.example"}), http.StatusCreated)
	for query, want := range map[string][]string{
		"/companies?q=globx":     {"Globex"}, // missing near the end
		"/companies?q=globexx":   {"Globex"}, // extra at the end
		"/companies?q=glbex":     nil,        // missing inside the word
		"/companies?q=gloex":     nil,        // missing inside the word
		"/companies?q=lgobex":    nil,        // swapped
		"/companies?q=glox":      nil,        // under 5 characters: a prefix only
		"/people?q=lovelaxe":     {"Ada Lovelace"},
		"/people?q=lovlace":      nil,
		"/people?q=ada":          {"Ada Lovelace"}, // the email's (and the name's) start
		"/people?q=acme":         {"Ada Lovelace"}, // the email's domain, a word of its own (ws_address_words)
		"/people?q=ada%40acme":   {"Ada Lovelace"},
		"/people?q=acmee":        {"Ada Lovelace"}, // 5 characters: trigrams read the email's parts
		"/people?q=acme.example": {"Ada Lovelace"},
	} {
		if got := recordNames(must(t, c.get(query), http.StatusOK).list()); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", query, got, want)
		}
	}
}

// TestSearchKeepsGatesAndRLS: q= shows exactly what the list shows. A member without the
// crm grant gets 403 on deals, q or not; a private task and a comment on it never appear
// to a member or an agent who may not see them; the admin sees both.
func TestSearchKeepsGatesAndRLS(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.as(t, f.Admin)
	space := must(t, admin.post("/spaces", map[string]any{"name": "Client"}), http.StatusCreated).data()["id"]
	private := must(t, admin.post("/tasks", map[string]any{"name": "Launch secret plan", "space_id": space, "is_private": true}),
		http.StatusCreated).data()["id"]
	must(t, admin.post("/tasks", map[string]any{"name": "Launch public plan", "space_id": space}), http.StatusCreated)
	must(t, admin.post("/comments", map[string]any{"entity_type": "task", "entity_id": private, "content": "launchpad notes"}),
		http.StatusCreated)
	pipeline := must(t, admin.post("/pipelines", map[string]any{"name": "Sales"}), http.StatusCreated).data()["id"]
	must(t, admin.post("/deals", map[string]any{"name": "Launch deal", "pipeline_id": pipeline}), http.StatusCreated)

	member := e.as(t, f.Member)
	agent := client{e: e, t: t, token: f.Agent.Key}
	for _, c := range []struct {
		who          string
		c            client
		tasks, notes int
		deals        int // status
	}{
		{"admin", admin, 2, 1, http.StatusOK},
		{"member", member, 1, 0, http.StatusForbidden},
		{"agent", agent, 1, 0, http.StatusOK},
	} {
		if got := recordNames(must(t, c.c.get("/tasks?q=launch"), http.StatusOK).list()); len(got) != c.tasks {
			t.Errorf("%s: tasks?q=launch = %q, want %d", c.who, got, c.tasks)
		}
		if got := must(t, c.c.get("/comments?q=launchpad"), http.StatusOK).list(); len(got) != c.notes {
			t.Errorf("%s: comments?q=launchpad = %d records, want %d", c.who, len(got), c.notes)
		}
		if c.deals == http.StatusForbidden {
			wantError(t, c.c.get("/deals?q=launch"), c.deals, "insufficient_permission")
		} else if got := must(t, c.c.get("/deals?q=launch"), c.deals).list(); len(got) != 1 {
			t.Errorf("%s: deals?q=launch = %d records, want 1", c.who, len(got))
		}
	}
}

// TestOperatorFilters runs every operator on every type the catalogue gives them, and the
// 400s that name the field and what it takes.
func TestOperatorFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	pipeline := must(t, c.post("/pipelines", map[string]any{"name": "Sales"}), http.StatusCreated).data()["id"].(string)
	owner := f.Admin.UserID
	deal := func(name string, fields map[string]any) string {
		fields["name"], fields["pipeline_id"] = name, pipeline
		return must(t, c.post("/deals", fields), http.StatusCreated).data()["id"].(string)
	}
	deal("Alpha", map[string]any{"value": 100, "owner_id": owner, "confidence": 0.5})
	deal("Beta", map[string]any{"value": 200})
	deal("Gamma", map[string]any{"value": 300, "owner_id": owner})
	deal("Alphabet_soup", map[string]any{})
	space := must(t, c.post("/spaces", map[string]any{"name": "S"}), http.StatusCreated).data()["id"]
	var task any
	for i, d := range []string{"2026-01-10", "2026-02-10", "2026-03-10"} {
		task = must(t, c.post("/tasks", map[string]any{"name": fmt.Sprint("T", i), "space_id": space, "due_date": d,
			"completed": i == 1, "priority": i + 1}), http.StatusCreated).data()["id"]
	}
	must(t, c.post("/comments", map[string]any{"entity_type": "task", "entity_id": task, "content": "x"}), http.StatusCreated)
	// Names at the edges of a prefix's range in code point order (listquery.go, prefixEnd):
	// accents, the last character before the surrogates, the last character of all, and
	// the first strings past those ranges.
	for _, name := range []string{"Crème brûlée", "Crèmerie", "Crf", "Cruz", "Q\ud7ff", "Q\ud7ffz", "Q\ue000",
		"Z\U0010ffff", "Z\U0010ffff!", "[x", "100% Pure", "100 Pure"} {
		must(t, c.post("/people", map[string]any{"name": name}), http.StatusCreated)
	}

	for query, want := range map[string][]string{
		"/deals?value[eq]=200":                                     {"Beta"},
		"/deals?value[ne]=200":                                     {"Alpha", "Gamma"},
		"/deals?value[gt]=100":                                     {"Beta", "Gamma"},
		"/deals?value[gte]=200&value[lt]=301":                      {"Beta", "Gamma"},
		"/deals?value[lte]=100":                                    {"Alpha"},
		"/deals?value[in]=100,300":                                 {"Alpha", "Gamma"},
		"/deals?value[null]=true":                                  {"Alphabet_soup"},
		"/deals?confidence[gte]=0.5":                               {"Alpha"},
		"/deals?name[prefix]=Alpha":                                {"Alpha", "Alphabet_soup"},
		"/deals?name[prefix]=Alpha_":                               nil, // _ is not a wildcard
		"/deals?name[prefix]=Alphabet_":                            {"Alphabet_soup"},
		"/deals?name[in]=Beta,Gamma":                               {"Beta", "Gamma"},
		"/people?name[prefix]=" + url.QueryEscape("Crè"):           {"Crème brûlée", "Crèmerie"},
		"/people?name[prefix]=" + url.QueryEscape("Cr"):            {"Crf", "Cruz", "Crème brûlée", "Crèmerie"},
		"/people?name[prefix]=" + url.QueryEscape("Q\ud7ff"):       {"Q\ud7ff", "Q\ud7ffz"},
		"/people?name[prefix]=" + url.QueryEscape("Z\U0010ffff"):   {"Z\U0010ffff", "Z\U0010ffff!"},
		"/people?name[prefix]=" + url.QueryEscape("100%"):          {"100% Pure"}, // % is not a wildcard
		"/people?sort=-name&name[prefix]=" + url.QueryEscape("Cr"): {"Crf", "Cruz", "Crème brûlée", "Crèmerie"},
		"/deals?name[contains]=PHA":                                {"Alpha", "Alphabet_soup"},
		"/deals?name[contains]=lpha_":                              nil, // _ is not a wildcard
		"/people?name[contains]=" + url.QueryEscape("creme"):       {"Crème brûlée", "Crèmerie"},
		"/deals?owner_id[eq]=" + owner:                             {"Alpha", "Gamma"},
		"/deals?owner_id[null]=false":                              {"Alpha", "Gamma"},
		"/deals?owner_id[ne]=" + owner:                             nil, // NULL is not unequal
		"/deals?created_at[gte]=2000-01-01T00:00:00Z&created_at[lt]=2100-01-01T00:00:00Z&sort=name": {"Alpha", "Alphabet_soup", "Beta", "Gamma"},
		"/tasks?due_date[lt]=2026-02-10":        {"T0"},
		"/tasks?due_date[gte]=2026-02-10":       {"T1", "T2"},
		"/tasks?completed[eq]=true":             {"T1"},
		"/tasks?completed[ne]=true":             {"T0", "T2"},
		"/tasks?priority[gt]=1&priority[lte]=3": {"T1", "T2"},
	} {
		got := recordNames(must(t, c.get(query), http.StatusOK).list())
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", query, got, want)
		}
	}
	if n := len(must(t, c.get("/comments?entity_type[in]=task,deal"), http.StatusOK).list()); n != 1 {
		t.Errorf("comments?entity_type[in]=task,deal: %d records, want 1", n)
	}
	for query, want := range map[string][]string{
		"/deals?nope[eq]=1":                                    {"nope", "value", "created_at"},
		"/deals?name[lt]=b":                                    {"name", "eq, ne, in, prefix, contains, null"},
		"/deals?name[contains]=al":                             {"name", "at least 3 letters or digits in a row"},
		"/deals?value[prefix]=1":                               {"value", "lt"},
		"/deals?value[gt]=abc":                                 {"value", "JSON number"},
		"/deals?value[in]=1,x":                                 {"value", "JSON number"},
		"/deals?owner_id[eq]=x":                                {"owner_id", "uuid"},
		"/deals?value[null]=maybe":                             {"value", "true or false"},
		"/deals?created_at[gt]=yesterday":                      {"created_at", "RFC 3339"},
		"/tasks?due_date[lt]=2026-13-45":                       {"due_date", "ISO date"},
		"/tasks?completed[lt]=true":                            {"completed", "eq, ne, null"},
		"/tasks?priority[gt]=1.5":                              {"priority", "integer"},
		"/comments?entity_type[eq]=invoice":                    {"entity_type", "deal, task"},
		"/deals?notes[eq]=x":                                   {"notes"},
		"/deals?value[eq]=1&value[eq]=2":                       {"value[eq]", "once"},
		"/deals?value[bogus]=1":                                {"value", "operators"},
		"/deals?sort=notes":                                    {"sort", "name, value, created_at, updated_at"},
		"/deals?sort=name&order=updated_at":                    {"sort", "order"},
		"/deals?fields=name,secret":                            {"fields", "secret"},
		"/project_stages?sort=name":                            {"sort", "one page"},
		"/deals?ids=" + strings.Repeat(owner+",", 100) + owner: {"ids", "100"},
		"/deals?ids=x":                                         {"ids", "uuid"},
	} {
		r := c.get(query)
		wantError(t, r, http.StatusBadRequest, "bad_request")
		wantMessage(t, r, want...)
	}
}

// TestYearsOutsidePostgreSQL sends dates and timestamps whose year PostgreSQL refuses (0000)
// or renders as no RFC 3339 reads (a year past 9999, a BC one), in a query and in a body:
// each is refused naming the field, never passed on for the database to reject.
func TestYearsOutsidePostgreSQL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	for query, field := range map[string]string{
		"/deals?created_at[gte]=0000-01-01T00:00:00Z":                                                "created_at",
		"/deals?created_at[lt]=" + url.QueryEscape("0001-01-01T00:30:00+01:00"):                      "created_at",
		"/deals?updated_at[in]=2026-01-01T00:00:00Z," + url.QueryEscape("9999-12-31T23:00:00-05:00"): "updated_at",
		"/tasks?due_date[lt]=0000-01-01":                                                             "due_date",
		"/tasks?due_date[eq]=10000-01-01":                                                            "due_date",
		"/labels?updated_since=0000-01-01T00:00:00Z":                                                 "updated_since",
	} {
		t.Run(query, func(t *testing.T) {
			r := e.as(t, f.Admin).get(query)
			wantError(t, r, http.StatusBadRequest, "bad_request")
			wantMessage(t, r, field, "0001 to 9999")
		})
	}
	space := must(t, c.post("/spaces", map[string]any{"name": "S"}), http.StatusCreated).data()["id"]
	r := c.post("/tasks", map[string]any{"name": "T", "space_id": space, "due_date": "0000-01-01"})
	wantError(t, r, http.StatusUnprocessableEntity, "validation_error")
	wantMessage(t, r, "due_date", "0001 to 9999")
	must(t, c.post("/tasks", map[string]any{"name": "T", "space_id": space, "due_date": "0001-01-01"}), http.StatusCreated)
	must(t, c.get("/tasks?due_date[gte]=0001-01-01&due_date[lte]=9999-12-31"), http.StatusOK)
}

// TestEmptyParameters: a query parameter given empty is a 400 naming it and what it takes
// (docs/rest.md), as /v1/search's q= is; only cursor= is taken as absent, the first page,
// since clients pass an empty next_cursor back as it came.
func TestEmptyParameters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	pipeline := must(t, c.post("/pipelines", map[string]any{"name": "Sales"}), http.StatusCreated).data()["id"].(string)
	deal := must(t, c.post("/deals", map[string]any{"name": "Acme", "pipeline_id": pipeline}), http.StatusCreated).data()["id"].(string)
	for query, want := range map[string][]string{
		"/deals?q=":                   {"q", "letter or digit"},
		"/deals?ids=":                 {"ids", "uuid"},
		"/deals?fields=":              {"fields", "its fields are"},
		"/deals/" + deal + "?fields=": {"fields", "its fields are"},
		"/deals?sort=":                {"sort", "name, value"},
		"/deals?pipeline_id=":         {"pipeline_id", "empty", "uuid"},
		"/people?email=":              {"email", "empty", "string"},
		"/deals?name[eq]=":            {"name[eq]", "empty"},
		"/deals?name[prefix]=":        {"name[prefix]", "empty"},
		"/deals?name[in]=Acme,":       {"name[in]", "empty"},
		"/deals?value[gte]=":          {"value[gte]", "empty", "number"},
		"/deals?limit=":               {"limit"},
		"/deals?order=":               {"order"},
		"/deals?updated_since=":       {"updated_since"},
	} {
		t.Run(query, func(t *testing.T) {
			r := e.as(t, f.Admin).get(query)
			wantError(t, r, http.StatusBadRequest, "bad_request")
			wantMessage(t, r, want...)
		})
	}
	if got := recordNames(must(t, c.get("/deals?cursor="), http.StatusOK).list()); !slices.Equal(got, []string{"Acme"}) {
		t.Errorf("deals?cursor= is the first page: got %q", got)
	}
}

// TestUnknownParameterNamesTheValidOnes: the 400 for an unknown query parameter names
// every parameter the list takes, finding ones included, and only those.
func TestUnknownParameterNamesTheValidOnes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	r := c.get("/deals?colour=red")
	wantError(t, r, http.StatusBadRequest, "bad_request")
	wantMessage(t, r, `"colour"`, "pipeline_id, pipeline_stage_id, owner_id, company_id, status, limit, cursor, updated_since, order, q, sort, fields, ids",
		"field[op]=value", "value, confidence", "created_at, updated_at")
	// debt_payments has no text to search.
	r = c.get("/debt_payments?colour=red")
	wantError(t, r, http.StatusBadRequest, "bad_request")
	wantMessage(t, r, "order, sort, fields, ids", "field[op]=value")
}

// TestSortsPageEveryRowOnce walks 500 deals seven at a time in every sort while deals are
// inserted between pages: each deal that existed when the walk began comes exactly once,
// in the sort's order (ties and NULLs broken by id).
func TestSortsPageEveryRowOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	ctx := context.Background()
	pipeline := must(t, c.post("/pipelines", map[string]any{"name": "Sales"}), http.StatusCreated).data()["id"]
	// Values repeat (g % 7) and one in ten is NULL; names repeat too; created_at ties in halves.
	if _, err := storetest.Pool(t).Exec(ctx, `INSERT INTO deals (workspace_id, created_by, pipeline_id, name, value, created_at)
		SELECT $1, $2, $3, 'deal ' || (g % 50), CASE WHEN g % 10 = 0 THEN NULL ELSE g % 7 END,
		CASE WHEN g <= 250 THEN now() ELSE now() - g * interval '1 ms' END
		FROM generate_series(1, 500) g`, f.WorkspaceID, f.Admin.UserID, pipeline); err != nil {
		t.Fatal(err)
	}
	for _, sort := range []string{"value", "-value", "name", "-name", "created_at", "-created_at", "updated_at", "-updated_at"} {
		t.Run(sort, func(t *testing.T) {
			want := map[string]bool{}
			for _, r := range c.listAll("/deals?sort=" + sort) {
				want[r["id"].(string)] = true
			}
			got := map[string]int{}
			var prev map[string]any
			next := "/deals?limit=7&sort=" + sort
			for pages := 0; ; pages++ {
				if pages > 200 {
					t.Fatal("paging does not end")
				}
				r := must(t, c.get(next), http.StatusOK)
				for _, rec := range r.list() {
					got[rec["id"].(string)]++
					if prev != nil && !inOrder(sort, prev, rec) {
						t.Fatalf("%v then %v out of order", prev, rec)
					}
					prev = rec
				}
				must(t, c.post("/deals", map[string]any{"name": "deal 25", "value": 3, "pipeline_id": pipeline}), http.StatusCreated)
				cur, _ := r.Body["next_cursor"].(string)
				if cur == "" {
					break
				}
				next = "/deals?limit=7&sort=" + sort + "&cursor=" + url.QueryEscape(cur)
			}
			for id := range want {
				if got[id] != 1 {
					t.Fatalf("deal %s came %d times", id, got[id])
				}
			}
		})
	}
}

// inOrder reports whether b may follow a in the sort: by the field (NULLs last ascending,
// first descending), then by id in the same direction.
func inOrder(sort string, a, b map[string]any) bool {
	field := strings.TrimPrefix(sort, "-")
	desc := field != sort
	cmp := compareJSON(a[field], b[field])
	if cmp == 0 {
		cmp = strings.Compare(a["id"].(string), b["id"].(string))
	}
	if desc {
		return cmp >= 0
	}
	return cmp <= 0
}

func compareJSON(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	switch x := a.(type) {
	case float64:
		y := b.(float64)
		if x < y {
			return -1
		} else if x > y {
			return 1
		}
		return 0
	}
	// Names are ASCII and timestamps RFC 3339 with the same offset: text order is theirs.
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

// TestFieldsAndIDs: fields= returns only those fields and id; ids= returns the listed
// records the caller may see, in one request, and nothing of another workspace.
func TestFieldsAndIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	other := storetest.Workspace(t, e.store, workspace.Scopes())
	c := e.as(t, f.Admin)
	var labels []string
	for i := range 3 {
		labels = append(labels, must(t, c.post("/labels", map[string]any{"name": fmt.Sprint("L", i)}), http.StatusCreated).data()["id"].(string))
	}
	foreign := must(t, e.as(t, other.Admin).post("/labels", map[string]any{"name": "theirs"}), http.StatusCreated).data()["id"].(string)

	recs := must(t, c.get("/labels?fields=name"), http.StatusOK).list()
	if len(recs) != 3 || len(recs[0]) != 2 || recs[0]["name"] == nil || recs[0]["id"] == nil {
		t.Fatalf("fields=name: %v", recs)
	}
	got := must(t, c.get("/labels?ids="+labels[0]+","+labels[2]+","+foreign+"&fields=id,updated_at"), http.StatusOK).list()
	if len(got) != 2 || !ids(got)[labels[0]] || !ids(got)[labels[2]] || len(got[0]) != 2 {
		t.Fatalf("ids of two own labels and a foreign one: %v", got)
	}
	many := strings.TrimSuffix(strings.Repeat(labels[1]+",", 100), ",")
	if got := must(t, c.get("/labels?ids="+many), http.StatusOK).list(); len(got) != 1 {
		t.Fatalf("100 ids naming one label: %d records", len(got))
	}
	wantError(t, c.get("/labels?ids="+many+","+labels[0]), http.StatusBadRequest, "bad_request")

	// fields= on a get: those fields and id; an unknown one is a 400 naming it, even for an
	// id the caller cannot see (the parameters are checked before the record is read).
	one := must(t, c.get("/labels/"+labels[1]+"?fields=name,updated_at"), http.StatusOK).data()
	if len(one) != 3 || one["id"] != labels[1] || one["name"] != "L1" || one["updated_at"] == nil {
		t.Fatalf("get with fields=name,updated_at: %v", one)
	}
	if full := must(t, c.get("/labels/"+labels[1]), http.StatusOK).data(); len(full) <= 3 {
		t.Fatalf("get without fields returns the whole record: %v", full)
	}
	for _, path := range []string{"/labels/" + labels[1] + "?fields=name,secret", "/labels/" + foreign + "?fields=secret"} {
		r := c.get(path)
		wantError(t, r, http.StatusBadRequest, "bad_request")
		wantMessage(t, r, "fields", "secret")
	}
	wantError(t, c.get("/labels/"+foreign+"?fields=name"), http.StatusNotFound, "not_found")
	wantError(t, c.get("/labels/"+labels[1]+"?fields=name&fields=id"), http.StatusBadRequest, "bad_request")
}

// TestSearchAcrossResources: /v1/search returns what each credential's lists would, and
// nothing else: no private task or comment on one, no type without its feature grant
// (left out, not refused), every hit once across pages.
func TestSearchAcrossResources(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.as(t, f.Admin)
	pipeline := must(t, admin.post("/pipelines", map[string]any{"name": "Sales"}), http.StatusCreated).data()["id"]
	must(t, admin.post("/deals", map[string]any{"name": "Zephyr renewal", "pipeline_id": pipeline}), http.StatusCreated)
	must(t, admin.post("/people", map[string]any{"name": "Zoe Zephyr", "email": "zoe@zephyr.test"}), http.StatusCreated)
	space := must(t, admin.post("/spaces", map[string]any{"name": "Client"}), http.StatusCreated).data()["id"]
	private := must(t, admin.post("/tasks", map[string]any{"name": "Zephyr private", "space_id": space, "is_private": true}),
		http.StatusCreated).data()["id"]
	must(t, admin.post("/tasks", map[string]any{"name": "Zephyr public", "space_id": space}), http.StatusCreated)
	must(t, admin.post("/comments", map[string]any{"entity_type": "task", "entity_id": private, "content": "zephyr notes"}),
		http.StatusCreated)

	types := func(recs []map[string]any) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r["type"].(string))
		}
		slices.Sort(out)
		return out
	}
	agent := client{e: e, t: t, token: f.Agent.Key}
	for _, c := range []struct {
		who  string
		c    client
		want []string
	}{
		{"admin", admin, []string{"comments", "deals", "people", "tasks", "tasks"}},
		{"member", e.as(t, f.Member), []string{"tasks"}},
		{"agent", agent, []string{"deals", "people", "tasks"}},
	} {
		r := must(t, c.c.get("/search?q=zephyr"), http.StatusOK)
		// The results are compact JSON, as every other body of the service.
		if bytes.Contains(r.Raw, []byte(`" : `)) {
			t.Errorf("%s: search results are not compact: %s", c.who, r.Raw)
		}
		hits := r.list()
		if got := types(hits); !slices.Equal(got, c.want) {
			t.Errorf("%s: search found %q, want %q", c.who, got, c.want)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i]["score"].(float64) > hits[i-1]["score"].(float64) {
				t.Errorf("%s: hits not best first: %v", c.who, hits)
			}
		}
		var paged []map[string]any
		next := "/search?q=zephyr&limit=1"
		for range 10 {
			r := must(t, c.c.get(next), http.StatusOK)
			paged = append(paged, r.list()...)
			cur, _ := r.Body["next_cursor"].(string)
			if cur == "" {
				break
			}
			next = "/search?q=zephyr&limit=1&cursor=" + cur
		}
		if len(paged) != len(hits) || len(ids(paged)) != len(hits) {
			t.Errorf("%s: pages of one gave %d hits, want each of %d once", c.who, len(paged), len(hits))
		}
	}
	if got := must(t, e.as(t, f.Member).get("/search?q=zephyr&types=deals"), http.StatusOK).list(); len(got) != 0 {
		t.Errorf("member searching deals without the grant: %v", got)
	}
	if hits := must(t, admin.get("/search?q=zephyr&types=people"), http.StatusOK).list(); len(hits) != 1 ||
		hits[0]["title"] != "Zoe Zephyr" || hits[0]["snippet"] != "zoe@zephyr.test" {
		t.Errorf("people hit: %v", hits)
	}
	for _, bad := range []string{"", "?q=", "?q=zephyr&types=", "?q=zephyr&types=nope", "?q=zephyr&limit=101", "?q=zephyr&sort=name", "?q=zephyr&cursor=abc"} {
		wantError(t, admin.get("/search"+bad), http.StatusBadRequest, "bad_request")
	}
}
