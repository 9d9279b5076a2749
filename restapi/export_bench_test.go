package restapi_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/agencyos/workspaced/workspace"
)

// BenchmarkExportDeals measures an export's rows per second: 20,000 deals of one
// workspace as CSV and as NDJSON through the operation layer (Ops.Export, the list's pages
// of 200) into io.Discard, and, as the baseline in the same run, the same pages read by
// Ops.List alone (docs/performance.md, "Export"). Re-run with:
//
//	go test ./restapi/ -run '^$' -bench ExportDeals -benchtime 3x
func BenchmarkExportDeals(b *testing.B) {
	const rows = 20_000
	w := newBenchWorld(b, rows)
	ops, deals, ctx := w.e.ops, workspace.Lookup("deals"), context.Background()
	for _, format := range []string{workspace.ExportCSV, workspace.ExportNDJSON, "list"} {
		b.Run(format, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if format == "list" {
					params := workspace.ListParams{Limit: workspace.MaxLimit}
					for {
						page, err := ops.List(ctx, w.admin, deals, params)
						if err != nil {
							b.Fatal(err)
						}
						if page.NextCursor == nil {
							break
						}
						params.Cursor = *page.NextCursor
					}
					continue
				}
				if err := ops.Export(ctx, w.admin, deals, workspace.ListParams{}, format, io.Discard, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows*b.N)/time.Since(start).Seconds(), "rows/s")
		})
	}
}
