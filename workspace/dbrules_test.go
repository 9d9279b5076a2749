package workspace_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// The database repeats rules the catalogue states: the feature gate of each table
// (policies), enum values (CHECK constraints), which operations the request role may
// perform (grants), admin-only and self-or-admin writes (policies) and the activity trail
// (triggers). These tests read them back from pg_policies, pg_constraint, the privileges
// and pg_trigger of the migrated database and compare them with workspace.Catalog(), so the
// two cannot drift apart unseen: a wrong feature in a migration, a forgotten CHECK or a
// grant the catalogue does not offer fails here, whatever the migration that made it.

// requestRole is the role every request's transaction drops to (store/actor.go).
const requestRole = "workspaced_app"

// dbExtras are the rules of a table the catalogue does not state, by name: they are
// checked by behaviour (rules_test.go, store/rls_test.go), and listed here so that any
// other policy, trigger, CHECK or grant on a catalogue table is a difference.
var dbExtras = map[string][]string{
	// docs/decisions.md 3: private tasks are hidden from everyone but their people. Their
	// assignee_id is the first of assignee_ids (docs/rest.md, "Task assignees"; restapi's
	// TestTaskAssigneesAgree).
	"tasks": {"policy ws_private", "trigger tasks_assignees",
		"check assignee_id,assignee_ids: CHECK ((NOT (assignee_id IS DISTINCT FROM assignee_ids[1])))"},
	"deal_tasks": {"policy ws_private", "trigger deal_tasks_assignees",
		"check assignee_id,assignee_ids: CHECK ((NOT (assignee_id IS DISTINCT FROM assignee_ids[1])))"},
	// A deal's status is its stage's outcome (docs/rest.md, "Deal status"; restapi's
	// TestDealStatusFollowsItsStage).
	"deals":           {"trigger deals_status"},
	"pipeline_stages": {"trigger pipeline_stages_outcome"},
	// Attachments of a private task are as hidden as the task.
	"task_attachments": {"policy ws_private_parent"},
	// Comments' polymorphic reference is checked by a trigger. (Following the entity's
	// visibility, the entity's feature and the author's edits are catalogue attributes,
	// Entities and AuthorEdits, checked below.)
	"comments": {"trigger entity_check"},
	// ws_record_activity inserts activity as the actor, and activity_source stamps the
	// credential, client and channel; activity_redact keeps endpoint URLs' secrets out;
	// records about admin-only things are for admins (docs/console.md, "Audit log";
	// TestAdminRecordsFollowCatalogue, mcp's TestAdminOnlyActivityHiddenFromMembers).
	"activity": {"grant INSERT", "trigger activity_source", "trigger activity_redact", "policy ws_admin_records"},
	// The catalogue's secret field is filled only in the responses of create and rotation
	// (workspace/webhooks.go); the column itself stays empty.
	"webhook_endpoints": {"check secret: CHECK ((secret IS NULL))"},
	// The atomic credit charge (docs/decisions.md 6) runs as the actor; balances never go negative.
	"credit_balances": {"grant UPDATE", "check balance: CHECK ((balance >= 0))"},
	// Custom field definitions (workspace/customfields.go) are read with the grant of the
	// resource they describe; key and resource never change and a resource takes at most
	// 200 (guard); a change of type or uniqueness rebuilds the field's custom_values
	// (reindex); a new field is absent from every record (absent_fill); every change
	// counts in the workspace's version of its definitions (custom_fields_version,
	// fieldcache.go); a change of searchable flags the field's values q= reads
	// (searchable). restapi's TestCustomFields, TestCustomFieldsEverywhere, TestCustomAbsentRows
	// (custom_absent_test.go) and TestKeptFieldsFollowChanges check them by behaviour.
	"custom_fields": {"policy ws_target_grant", "trigger guard", "trigger reindex", "trigger absent_fill", "trigger custom_fields_version", "trigger searchable",
		"check key: CHECK ((key ~ '^[a-z][a-z0-9_]{0,62}$'::text))",
		"check options: CHECK ((jsonb_typeof(options) = 'array'::text))",
		"check type,reference_resource: CHECK (((type = 'reference'::text) = (reference_resource IS NOT NULL)))"},
}

