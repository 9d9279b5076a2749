package webhooks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
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

// BenchmarkWriteShare: the cost an event adds to a REST create, against the throughput of
// creates. writeShareClients concurrent clients write for writeShareRound a round, half of
// them in a workspace without an endpoint (off) and half in another (on), all at once: both
// halves share the machine at every instant, so whatever else runs (autovacuum, a GIN
// pending list's merge, another process) slows both alike. Each round's ratio is off's
// creates over on's (above 1, on is slower); each sub-benchmark reports the median round
// with the 10th and 90th percentiles, and the ratio of all rounds' creates.
//   - control: neither workspace has an endpoint, the two halves doing the same work; its
//     ratio is the measurement's own bias and spread.
//   - event: the on workspace has an enabled endpoint taking * (delivery not running, as
//     in BenchmarkWriteCost), so each of its creates writes an event to the outbox.
//
// The halves run at once, not one after the other, because then each side takes its own
// share of the machine's other work, which swamps the few percent measured here
// (docs/performance.md, "Webhooks").
func BenchmarkWriteShare(b *testing.B) {
	for _, c := range []struct {
		name     string
		endpoint bool
	}{{"control", false}, {"event", true}} {
		b.Run(c.name, func(b *testing.B) {
			e := newEnv(b, loopbackPolicy)
			off := storetest.Workspace(b, e.store, workspace.Scopes())
			on := storetest.Workspace(b, e.store, workspace.Scopes())
			if c.endpoint {
				e.createEndpoint(on.Admin, "http://127.0.0.1:9/hook", "*")
			}
			writeShareRounds(b, e, off, on)
		})
	}
}

// writeShareRounds runs BenchmarkWriteShare's rounds, off and on writing at once, and
// reports their ratios.
func writeShareRounds(b *testing.B, e *env, off, on storetest.Fixture) {
	round := func(r int) (offN, onN int64) {
		var clients sync.WaitGroup
		stop := make(chan struct{})
		for c := range writeShareClients {
			f, n := off, &offN
			if c%2 == 1 {
				f, n = on, &onN
			}
			clients.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					if res := e.do(f.Admin, "POST", "/labels", map[string]any{"name": fmt.Sprint("S", r, "-", c, "-", i)}); res.Status != http.StatusCreated {
						b.Errorf("create: %d %s", res.Status, res.Raw)
						return
					}
					atomic.AddInt64(n, 1)
				}
			})
		}
		time.Sleep(writeShareRound)
		close(stop)
		clients.Wait()
		return offN, onN
	}
	round(-1) // warm both sides' connections, plans and caches
	rounds := max(b.N, 1) * 6
	ratios := make([]float64, rounds)
	var offAll, onAll int64
	b.ResetTimer()
	for i := range rounds {
		o, n := round(i)
		offAll, onAll = offAll+o, onAll+n
		ratios[i] = float64(o) / float64(n)
	}
	b.StopTimer()
	b.ReportMetric(float64(offAll+onAll)/(float64(rounds)*writeShareRound.Seconds()), "creates/s")
	b.ReportMetric(quantile(ratios, 0.5), "off/on")
	b.ReportMetric(quantile(ratios, 0.1), "off/on-p10")
	b.ReportMetric(quantile(ratios, 0.9), "off/on-p90")
	b.ReportMetric(float64(offAll)/float64(onAll), "off/on-all")
}

// writeShareClients and writeShareRound: BenchmarkWriteShare's concurrent clients (the
// store's pool size, store.DefaultMaxConns), half a side, and how long each round writes.
const (
	writeShareClients = 16
	writeShareRound   = time.Second
)

// writeCostBlock is how many alternating pairs of writes make one ratio of BenchmarkWriteCost.
const writeCostBlock = 25

// quantile returns the q-quantile (nearest rank) of xs, sorting a copy.
func quantile[T int64 | float64 | time.Duration](xs []T, q float64) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}
