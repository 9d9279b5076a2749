package restapi_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
)

// BenchmarkBatchCreate100 times one batch of 100 deal creates (one INSERT of 100 rows,
// workspace/batchset.go), one atomic batch and 100 single creates of such deals, in the
// same run, over the full HTTP stack (docs/performance.md,
// "Batch writes"). It reports each one's median and the ratio. Re-run with:
//
//	go test ./restapi/ -run '^$' -bench BatchCreate100 -benchtime 30x
func BenchmarkBatchCreate100(b *testing.B) {
	w := newBenchWorld(b, 1)
	var pipeline string
	if err := storetest.Pool(b).QueryRow(context.Background(), `SELECT pipeline_id::text FROM deals WHERE id = $1`, w.deal).Scan(&pipeline); err != nil {
		b.Fatal(err)
	}
	post := func(path, body string, want int) time.Duration {
		req, _ := http.NewRequest("POST", w.e.srv.URL+"/v1"+path, strings.NewReader(body))
		req.Header.Set("apikey", testAPIKey)
		req.Header.Set("Authorization", "Bearer "+w.token)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		took := time.Since(start)
		if res.StatusCode != want {
			b.Fatalf("POST %s: %d", path, res.StatusCode)
		}
		return took
	}
	deal := func(i int) string {
		return `{"name":"Imported ` + strconv.Itoa(i) + `","pipeline_id":"` + pipeline + `","value":` + strconv.Itoa(i) + `,"notes":"from the spreadsheet"}`
	}
	var batch, atomic, single []time.Duration
	n := 0
	for b.Loop() {
		recs := make([]string, 100)
		for i := range recs {
			n++
			recs[i] = deal(n)
		}
		batch = append(batch, post("/deals/batch", `{"operation":"create","records":[`+strings.Join(recs, ",")+`]}`, http.StatusOK))
		for i := range recs {
			n++
			recs[i] = deal(n)
		}
		atomic = append(atomic, post("/deals/batch", `{"operation":"create","atomic":true,"records":[`+strings.Join(recs, ",")+`]}`, http.StatusOK))
		var total time.Duration
		for range 100 {
			n++
			total += post("/deals", deal(n), http.StatusCreated)
		}
		single = append(single, total)
	}
	p50 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	bp, ap, sp := p50(batch), p50(atomic), p50(single)
	b.ReportMetric(float64(bp.Microseconds())/1000, "batch-p50-ms")
	b.ReportMetric(float64(ap.Microseconds())/1000, "atomic-p50-ms")
	b.ReportMetric(float64(sp.Microseconds())/1000, "single100-p50-ms")
	b.ReportMetric(float64(bp)/float64(sp), "batch/single")
}