// The policy expressions of store/migrations, as PostgreSQL prints them back (whitespace
// folded). %s is the feature; ws is the workspace key column. The grant levels in them are
// the ones workspace.Grant.Allows lets read (policyGranted) and write (policyFull,
// policyEntityFull), spelled from the constants, so a level the migrations and the Go
// code disagree on fails here.
var (
	policyGranted = "(workspace_id = ( SELECT CASE WHEN (app_grant('%s'::text) = ANY (ARRAY[" + sqlTexts(grantsAllowing(workspace.OpGet)) +
		"])) THEN app_workspace_id() ELSE NULL::uuid END AS \"case\"))"
	policyFull = "(workspace_id = ( SELECT CASE WHEN (app_grant('%s'::text) = " + sqlTexts(grantsAllowing(workspace.OpCreate)) +
		") THEN app_workspace_id() ELSE NULL::uuid END AS \"case\"))"
	// policyEntityFull is an entity type's feature on writes (Entities): %s the entity
	// type, %s its feature.
	policyEntityFull = "((entity_type <> '%s'::text) OR (( SELECT app_grant('%s'::text) AS app_grant) = " +
		sqlTexts(grantsAllowing(workspace.OpCreate)) + "))"
)

// grantsAllowing lists the grant levels whose holders may run op, lowest first.
func grantsAllowing(op workspace.Op) []string {
	var levels []string
	for _, l := range workspace.GrantLevels() {
		if workspace.Grant(l).Allows(op) {
			levels = append(levels, l)
		}
	}
	return levels
}

// sqlTexts spells levels as PostgreSQL prints text literals back: 'read'::text, 'full'::text.
func sqlTexts(levels []string) string {
	q := make([]string, len(levels))
	for i, l := range levels {
		q[i] = "'" + l + "'::text"
	}
	return strings.Join(q, ", ")
}

const (
	policyWorkspace = "(%s = ( SELECT app_workspace_id() AS app_workspace_id))"
	policyAdmin     = "( SELECT app_is_admin() AS app_is_admin)"
	policySelf      = "((id = ( SELECT app_user_id() AS app_user_id)) OR ( SELECT app_is_admin() AS app_is_admin))"
	// policyAuthor is AuthorEdits: %s is the Requester column.
	policyAuthor = "((%s = ( SELECT app_user_id() AS app_user_id)) OR ( SELECT app_is_admin() AS app_is_admin))"
	// Admin-only tables (webhooks): the service itself, not the request role, reads them to deliver.
	policyAdminOnly = "(( SELECT app_is_admin() AS app_is_admin) OR (CURRENT_USER <> 'workspaced_app'::name))"
)

