package restapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/imports/importfile"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// BenchmarkImportLatency measures how an import weighs on the API: the p99 of GET
// /v1/deals/{id}, one request after another over the full HTTP stack, quiet (before the
// import) and while an import of WORKSPACED_IMPORT_ROWS people (default 2,000; 12
// columns, 3 custom fields, activity and a webhook endpoint subscribed, as
// imports.BenchmarkImportPeople's file) runs. It reports both, their ratio and the
// import's rows/s; docs/performance.md, "Imports", has the figures. Re-run with:
//
//	WORKSPACED_IMPORT_ROWS=20000 go test ./restapi/ -run '^$' -bench ImportLatency -benchtime 1x
func BenchmarkImportLatency(b *testing.B) {
	rows := 2000
	if v, err := strconv.Atoi(os.Getenv("WORKSPACED_IMPORT_ROWS")); err == nil && v > 0 {
		rows = v
	}
	w := newBenchWorld(b, 60)
	ctx := context.Background()
	for _, cf := range []string{`{"resource":"people","key":"score","label":"Score","type":"number"}`,
		`{"resource":"people","key":"since","label":"Since","type":"date"}`,
		`{"resource":"people","key":"tier","label":"Tier","type":"text"}`} {
		if _, err := w.e.ops.Post(ctx, w.admin, workspace.OpCreate, workspace.Lookup("custom_fields"), workspace.NewBody([]byte(cf)), ""); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := storetest.Pool(b).Exec(ctx, `INSERT INTO webhook_endpoints (workspace_id, url) VALUES ($1, 'https://hooks.example/in')`, w.admin.WorkspaceID); err != nil {
		b.Fatal(err)
	}
	svc := withImports(b, w.e)
	var file strings.Builder
	file.WriteString("Name,Company,Phone,Email,Position,LinkedIn,Twitter,Website,Score,Since,Tier,Notes\n")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&file, "Person %d,Acme %d,+44 20 7946 %04d,p%d@bench.example,Engineer,https://linkedin.com/in/p%d,https://x.com/p%d,https://acme%d.example,%d.5,2026-01-%02d,gold,note %d\n",
			i, i%500, i%10000, i, i, i, i%500, i%100, i%28+1, i)
	}
	mapping := map[string]string{"Name": "name", "Company": "company", "Phone": "phone", "Email": "email",
		"Position": "position", "LinkedIn": "linkedin_url", "Twitter": "twitter_url",
		"Score": "custom_fields.score", "Since": "custom_fields.since", "Tier": "custom_fields.tier"}
	get := func() time.Duration {
		start := time.Now()
		w.get(b, "/deals/"+w.deal)
		return time.Since(start)
	}
	p99 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)*99/100]) / float64(time.Millisecond)
	}
	for range 200 { // the connections and the statements' plans, made before timing
		get()
	}
	for b.Loop() {
		var quiet []time.Duration
		for range 500 {
			quiet = append(quiet, get())
		}
		start := time.Now()
		data, err := svc.Create(ctx, w.admin, importfile.Params{Resource: "people", Operation: "create", Mapping: mapping}, strings.NewReader(file.String()))
		if err != nil {
			b.Fatal(err)
		}
		var imp struct{ ID string }
		_ = json.Unmarshal(data, &imp)
		var busy []time.Duration
		var status string
		var created int
		for status != "completed" && status != "failed" && status != "cancelled" {
			busy = append(busy, get())
			if err := w.e.store.Query(ctx, w.admin.Actor(), `SELECT status, rows_created FROM imports WHERE id = $1`, []any{imp.ID}, func(r pgx.Rows) error {
				for r.Next() {
					if err := r.Scan(&status, &created); err != nil {
						return err
					}
				}
				return r.Err()
			}); err != nil {
				b.Fatal(err)
			}
		}
		took := time.Since(start)
		if status != "completed" || created != rows {
			b.Fatalf("import %s: %d of %d created", status, created, rows)
		}
		q, i := p99(quiet), p99(busy)
		b.ReportMetric(float64(rows)/took.Seconds(), "rows/s")
		b.ReportMetric(q, "quiet-p99-ms")
		b.ReportMetric(i, "import-p99-ms")
		b.ReportMetric(i/q, "p99-ratio")
	}
}
