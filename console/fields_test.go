package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// fieldRow reads a stored definition: label, options as text, flags, archived.
func (e *env) fieldRow(t *testing.T, id string) (label, options string, required, archived bool) {
	t.Helper()
	if err := storetest.Pool(t).QueryRow(t.Context(), `SELECT label, options::text, required, archived FROM custom_fields WHERE id = $1::text::uuid`,
		id).Scan(&label, &options, &required, &archived); err != nil {
		t.Fatal(err)
	}
	return label, options, required, archived
}

// TestFieldsPage: an admin lists the custom fields of each resource, adds a select with
// options and a reference, edits a label and flags, reorders, renames and archives
// options, archives and restores a field, and sees each field's readiness; every write is
// the REST operation's (refusals are its messages, activity is the console's); a member
// gets 403 and no link; another workspace's field id is not found.
func TestFieldsPage(t *testing.T) {
	e := newEnv(t)
	admin := e.agent().signIn(e.Admin)
	if p := admin.get("/console/fields"); p.Status != 200 || !strings.Contains(p.Body, `id="no-fields"`) ||
		!strings.Contains(p.Body, `href="/console/fields" aria-current="page"`) || !strings.Contains(p.Body, "Fields of deals") {
		t.Fatalf("empty page: %d %.500s", p.Status, p.Body)
	}
	if p := admin.get("/console/fields?resource=invoices"); p.Status != http.StatusNotFound {
		t.Fatalf("fields of invoices: %d", p.Status)
	}

	// Refused by the operation: a key that is a built-in field, a select without options.
	for _, bad := range []struct {
		form url.Values
		says string
	}{
		{url.Values{"resource": {"deals"}, "key": {"name"}, "label": {"Name"}, "type": {"text"}}, "is a field of deals"},
		{url.Values{"resource": {"deals"}, "key": {"tier"}, "label": {"Tier"}, "type": {"select"}, "opt-key-0": {""}}, "needs at least one option"},
	} {
		p := admin.form("/console/fields", "/console/fields/create", bad.form)
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, `id="error"`) || !strings.Contains(p.Body, bad.says) ||
			!strings.Contains(p.Body, `value="`+bad.form.Get("label")+`"`) {
			t.Fatalf("create %v: %d %.800s", bad.form, p.Status, p.Body)
		}
	}
	if n := e.count(`SELECT count(*) FROM custom_fields WHERE workspace_id = $1`, e.WorkspaceID); n != 0 {
		t.Fatalf("refused creates stored %d fields", n)
	}

	p := admin.form("/console/fields", "/console/fields/create", url.Values{"resource": {"deals"}, "key": {"tier"}, "label": {"Account tier"},
		"type": {"select"}, "required": {"true"}, "description": {"the plan they are on"},
		"opt-key-0": {"gold"}, "opt-label-0": {"Gold"}, "opt-key-1": {"silver"}, "opt-label-1": {"Silver"}, "opt-key-2": {""}})
	if p.Status != 200 || !strings.Contains(p.Body, "Field tier added.") || !strings.Contains(p.Body, "ready to filter and sort") {
		t.Fatalf("create tier: %d %.800s", p.Status, p.Body)
	}
	admin.form("/console/fields?resource=people", "/console/fields/create", url.Values{"resource": {"people"}, "key": {"account"},
		"label": {"Account"}, "type": {"reference"}, "reference_resource": {"companies"}})
	var tier string
	if err := storetest.Pool(t).QueryRow(t.Context(), `SELECT id::text FROM custom_fields WHERE workspace_id = $1 AND key = 'tier'`,
		e.WorkspaceID).Scan(&tier); err != nil {
		t.Fatal(err)
	}
	if label, opts, required, _ := e.fieldRow(t, tier); label != "Account tier" || !required ||
		!regexp.MustCompile(`"key": "gold".*"order": 1.*"key": "silver".*"order": 2`).MatchString(opts) {
		t.Fatalf("stored tier: %q %s %v", label, opts, required)
	}
	if p := admin.get("/console/fields?resource=people"); !strings.Contains(p.Body, "reference → companies") || strings.Contains(p.Body, "Account tier") {
		t.Fatalf("people's fields: %.800s", p.Body)
	}
	// The creation is the admin's, through the console.
	if n := e.count(`SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'custom_fields'
		AND entity_id = $2::text::uuid AND action = 'created' AND actor_id = $3::text::uuid AND via = 'console'`, e.WorkspaceID, tier, e.Admin.ID); n != 1 {
		t.Fatalf("%d console activity rows for the creation", n)
	}

	// Edit: label, not required, silver first and relabelled, gold archived, bronze added.
	p = admin.form("/console/fields", "/console/fields/update", url.Values{"resource": {"deals"}, "id": {tier}, "label": {"Tier"},
		"description": {""}, "choices": {"true"},
		"opt-key-0": {"gold"}, "opt-label-0": {"Gold"}, "opt-order-0": {"2"}, "opt-archived-0": {"true"},
		"opt-key-1": {"silver"}, "opt-label-1": {"Silver plan"}, "opt-order-1": {"1"},
		"opt-key-2": {"bronze"}, "opt-label-2": {"Bronze"}, "opt-order-2": {"3"}})
	if p.Status != 200 || !strings.Contains(p.Body, "Field saved.") {
		t.Fatalf("edit: %d %.800s", p.Status, p.Body)
	}
	if label, opts, required, _ := e.fieldRow(t, tier); label != "Tier" || required ||
		!regexp.MustCompile(`"key": "silver", "label": "Silver plan", "order": 1.*"key": "gold".*"order": 2, "archived": true.*"key": "bronze".*"order": 3`).MatchString(opts) {
		t.Fatalf("after edit: %q %s %v", label, opts, required)
	}
	// Removing an option is refused (archive it instead); nothing changes.
	p = admin.form("/console/fields", "/console/fields/update", url.Values{"resource": {"deals"}, "id": {tier}, "label": {"Tier"}, "choices": {"true"},
		"opt-key-0": {"silver"}, "opt-label-0": {"Silver"}})
	if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "cannot be removed") {
		t.Fatalf("removing options: %d %.500s", p.Status, p.Body)
	}

	// Archive and unarchive.
	p = admin.form("/console/fields", "/console/fields/update", url.Values{"resource": {"deals"}, "id": {tier}, "archived": {"true"}})
	if _, _, _, archived := e.fieldRow(t, tier); !archived || !strings.Contains(p.Body, `id="unarchive-`+tier+`"`) || !strings.Contains(p.Body, ">archived<") {
		t.Fatalf("archive: %v %.800s", archived, p.Body)
	}
	admin.form("/console/fields", "/console/fields/update", url.Values{"resource": {"deals"}, "id": {tier}, "archived": {"false"}})
	if _, _, _, archived := e.fieldRow(t, tier); archived {
		t.Fatal("unarchive did not restore the field")
	}

	// Another workspace's admin: the id is not found, nothing changes.
	otherWS, err := e.store.CreateWorkspace(t.Context(), "Other "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	other := e.agent().signIn(e.addUser(otherWS, "admin", "active", nil))
	if p := other.form("/console/fields", "/console/fields/update", url.Values{"resource": {"deals"}, "id": {tier}, "archived": {"true"}}); p.Status != http.StatusNotFound {
		t.Fatalf("another workspace's admin archiving: %d %.300s", p.Status, p.Body)
	}
	if p := other.get("/console/fields"); strings.Contains(p.Body, "tier") {
		t.Fatalf("another workspace lists tier: %.500s", p.Body)
	}

	// A member: no link, 403 on the page and on its forms, nothing written.
	member := e.agent().signIn(e.Member)
	if home := member.get("/console"); strings.Contains(home.Body, `href="/console/fields"`) {
		t.Fatal("a member sees the Fields link")
	}
	if p := member.get("/console/fields"); p.Status != http.StatusForbidden {
		t.Fatalf("member on the page: %d", p.Status)
	}
	if p := member.form("/console", "/console/fields/update", url.Values{"resource": {"deals"}, "id": {tier}, "archived": {"true"}}); p.Status != http.StatusForbidden {
		t.Fatalf("member archiving: %d", p.Status)
	}
	if _, _, _, archived := e.fieldRow(t, tier); archived {
		t.Fatal("a member archived the field")
	}
}