// TestDatabaseRulesFollowCatalogue: every catalogue resource's table has exactly the
// policies, CHECKs, grants and triggers the catalogue implies (plus the named extras).
func TestDatabaseRulesFollowCatalogue(t *testing.T) {
	t.Parallel()
	conn := adminConn(t)
	diffs, err := dbRuleDiffs(context.Background(), conn, workspace.Catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
}

// TestDatabaseRulesCatchDrift: the comparison fails on a wrong catalogue entry and on a
// wrong policy, so the test above can fail.
func TestDatabaseRulesCatchDrift(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := adminConn(t)

	t.Run("wrong catalogue entry", func(t *testing.T) {
		wrong := make([]*workspace.Resource, len(workspace.Catalog()))
		for i, r := range workspace.Catalog() {
			c := *r
			switch r.Name {
			case "deals":
				c.Feature = workspace.HR // the migration gates deals on crm
			case "leave_requests":
				c.Fields = slices.Clone(r.Fields)
				f := c.Field("type")
				f.Enum = []string{"annual", "sick"} // the CHECK also allows personal
			case "labels":
				c.Access = workspace.ReadOnly // the request role may write labels
			}
			wrong[i] = &c
		}
		diffs, err := dbRuleDiffs(ctx, conn, wrong)
		if err != nil {
			t.Fatal(err)
		}
		wantDiffs(t, diffs,
			`deals: missing policy PERMISSIVE SELECT using (workspace_id = ( SELECT CASE WHEN (app_grant('hr'::text)`,
			`deals: unexpected policy ws_read PERMISSIVE SELECT using (workspace_id = ( SELECT CASE WHEN (app_grant('crm'::text)`,
			`deals: missing policy PERMISSIVE `, // and INSERT, UPDATE, DELETE on hr
			`deals: unexpected policy ws_`,      // and ws_insert, ws_update, ws_delete on crm
			`deals: activity trigger calls ws_record_activity('deals', 'crm'), want ws_record_activity('deals', 'hr')`,
			`deals: webhook_event trigger calls ws_record_event('deals', 'crm'), want ws_record_event('deals', 'hr')`,
			`deals: activity_rows trigger calls ws_record_activity_rows('deals', 'crm'), want ws_record_activity_rows('deals', 'hr')`,
			`deals: webhook_event_rows trigger calls ws_record_event_rows('deals', 'crm'), want ws_record_event_rows('deals', 'hr')`,
			`leave_requests: missing check type: CHECK ((type = ANY (ARRAY['annual'::text, 'sick'::text])))`,
			`leave_requests: unexpected check type: CHECK ((type = ANY (ARRAY['annual'::text, 'sick'::text, 'personal'::text])))`,
			`labels: request role may INSERT, catalogue says read only`,
			`labels: request role may UPDATE (`,
			`labels: unexpected trigger activity`,
			`labels: unexpected trigger webhook_event`,
			`labels: unexpected trigger activity_rows`,
			`labels: unexpected trigger webhook_event_rows`)
	})

	t.Run("wrong policy", func(t *testing.T) {
		// DDL is transactional: the wrong policy exists only inside this transaction.
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		for _, q := range []string{
			`DROP POLICY ws_read ON expenses`,
			`CREATE POLICY ws_read ON expenses FOR SELECT USING (workspace_id = (SELECT CASE WHEN app_grant('hr') IN ('read', 'full') THEN app_workspace_id() END))`,
			`ALTER TABLE pipeline_stages DROP CONSTRAINT pipeline_stages_metric_tag_check`,
			`REVOKE DELETE ON space_members FROM workspaced_app`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		diffs, err := dbRuleDiffs(ctx, tx.Conn(), workspace.Catalog())
		if err != nil {
			t.Fatal(err)
		}
		wantDiffs(t, diffs,
			`expenses: missing policy PERMISSIVE SELECT using (workspace_id = ( SELECT CASE WHEN (app_grant('finance'::text)`,
			`expenses: unexpected policy ws_read PERMISSIVE SELECT using (workspace_id = ( SELECT CASE WHEN (app_grant('hr'::text)`,
			`pipeline_stages: missing check metric_tag: CHECK ((metric_tag = ANY (ARRAY['messages_sent'::text`,
			`space_members: request role may not DELETE, catalogue says read, write, detach`)
	})
}

// TestAdminRecordsFollowCatalogue: the activity records only admins may read (policy
// ws_admin_records) are exactly those about the catalogue's admin-only resources and the
// administration entities of store.AdminOnlyEntities, so a resource made admin-only in the
// catalogue cannot keep a log members read.
func TestAdminRecordsFollowCatalogue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := adminConn(t)
	diffs, err := adminRecordDiffs(ctx, conn, workspace.Catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}

	// The comparison fails on a catalogue that makes one more resource admin-only.
	wrong := make([]*workspace.Resource, len(workspace.Catalog()))
	for i, r := range workspace.Catalog() {
		c := *r
		if r.Name == "automations" {
			c.AdminOnly = true
		}
		wrong[i] = &c
	}
	diffs, err = adminRecordDiffs(ctx, conn, wrong)
	if err != nil {
		t.Fatal(err)
	}
	wantDiffs(t, diffs, `activity of automations is admin-only in the catalogue, but ws_admin_records does not list it`)
}

// adminRecordDiffs compares the entity types policy ws_admin_records hides from members
// with the catalogue's admin-only resources and store.AdminOnlyEntities.
func adminRecordDiffs(ctx context.Context, conn *pgx.Conn, catalog []*workspace.Resource) ([]string, error) {
	var qual string
	if err := conn.QueryRow(ctx, `SELECT qual FROM pg_policies WHERE schemaname = 'public' AND tablename = 'activity'
		AND policyname = 'ws_admin_records' AND permissive = 'RESTRICTIVE' AND cmd = 'SELECT'`).Scan(&qual); err != nil {
		return nil, fmt.Errorf("policy ws_admin_records: %w", err)
	}
	// (entity_type <> ALL (ARRAY['agent_keys'::text, ...])) OR ( SELECT app_is_admin() AS app_is_admin)
	m := regexp.MustCompile(`^\(\(entity_type <> ALL \(ARRAY\[(.*)\]\)\) OR \( SELECT app_is_admin\(\) AS app_is_admin\)\)$`).
		FindStringSubmatch(fold(qual))
	if m == nil {
		return []string{"ws_admin_records is not (entity_type NOT IN (...) OR app_is_admin()): " + fold(qual)}, nil
	}
	listed := map[string]bool{}
	for _, q := range strings.Split(m[1], ", ") {
		listed[strings.TrimSuffix(strings.TrimPrefix(q, "'"), "'::text")] = true
	}
	var diffs []string
	want := map[string]string{}
	for _, r := range catalog {
		if r.AdminOnly {
			want[r.Name] = "admin-only in the catalogue"
		}
	}
	for _, et := range store.AdminOnlyEntities() {
		want[et] = "in store.AdminOnlyEntities"
	}
	for _, et := range sortedKeys(want) {
		if !listed[et] {
			diffs = append(diffs, fmt.Sprintf("activity of %s is %s, but ws_admin_records does not list it", et, want[et]))
		}
	}
	for _, et := range sortedKeys(listed) {
		if want[et] == "" {
			diffs = append(diffs, fmt.Sprintf("ws_admin_records lists %s, neither admin-only in the catalogue nor in store.AdminOnlyEntities", et))
		}
	}
	return diffs, nil
}

// wantDiffs fails unless each prefix begins some difference, and every difference is wanted.
func wantDiffs(t *testing.T, diffs []string, prefixes ...string) {
	t.Helper()
	used := make([]bool, len(diffs))
	for _, p := range prefixes {
		found := false
		for i, d := range diffs {
			if strings.HasPrefix(d, p) {
				found, used[i] = true, true
			}
		}
		if !found {
			t.Errorf("no difference starts with %q", p)
		}
	}
	for i, d := range diffs {
		if !used[i] {
			t.Errorf("unwanted difference: %s", d)
		}
	}
}

func adminConn(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storetest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// dbRuleDiffs lists every difference between the catalogue and the database's rules.
func dbRuleDiffs(ctx context.Context, conn *pgx.Conn, catalog []*workspace.Resource) ([]string, error) {
	var diffs []string
	for _, r := range catalog {
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, "public."+r.Table).Scan(&exists); err != nil {
			return nil, err
		}
		if !exists {
			if r.Access != workspace.WriteOnly { // enrich is a call, not a table
				diffs = append(diffs, fmt.Sprintf("%s: table %s does not exist", r.Name, r.Table))
			}
			continue
		}
		d, err := tableDiffs(ctx, conn, r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Name, err)
		}
		diffs = append(diffs, d...)
	}
	d, err := featureNameDiffs(ctx, conn)
	return append(diffs, d...), err
}

