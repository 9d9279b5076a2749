package webhooks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// Benchmarks of docs/performance.md ("Webhooks"). Each reports its figure as a metric and
// asserts nothing about time.

// BenchmarkDeliveries: deliveries per second to a local receiver, from events already in
// the outbox to their 2xx answers (dispatch, River, signing, the POST, the log row).
func BenchmarkDeliveries(b *testing.B) {
	e := newEnv(b, loopbackPolicy)
	rc := newReceiver(b)
	f := storetest.Workspace(b, e.store, workspace.Scopes())
	endpoint, _ := e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	events := max(b.N, 1) * 500
	e.serviceRow(f.WorkspaceID, `WITH x AS (INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, endpoint_ids)
		SELECT $1::text::uuid, 'labels.created', 'labels', gen_random_uuid(), jsonb_build_object('name', 'L' || g), ARRAY[$3::text::uuid]
		FROM generate_series(1, $2::int) g RETURNING 1) SELECT count(*) FROM x`, []any{f.WorkspaceID, events, endpoint}, new(int))
	b.ResetTimer()
	start := time.Now()
	e.start(e.svc)
	rc.waitFor(b, events)
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(events)/elapsed.Seconds(), "deliveries/s")
}

// BenchmarkCommitToDelivery: REST creates at 200 a second, each event's time from its
// commit (created_at) to the receiver's answer; reports the 50th and 95th percentiles.
func BenchmarkCommitToDelivery(b *testing.B) {
	e := newEnv(b, loopbackPolicy)
	var mu sync.Mutex
	var lags []time.Duration
	rc := newReceiver(b)
	inner := rc.Config.Handler
	rc.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var ev struct {
			CreatedAt time.Time `json:"created_at"`
		}
		_ = json.Unmarshal(body, &ev)
		inner.ServeHTTP(w, r)
		created := ev.CreatedAt
		mu.Lock()
		lags = append(lags, at.Sub(created))
		mu.Unlock()
	})
	f := storetest.Workspace(b, e.store, workspace.Scopes())
	e.createEndpoint(f.Admin, rc.URL+"/hook", "labels.*")
	e.start(e.svc)
	writes := max(b.N, 1) * 400 // two seconds at 200 writes/s per iteration
	b.ResetTimer()
	tick := time.NewTicker(time.Second / 200)
	var wg sync.WaitGroup
	for i := range writes {
		<-tick.C
		wg.Go(func() {
			if r := e.do(f.Admin, "POST", "/labels", map[string]any{"name": fmt.Sprint("L", i)}); r.Status != http.StatusCreated {
				b.Errorf("create: %d %s", r.Status, r.Raw)
			}
		})
	}
	tick.Stop()
	wg.Wait()
	rc.waitFor(b, writes)
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	b.ReportMetric(float64(quantile(lags, 0.5).Milliseconds()), "p50-ms")
	b.ReportMetric(float64(quantile(lags, 0.95).Milliseconds()), "p95-ms")
}

