package workspace_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestCustomFieldPlansAtScale: TestCustomFieldPlans' checks at TestFindPlansAtScale's size,
// in a database of its own (the package's other tests seed and analyse deals in the one
// they share, and a plan test there read their statistics). 100,000 deals in the workspace
// read among 1,000,000 across 50 workspaces, each workspace with the 20 custom fields of
// mixed types (customPlanTypes). Before and after ANALYZE: a filter with each operator on
// each field and a sort on each sortable one read deals, custom_values and custom_absent by
// no Seq Scan, a filter's first page reads at most customFilterBound and a sort's at most
// customSortBuffers (over the list's bound: each deal of the page is one descent of the
// primary key, as the side table's design has it), and q on the searchable f01, as a list
// and as search, reads both search indexes within maxListBuffers (checkCustomSearch).
//
// The workspace read holds a value of each field on every deal (2,000,000 custom_values
// rows, custom_absent rows for the sparseDeals without f18); the other workspaces hold
// their fields' values on one deal in otherEvery, so that the seed stays cheap, and no
// custom_absent rows for the rest. Every probe, sort and search of the workspace read leads
// its index with a field of its own, so the other workspaces' rows change only the
// indexes' depth and the statistics. The seed builds the indexes of deals and
// custom_values once, after the rows (dropIndexes).
//
// WORKSPACED_PLAN_SCALE=1 runs it (.ci/test sets it).
func TestCustomFieldPlansAtScale(t *testing.T) {
	if os.Getenv("WORKSPACED_PLAN_SCALE") == "" {
		t.Skip("WORKSPACED_PLAN_SCALE=1 runs the 1,000,000-row plan test (.ci/test sets it)")
	}
	const otherEvery = 50
	s, dsn := storetest.Private(t)
	ctx := context.Background()
	bulk := replicaPool(t, dsn)
	owner, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	f := storetest.Workspace(t, s, workspace.Scopes())
	reader := readerOfEverything(t, s, f.WorkspaceID)
	ops := workspace.NewOps(workspace.Config{Store: s})
	others := make([]storetest.Fixture, scaleWorkspaces-1)
	for i := range others {
		others[i] = storetest.Workspace(t, s, workspace.Scopes())
	}

	start := time.Now()
	sd := &seeder{t: t, pool: bulk, ws: f.WorkspaceID, user: f.Admin.UserID, parents: map[string]string{},
		set: map[string]map[string]string{"deals": {"custom_fields": customFieldsValue(nil)}}}
	for _, table := range []string{"deals", "custom_fields", "custom_values", "custom_absent"} {
		sd.quiet(table)
	}
	indexes := append(sd.dropIndexes("deals"), sd.dropIndexes("custom_values")...)
	defineCustomFields(t, bulk, f.WorkspaceID, f.Admin.UserID)
	sd.seed("deals", scaleRows)
	fillCustomValues(t, bulk, f.WorkspaceID)
	// The other workspaces: "Acme Zeta" names one deal in a hundred, "Acme Yotta" the f01 of
	// each deal with values, so a search that matched words before workspaces would read
	// far past the bound.
	values := "CASE WHEN g % " + fmt.Sprint(otherEvery) + " = 0 THEN " +
		customFieldsValue(map[string]string{"f01": "to_jsonb('Acme Yotta ' || g)"}) + " ELSE '{}'::jsonb END"
	per := (scaleTableRows - scaleRows) / len(others)
	for i, o := range others {
		n := per
		if i == 0 {
			n += (scaleTableRows - scaleRows) % len(others)
		}
		defineCustomFields(t, bulk, o.WorkspaceID, o.Admin.UserID)
		od := &seeder{t: t, pool: bulk, ws: o.WorkspaceID, user: o.Admin.UserID, parents: map[string]string{},
			set: map[string]map[string]string{"deals": {"custom_fields": values,
				"name": "CASE WHEN g % 100 = 3 THEN 'Acme Zeta ' || g ELSE 'Row ' || md5(g::text) END"}}}
		od.seed("deals", n)
		fillCustomValues(t, bulk, o.WorkspaceID)
	}
	sd.buildIndexes(indexes)
	unsetSparse(t, owner, f.WorkspaceID)
	seedSearched(t, owner, f.WorkspaceID, searchedDeals)
	sd.exec("VACUUM deals, custom_fields, custom_values, custom_absent") // no dead versions; the visibility map set
	var rows int
	if err := bulk.QueryRow(ctx, "SELECT count(*) FROM custom_values").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d deals, %d custom_values rows in %s", scaleTableRows, rows, time.Since(start).Round(time.Second))

	for _, when := range []string{"not analysed since seeding", "analysed"} {
		if when == "analysed" {
			sd.exec("ANALYZE deals, custom_fields, custom_values, custom_absent")
		}
		figures := checkCustomPlans(t, s, ops, reader, f.Admin.UserID, scaleRows, when)
		figures = append(figures, checkCustomSearch(t, s, ops, reader, when)...)
		slices.Sort(figures)
		t.Logf("%s:\n%s", when, strings.Join(figures, "\n"))
	}
}

// replicaPool is a pool on dsn as the owner with triggers and foreign key checks off
// (replica mode), for seeds whose rows are consistent by construction: a million activity
// triggers and reference checks would take most of their time. Closed when the test ends.
func replicaPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["session_replication_role"] = "replica"
	bulk, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bulk.Close)
	return bulk
}