// tableDiffs compares one resource's table with what the catalogue says of it.
func tableDiffs(ctx context.Context, conn *pgx.Conn, r *workspace.Resource) ([]string, error) {
	var diffs []string
	differ := func(format string, args ...any) {
		diffs = append(diffs, r.Name+": "+fmt.Sprintf(format, args...))
	}
	extras := dbExtras[r.Table]
	if r.Custom { // custom_fields.go: the record's values, copied by a trigger into custom_values
		extras = append(slices.Clone(extras), "trigger custom_index", "trigger custom_index_rows",
			"check custom_fields: CHECK ((jsonb_typeof(custom_fields) = 'object'::text))")
	}
	extra := func(s string) bool { return slices.Contains(extras, s) }

	// Row-level security is on and applies to the table's owner too.
	var rls, force bool
	if err := conn.QueryRow(ctx, `SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = $1::regclass`,
		r.Table).Scan(&rls, &force); err != nil {
		return nil, err
	}
	if !rls || !force {
		differ("row-level security enabled %v, forced %v; want both", rls, force)
	}

	// Policies: the feature gate (permissive), admin-only and self-or-admin writes
	// (restrictive), compared by what they say, not by name.
	want := map[string]bool{}
	key := "workspace_id"
	if r.Table == "workspaces" {
		key = "id"
	}
	ws := fmt.Sprintf(policyWorkspace, key)
	if r.Feature == workspace.NoFeature {
		want[policy("PERMISSIVE", "ALL", ws, ws)] = true
	} else {
		f := string(r.Feature)
		want[policy("PERMISSIVE", "SELECT", fmt.Sprintf(policyGranted, f), "")] = true
		want[policy("PERMISSIVE", "INSERT", "", fmt.Sprintf(policyFull, f))] = true
		want[policy("PERMISSIVE", "UPDATE", ws, fmt.Sprintf(policyFull, f))] = true
		want[policy("PERMISSIVE", "DELETE", fmt.Sprintf(policyFull, f), "")] = true
	}
	if r.AdminWrites && r.CanCreate() {
		want[policy("RESTRICTIVE", "INSERT", "", policyAdmin)] = true
	}
	if r.AdminWrites && r.CanUpdate() {
		want[policy("RESTRICTIVE", "UPDATE", "true", policyAdmin)] = true
	}
	if r.SelfOrAdmin {
		want[policy("RESTRICTIVE", "UPDATE", "true", policySelf)] = true
	}
	if r.AdminOnly {
		want[policy("RESTRICTIVE", "ALL", policyAdminOnly, policyAdminOnly)] = true
	}
	if r.AuthorEdits {
		author := fmt.Sprintf(policyAuthor, r.Requester)
		want[policy("RESTRICTIVE", "UPDATE", author, author)] = true
	}
	entityPolicy := ""
	if r.Entities != nil {
		// Reading follows the entity's visibility; the policy's expression is the one
		// rule of migrations 00001 and 00010 the catalogue does not restate, so it is
		// matched by name.
		entityPolicy = "ws_entity_visible"
		for _, et := range sortedKeys(r.Entities) {
			full := fmt.Sprintf(policyEntityFull, et, r.Entities[et])
			if r.CanCreate() {
				want[policy("RESTRICTIVE", "INSERT", "", full)] = true
			}
			if r.CanUpdate() {
				want[policy("RESTRICTIVE", "UPDATE", full, full)] = true
			}
		}
	}
	rows, err := conn.Query(ctx, `SELECT policyname, permissive, cmd, coalesce(qual, ''), coalesce(with_check, '')
		FROM pg_policies WHERE schemaname = 'public' AND tablename = $1 ORDER BY policyname`, r.Table)
	if err != nil {
		return nil, err
	}
	type pol struct{ name, kind, cmd, using, check string }
	pols, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (pol, error) {
		var p pol
		err := row.Scan(&p.name, &p.kind, &p.cmd, &p.using, &p.check)
		return p, err
	})
	if err != nil {
		return nil, err
	}
	for _, p := range pols {
		s := policy(p.kind, p.cmd, fold(p.using), fold(p.check))
		switch {
		case want[s]:
			delete(want, s)
		case p.name == entityPolicy && p.kind == "RESTRICTIVE":
			entityPolicy = ""
		case !extra("policy " + p.name):
			differ("unexpected policy %s %s", p.name, s)
		}
	}
	for _, s := range sortedKeys(want) {
		differ("missing policy %s", s)
	}
	if entityPolicy != "" {
		differ("missing policy %s (Entities)", entityPolicy)
	}

	// CHECK constraints: an enum's values, an Int field's bounds; nothing else.
	wantChecks := map[string]bool{}
	for _, f := range r.Fields {
		if len(f.Enum) > 0 {
			quoted := make([]string, len(f.Enum))
			for i, v := range f.Enum {
				quoted[i] = "'" + v + "'::text"
			}
			wantChecks[fmt.Sprintf("%s: CHECK ((%s = ANY (ARRAY[%s])))", f.Name, f.Name, strings.Join(quoted, ", "))] = true
		}
		if f.Min != nil && f.Max != nil {
			wantChecks[fmt.Sprintf("%s: CHECK (((%s >= %d) AND (%s <= %d)))", f.Name, f.Name, *f.Min, f.Name, *f.Max)] = true
		}
	}
	checks, err := strs(ctx, conn, `SELECT string_agg(a.attname, ',') || ': ' || pg_get_constraintdef(c.oid)
		FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
		WHERE c.contype = 'c' AND c.conrelid = $1::regclass GROUP BY c.oid`, r.Table)
	if err != nil {
		return nil, err
	}
	for _, c := range checks {
		switch {
		case wantChecks[c]:
			delete(wantChecks, c)
		case !extra("check " + c):
			differ("unexpected check %s", c)
		}
	}
	for _, c := range sortedKeys(wantChecks) {
		differ("missing check %s", c)
	}

	// Grants to the request role: reading always; INSERT for create, UPDATE of at least
	// the writable columns for update (exactly them where the grant is per column),
	// DELETE for detach; never TRUNCATE.
	var sel, ins, del, trunc bool
	if err := conn.QueryRow(ctx, `SELECT has_table_privilege($1, $2::regclass, 'SELECT'),
		has_table_privilege($1, $2::regclass, 'INSERT'), has_table_privilege($1, $2::regclass, 'DELETE'),
		has_table_privilege($1, $2::regclass, 'TRUNCATE')`, requestRole, r.Table).Scan(&sel, &ins, &del, &trunc); err != nil {
		return nil, err
	}
	if !sel {
		differ("request role may not SELECT")
	}
	if trunc {
		differ("request role may TRUNCATE")
	}
	if ins != r.CanCreate() && !extra("grant INSERT") {
		differ("request role may %s, catalogue says %s", may(ins, "INSERT"), r.Access)
	}
	if del != r.CanDetach() {
		differ("request role may %s, catalogue says %s", may(del, "DELETE"), r.Access)
	}
	updatable, err := strs(ctx, conn, `SELECT attname FROM pg_attribute WHERE attrelid = $2::regclass AND attnum > 0
		AND NOT attisdropped AND has_column_privilege($1, attrelid, attnum, 'UPDATE') ORDER BY attname`, requestRole, r.Table)
	if err != nil {
		return nil, err
	}
	var tableUpdate bool
	if err := conn.QueryRow(ctx, `SELECT has_table_privilege($1, $2::regclass, 'UPDATE')`, requestRole, r.Table).Scan(&tableUpdate); err != nil {
		return nil, err
	}
	var writable []string
	for _, f := range r.Writable() {
		writable = append(writable, f.Name)
	}
	sort.Strings(writable)
	switch {
	case len(updatable) > 0 && !r.CanUpdate():
		if !extra("grant UPDATE") {
			differ("request role may UPDATE (%s), catalogue says %s", strings.Join(updatable, ", "), r.Access)
		}
	case r.CanUpdate() && !tableUpdate && !slices.Equal(updatable, writable):
		differ("request role may UPDATE (%s), catalogue's writable fields are (%s)",
			strings.Join(updatable, ", "), strings.Join(writable, ", "))
	case r.CanUpdate():
		for _, c := range writable {
			if !slices.Contains(updatable, c) {
				differ("request role may not UPDATE writable field %s", c)
			}
		}
	}

	// Triggers: updated_at on every table, the activity trail on what the API writes
	// (named as the catalogue names the resource, with its feature), the review stamp,
	// uuid-array reference checks for writable UUIDs fields; nothing else.
	defs, err := strs(ctx, conn, `SELECT tgname || ' ' || pg_get_triggerdef(oid) FROM pg_trigger
		WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY tgname`, r.Table)
	if err != nil {
		return nil, err
	}
	triggers := map[string]string{}
	for _, d := range defs {
		name, def, _ := strings.Cut(d, " ")
		triggers[name] = def
	}
	expectTrigger := func(name, timing, function string, events ...string) {
		def, ok := triggers[name]
		delete(triggers, name)
		if !ok {
			differ("missing trigger %s", name)
			return
		}
		each := " FOR EACH ROW EXECUTE FUNCTION "
		if strings.HasSuffix(name, "_rows") { // a statement trigger over the inserted rows
			each = " REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "
		}
		head, call, _ := strings.Cut(def, each)
		if !strings.Contains(head, " "+timing+" ") {
			differ("trigger %s is not %s: %s", name, timing, def)
		}
		for _, ev := range events {
			if !regexp.MustCompile(`\b` + ev + `\b`).MatchString(head) {
				differ("trigger %s does not fire on %s: %s", name, ev, def)
			}
		}
		if call != function {
			differ("%s trigger calls %s, want %s", name, call, function)
		}
	}
	expectTrigger("touch", "BEFORE", "ws_touch()", "UPDATE")
	if actions := r.Events(); len(actions) > 0 && !extra("no activity trigger") {
		var events []string
		inserts := false
		for _, a := range actions {
			switch a {
			case workspace.EventCreated: // a statement trigger (store/migrations/00058_statement_triggers.sql)
				inserts = true
			case workspace.EventMerged, workspace.EventUpdated: // merged: the UPDATE that marks merged_into_id
				events = append(events, "UPDATE")
			case workspace.EventDetached:
				events = append(events, "DELETE")
			}
		}
		for _, t := range []struct{ name, function string }{{"activity", "ws_record_activity"}, {"webhook_event", "ws_record_event"}} {
			// The webhook outbox is fed beside the activity trail (store/migrations/00023_webhooks.sql).
			if len(events) > 0 {
				expectTrigger(t.name, "AFTER", fmt.Sprintf("%s('%s', '%s')", t.function, r.Name, r.Feature), events...)
			}
			if inserts {
				expectTrigger(t.name+"_rows", "AFTER", fmt.Sprintf("%s_rows('%s', '%s')", t.function, r.Name, r.Feature), "INSERT")
			}
		}
	}
	if r.Reviewed {
		expectTrigger("review", "BEFORE", "ws_stamp_review()", "INSERT", "UPDATE") // a create with a decided status is a review
	}
	for _, f := range r.Writable() {
		if f.Type == workspace.UUIDs {
			name := f.Name + "_check"
			if def, ok := triggers[name]; ok && !strings.Contains(def, "ws_check_id_array('"+f.Name+"', ") {
				differ("trigger %s does not check %s: %s", name, f.Name, def)
			} else if !ok {
				differ("missing trigger %s (uuid array references)", name)
			}
			delete(triggers, name)
		}
	}
	for _, name := range sortedKeys(triggers) {
		if !extra("trigger " + name) {
			differ("unexpected trigger %s", name)
		}
	}

	// The requester column is the acting user by default, whoever writes the row.
	if r.Requester != "" {
		var def string
		if err := conn.QueryRow(ctx, `SELECT coalesce(pg_get_expr(d.adbin, d.adrelid), '') FROM pg_attribute a
			LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = $1::regclass AND a.attname = $2`, r.Table, r.Requester).Scan(&def); err != nil {
			return nil, err
		}
		if def != "app_user_id()" {
			differ("requester column %s defaults to %q, want app_user_id()", r.Requester, def)
		}
	}
	return diffs, nil
}

