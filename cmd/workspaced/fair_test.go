package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// worstQ is the most expensive q a client may send: MaxQTerms distinct one-letter words,
// each a prefix term the match tests (docs/performance.md, "Fair shares of capacity").
func worstQ() string {
	return strings.Join(strings.Split("abcdefghijklmnopqrstuvwxyz0123456789"[:workspace.MaxQTerms], ""), " ")
}

// seedFairDeals gives workspace ws n deals in one pipeline and returns the first ids (at
// most 50).
func seedFairDeals(tb testing.TB, ws string, n int) []string {
	tb.Helper()
	ctx := context.Background()
	conn := storetest.Pool(tb)
	var user string
	if err := conn.QueryRow(ctx, `SELECT id::text FROM users WHERE workspace_id = $1 LIMIT 1`, ws).Scan(&user); err != nil {
		tb.Fatal(err)
	}
	rows, err := conn.Query(ctx, `WITH pl AS (INSERT INTO pipelines (workspace_id, created_by, name)
			VALUES ($1, $2, 'Fair') RETURNING id)
		INSERT INTO deals (workspace_id, created_by, name, pipeline_id, value, notes, created_at)
		SELECT $1, $2, 'Deal ' || g || ' of account ' || md5(g::text), pl.id, g * 10.5,
			'notes of deal ' || g || ': ' || md5((g * 7)::text), now() - g * interval '1 second'
		FROM pl, generate_series(1, $3::int) g RETURNING id::text`, ws, user, n)
	if err != nil {
		tb.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			tb.Fatal(err)
		}
		if len(ids) < 50 {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE deals`); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// fairRun is what a fair-shares run measured.
type fairRun struct {
	quiet, attack                            []time.Duration // B's latencies
	bErrors                                  []string        // B's answers other than 200
	aCodes                                   map[int]int     // A's answers by status
	aErrors                                  map[string]int  // A's error answers by status and error code
	aOK                                      []time.Duration // A's served searches
	quietP50, quietP99, attackP50, attackP99 time.Duration
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// runFair measures workspace B's reads (GET /v1/deals/{id} and a page of /v1/deals,
// alternately, one every pace) alone for quiet, then for attack while workspace A's
// clients (concurrency of them, spread over keysA) send the worst search there is,
// /v1/search with worstQ, as fast as they are answered. A's clients wait the
// Retry-After of a refusal, as a client does; rate limits are the caller's to raise.
func runFair(tb testing.TB, base, apikey string, keysA []string, keyB string, idsB []string, concurrency int, pace, quiet, attack time.Duration) fairRun {
	tb.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency + 4}, Timeout: 30 * time.Second}
	get := func(path, key string) (int, http.Header, string, time.Duration) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("apikey", apikey)
		req.Header.Set("Authorization", "Bearer "+key)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return 0, nil, "", time.Since(start)
		}
		var e struct{ Error string }
		_ = json.NewDecoder(res.Body).Decode(&e)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header, e.Error, time.Since(start)
	}
	var mu sync.Mutex
	run := fairRun{aCodes: map[int]int{}, aErrors: map[string]int{}}
	readsB := func(d time.Duration, into *[]time.Duration) {
		tick := time.NewTicker(pace)
		defer tick.Stop()
		end := time.Now().Add(d)
		for i := 0; time.Now().Before(end); i++ {
			path := "/v1/deals/" + idsB[i%len(idsB)]
			if i%2 == 1 {
				path = "/v1/deals?limit=20"
			}
			code, _, _, took := get(path, keyB)
			if code != 200 {
				run.bErrors = append(run.bErrors, fmt.Sprintf("%s: %d", path, code))
			}
			*into = append(*into, took)
			<-tick.C
		}
	}
	readsB(quiet, &run.quiet)

	var stop atomic.Bool
	var wg sync.WaitGroup
	search := "/v1/search?q=" + url.QueryEscape(worstQ())
	for i := range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				code, h, e, took := get(search, keysA[i%len(keysA)])
				mu.Lock()
				run.aCodes[code]++
				if code != 200 {
					run.aErrors[fmt.Sprint(code, " ", e)]++
				}
				if code == 200 {
					run.aOK = append(run.aOK, took)
				}
				mu.Unlock()
				if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && code >= 429 {
					time.Sleep(time.Duration(s) * time.Second)
				}
			}
		}()
	}
	time.Sleep(pace) // the attack under way
	readsB(attack, &run.attack)
	stop.Store(true)
	wg.Wait()
	run.quietP50, run.quietP99 = percentile(run.quiet, 0.50), percentile(run.quiet, 0.99)
	run.attackP50, run.attackP99 = percentile(run.attack, 0.50), percentile(run.attack, 0.99)
	return run
}

func (r fairRun) String() string {
	return fmt.Sprintf("B quiet: %d reads, p50 %s p99 %s; B under attack: %d reads, p50 %s p99 %s (x%.2f, x%.2f), %d errors; "+
		"A: %v %v, searches served p50 %s max %s",
		len(r.quiet), r.quietP50, r.quietP99, len(r.attack), r.attackP50, r.attackP99,
		float64(r.attackP50)/float64(r.quietP50), float64(r.attackP99)/float64(r.quietP99), len(r.bErrors),
		r.aCodes, r.aErrors, percentile(r.aOK, 0.5), percentile(r.aOK, 1))
}

// TestDrillFairShares (docs/performance.md, "Fair shares of capacity"): workspace A, with
// 20,000 deals, sends 32 concurrent worst-case searches (32 distinct one-letter words)
// for 20 s from two agent keys, while workspace B reads a deal by id and a page of deals
// at a steady pace. Rate limits are raised out of the way, so only the shares stand
// between A and B: B sees no error and its p99 stays within 3x of its quiet p99 measured
// in the same run; A is answered 429 (its share taken), never 503 overloaded. A search
// past SEARCH_STATEMENT_TIMEOUT (2 s) is its own 503 internal_error, the search's bound
// doing its work: on a machine loaded enough to stretch a 0.15 s search that far, a few
// are tolerated (at most 1% of A's answers), and logged.
func TestDrillFairShares(t *testing.T) {
	quiet, attack := 8*time.Second, 20*time.Second
	if testing.Short() {
		quiet, attack = 3*time.Second, 6*time.Second
	}
	dsn := storetest.DSN(t)
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+dsn,
		"RATE_LIMIT_PER_CREDENTIAL=10000000", "RATE_LIMIT_PER_WORKSPACE=10000000")
	wsA, keyA1 := agentKey(t, dsn)
	keyA2 := secondAgent(t, dsn, wsA)
	wsB, keyB := agentKey(t, dsn)
	seedFairDeals(t, wsA, 20000)
	idsB := seedFairDeals(t, wsB, 200)
	for _, k := range []string{keyA1, keyA2, keyB} { // cache the credentials
		if code, _, body := call(http.DefaultClient, "GET", d.url+"/v1/me", k, nil); code != 200 {
			t.Fatalf("/v1/me: %d %s", code, body)
		}
	}
	r := runFair(t, d.url, drillAPIKey, []string{keyA1, keyA2}, keyB, idsB, 32, 20*time.Millisecond, quiet, attack)
	t.Log(r)
	if len(r.bErrors) > 0 {
		t.Errorf("B got %d errors: %q", len(r.bErrors), r.bErrors[:min(len(r.bErrors), 10)])
	}
	// Latency is judged only without the race detector: under it every memory access is
	// instrumented and two cores' scheduling noise decides a p99 of a few milliseconds (CI's
	// -race run once measured 9.7 ms quiet against 38.7 ms, with 0 errors and every refusal
	// a 429). Errors and refusals above are asserted either way; BenchmarkFairShares, which
	// CI runs without -race, reports the ratios.
	if r.attackP99 > 3*r.quietP99 {
		if raceDetector {
			t.Logf("B's p99 under attack %s is over 3x its quiet p99 %s (race detector on: not judged)", r.attackP99, r.quietP99)
		} else {
			t.Errorf("B's p99 under attack %s is over 3x its quiet p99 %s", r.attackP99, r.quietP99)
		}
	}
	total := 0
	for _, n := range r.aCodes {
		total += n
	}
	if r.aCodes[429] == 0 || r.aErrors["503 overloaded"] != 0 || r.aCodes[503] != r.aErrors["503 internal_error"] ||
		r.aCodes[503]*100 > total {
		t.Errorf("A's answers %v %v: want 429s, no 503 overloaded and search timeouts at most 1%%", r.aCodes, r.aErrors)
	}
	var e struct{ Error string }
	code, h, body := call(http.DefaultClient, "GET", d.url+"/v1/search?q=x", keyB, nil)
	if code != 200 || json.Unmarshal(body, &e) != nil || h.Get("Retry-After") != "" {
		t.Errorf("B's own search after the attack: %d %s", code, body)
	}
}

// secondAgent adds another agent key to workspace ws.
func secondAgent(t *testing.T, dsn, ws string) string {
	t.Helper()
	k, err := openStore(t, dsn).CreateAgent(context.Background(), ws, "drill agent 2", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		t.Fatal(err)
	}
	return k.Key
}

// BenchmarkFairShares is TestDrillFairShares in one process, smaller (5,000 deals in A,
// B's reads for 1 s alone and 3 s under attack), so that CI's smoke run of every benchmark
// takes seconds: it reports B's p50 and p99 under attack as ratios of its quiet ones, and
// A's refusals. The figures of docs/performance.md come from the drill. Re-run with:
//
//	go test ./cmd/workspaced/ -run '^$' -bench FairShares -benchtime 1x
func BenchmarkFairShares(b *testing.B) {
	ts, s, _ := newTestServer(b, func(c *config) { c.RateLimitsOff = true })
	ctx := context.Background()
	agent := func(ws string) string {
		k, err := s.CreateAgent(ctx, ws, "bench agent", map[string]string{"crm": "full"}, store.By{})
		if err != nil {
			b.Fatal(err)
		}
		return k.Key
	}
	workspaceOf := func(name string) string {
		ws, err := s.CreateWorkspace(ctx, name, store.By{})
		if err != nil {
			b.Fatal(err)
		}
		return ws
	}
	wsA, wsB := workspaceOf("Fair A"), workspaceOf("Fair B")
	keysA, keyB := []string{agent(wsA), agent(wsA)}, agent(wsB)
	seedFairDeals(b, wsA, 5000)
	idsB := seedFairDeals(b, wsB, 200)
	var r fairRun
	b.ResetTimer()
	for range b.N {
		r = runFair(b, ts.URL, e2eAPIKey, keysA, keyB, idsB, 32, 20*time.Millisecond, time.Second, 3*time.Second)
	}
	b.ReportMetric(float64(r.attackP50)/float64(r.quietP50), "B-p50-attack/quiet")
	b.ReportMetric(float64(r.attackP99)/float64(r.quietP99), "B-p99-attack/quiet")
	b.ReportMetric(float64(len(r.bErrors)), "B-errors")
	b.ReportMetric(float64(r.aCodes[429]), "A-429s")
	b.ReportMetric(float64(r.aErrors["503 overloaded"]), "A-503-overloaded")
	b.Log(r)
}
