package restapi_test

import (
	"context"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/agencyos/workspaced/workspace"
)

// BenchmarkExportDeals measures an export's rows per second: WORKSPACED_EXPORT_ROWS deals
// (default 20,000) of one workspace as CSV and as NDJSON through the operation layer
// (Ops.Export, the list's pages of 200) into io.Discard, and, as the baseline in the same
// run, the same pages read by Ops.List alone (docs/performance.md, "Export"). Re-run with:
//
//	go test ./restapi/ -run '^$' -bench ExportDeals -benchtime 3x
//	WORKSPACED_EXPORT_ROWS=1000000 go test ./restapi/ -run '^$' -bench ExportDeals -benchtime 1x -timeout 30m
func BenchmarkExportDeals(b *testing.B) {
	rows := 20_000
	if v, err := strconv.Atoi(os.Getenv("WORKSPACED_EXPORT_ROWS")); err == nil && v > 0 {
		rows = v
	}
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