// featureNameDiffs: every feature any policy or activity trigger names is one of
// store.Features, and every one of store.Features gates some catalogue resource.
func featureNameDiffs(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	named, err := strs(ctx, conn, `SELECT DISTINCT m[1] FROM pg_policies,
		regexp_matches(coalesce(qual, '') || coalesce(with_check, ''), 'app_grant\(''([^'']*)''', 'g') m
		WHERE schemaname = 'public'
		UNION SELECT DISTINCT m[1] FROM pg_trigger t,
		regexp_matches(pg_get_triggerdef(t.oid), 'ws_record_activity\(''[^'']*'', ''([^'']+)''\)') m`)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for _, f := range named {
		if !slices.Contains(store.Features, f) {
			diffs = append(diffs, fmt.Sprintf("database names feature %q, not one of store.Features %v", f, store.Features))
		}
	}
	for _, f := range store.Features {
		if !slices.Contains(named, f) {
			diffs = append(diffs, fmt.Sprintf("feature %q of store.Features gates nothing in the database", f))
		}
	}
	return diffs, nil
}

func policy(kind, cmd, using, check string) string {
	s := kind + " " + cmd
	if using != "" {
		s += " using " + using
	}
	if check != "" {
		s += " check " + check
	}
	return s
}

var spaces = regexp.MustCompile(`\s+`)

// fold folds PostgreSQL's pretty-printed whitespace to single spaces.
func fold(s string) string { return spaces.ReplaceAllString(strings.TrimSpace(s), " ") }

func may(granted bool, privilege string) string {
	if granted {
		return privilege
	}
	return "not " + privilege
}

func strs(ctx context.Context, conn *pgx.Conn, sql string, args ...any) ([]string, error) {
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestUnsetGrantIsLowestLevel: app_grant (store/migrations) reads a feature the request's
// grants leave out as the lowest level, as auth.Principal.Grant does.
func TestUnsetGrantIsLowestLevel(t *testing.T) {
	t.Parallel()
	conn := adminConn(t)
	var got string
	if err := conn.QueryRow(context.Background(), `SELECT app_grant('crm')`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := workspace.GrantLevels()[0]; got != want || want != string(workspace.GrantNone) {
		t.Fatalf("app_grant of an unset feature is %q, want %q", got, workspace.GrantNone)
	}
}