// BenchmarkWriteCost: REST creates in a workspace without an endpoint (webhooks off) and in
// one with an enabled endpoint (the trigger writes the outbox row; delivery not running, so
// only the write's own cost is measured), alternating one by one in the same run so drifts
// in the machine's load reach both sides alike. The pairs are cut into blocks of
// writeCostBlock; each block gives a ratio on/off (its on time over its off time), and the
// benchmark reports the median block ratio with the 10th and 90th percentiles as its
// spread, beside the median time of one write on each side.
func BenchmarkWriteCost(b *testing.B) {
	e := newEnv(b, loopbackPolicy)
	off := storetest.Workspace(b, e.store, workspace.Scopes())
	on := storetest.Workspace(b, e.store, workspace.Scopes())
	e.createEndpoint(on.Admin, "http://127.0.0.1:9/hook", "*")
	create := func(f storetest.Fixture, i int) time.Duration {
		start := time.Now()
		if r := e.do(f.Admin, "POST", "/labels", map[string]any{"name": fmt.Sprint("L", i)}); r.Status != http.StatusCreated {
			b.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		return time.Since(start)
	}
	for i := range writeCostBlock { // warm both sides' connections, plans and caches
		create(off, -i)
		create(on, -i)
	}
	pairs := max(b.N, 1) * 400
	tOff := make([]time.Duration, pairs)
	tOn := make([]time.Duration, pairs)
	b.ResetTimer()
	for i := range pairs {
		if i%2 == 0 { // alternate which goes first
			tOff[i], tOn[i] = create(off, i), create(on, i)
		} else {
			tOn[i], tOff[i] = create(on, i), create(off, i)
		}
	}
	b.StopTimer()
	var outbox int
	e.serviceRow(on.WorkspaceID, `SELECT count(*) FROM webhook_outbox WHERE workspace_id = $1::text::uuid`,
		[]any{on.WorkspaceID}, &outbox)
	if outbox < pairs {
		b.Fatalf("%d outbox rows for %d writes with webhooks on", outbox, pairs)
	}
	var ratios []float64
	for lo := 0; lo+writeCostBlock <= pairs; lo += writeCostBlock {
		var sOff, sOn time.Duration
		for i := lo; i < lo+writeCostBlock; i++ {
			sOff, sOn = sOff+tOff[i], sOn+tOn[i]
		}
		ratios = append(ratios, float64(sOn)/float64(sOff))
	}
	b.ReportMetric(float64(quantile(tOff, 0.5).Microseconds()), "off-µs/write")
	b.ReportMetric(float64(quantile(tOn, 0.5).Microseconds()), "on-µs/write")
	b.ReportMetric(quantile(ratios, 0.5), "on/off")
	b.ReportMetric(quantile(ratios, 0.1), "on/off-p10")
	b.ReportMetric(quantile(ratios, 0.9), "on/off-p90")
}

// BenchmarkWriteThroughput: REST creates as many as writeThroughputClients concurrent
// clients get through, in a workspace without an endpoint (off) and in one with an
// enabled endpoint taking * (on; delivery not running, as in BenchmarkWriteCost), in
// rounds of writeThroughputBatch creates a side, the sides alternating which goes first.
// Where BenchmarkWriteCost times one write at a time, whose commit's flush dominates, here
// commits share their flushes and the CPU each write costs counts: the trigger's event
// against the throughput of creates. Each round gives a ratio, off's creates per second
// over on's (above 1, on is slower); the benchmark reports the median round with the 10th
// and 90th percentiles, beside each side's median creates per second.
func BenchmarkWriteThroughput(b *testing.B) {
	e := newEnv(b, loopbackPolicy)
	off := storetest.Workspace(b, e.store, workspace.Scopes())
	on := storetest.Workspace(b, e.store, workspace.Scopes())
	e.createEndpoint(on.Admin, "http://127.0.0.1:9/hook", "*")
	batch := func(f storetest.Fixture, round int) float64 {
		var clients sync.WaitGroup
		work := make(chan int)
		start := time.Now()
		for range writeThroughputClients {
			clients.Go(func() {
				for i := range work {
					if r := e.do(f.Admin, "POST", "/labels", map[string]any{"name": fmt.Sprint("L", round, "-", i)}); r.Status != http.StatusCreated {
						b.Errorf("create: %d %s", r.Status, r.Raw)
					}
				}
			})
		}
		for i := range writeThroughputBatch {
			work <- i
		}
		close(work)
		clients.Wait()
		return writeThroughputBatch / time.Since(start).Seconds()
	}
	batch(off, -1) // warm both sides' connections, plans and caches
	batch(on, -1)
	rounds := max(b.N, 1) * 6
	perOff, perOn, ratios := make([]float64, rounds), make([]float64, rounds), make([]float64, rounds)
	b.ResetTimer()
	for i := range rounds {
		if i%2 == 0 {
			perOff[i], perOn[i] = batch(off, i), batch(on, i)
		} else {
			perOn[i], perOff[i] = batch(on, i), batch(off, i)
		}
		ratios[i] = perOff[i] / perOn[i]
	}
	b.StopTimer()
	b.ReportMetric(quantile(perOff, 0.5), "off-creates/s")
	b.ReportMetric(quantile(perOn, 0.5), "on-creates/s")
	b.ReportMetric(quantile(ratios, 0.5), "off/on")
	b.ReportMetric(quantile(ratios, 0.1), "off/on-p10")
	b.ReportMetric(quantile(ratios, 0.9), "off/on-p90")
}

// writeThroughputClients and writeThroughputBatch: BenchmarkWriteThroughput's concurrent
// clients (the store's pool size, store.DefaultMaxConns) and creates per side and round.
const (
	writeThroughputClients = 16
	writeThroughputBatch   = 800
)

// writeCostBlock is how many alternating pairs of writes make one ratio of BenchmarkWriteCost.
const writeCostBlock = 25

// quantile returns the q-quantile (nearest rank) of xs, sorting a copy.
func quantile[T int64 | float64 | time.Duration](xs []T, q float64) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}
