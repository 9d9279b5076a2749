package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store/storetest"
)

// benchClient keeps connections alive across the parallel workers.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}

func benchPost(b *testing.B, e *env, form url.Values) response {
	req, _ := http.NewRequest("POST", e.srv.URL+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("apikey", testAPIKey)
	res, err := benchClient.Do(req)
	return decode(b, res, err)
}

// BenchmarkRefreshGrant measures refresh_token grants per second through the real handler,
// HTTP server and PostgreSQL on this machine, against the floor measured in the same run
// and interleaved with it: single-row commits per second on the same pool from as many
// workers (the target: grants >= 0.4 of commits; docs/performance.md, "OAuth"). Each worker
// refreshes its own token family (rotation: one retire, one pair inserted, under the family
// lock).
//
//	go test ./oauth/ -run '^$' -bench 'RefreshGrant|CodeExchange' -benchtime 3000x -count 3
func BenchmarkRefreshGrant(b *testing.B) {
	e := newEnv(b)
	const workers = 8
	clientID := e.register("https://bench.example/cb")
	chains := make([]string, workers)
	for i := range chains {
		code, verifier := e.flow(e.browser(), e.Member, clientID, "https://bench.example/cb", "deals:read", nil)
		chains[i] = e.exchange(clientID, code, verifier, "https://bench.example/cb").Refresh
	}
	b.ResetTimer()
	againstFloor(b, e, "grants/s", workers, func(worker int) error {
		r := benchPost(b, e, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {chains[worker]}, "client_id": {clientID}})
		if r.Status != 200 {
			return fmt.Errorf("refresh: %d %s", r.Status, r.Raw)
		}
		chains[worker] = r.str("refresh_token")
		return nil
	})
}

// BenchmarkCodeExchange measures authorization_code grants per second (PKCE check, code
// consumed, family and pair inserted) against the same floor as BenchmarkRefreshGrant.
// Codes are made beforehand through the authorize endpoint (consent remembered), on a
// frozen clock so none expires while waiting.
//
//	go test ./oauth/ -run '^$' -bench 'RefreshGrant|CodeExchange' -benchtime 3000x -count 3
func BenchmarkCodeExchange(b *testing.B) {
	frozen := time.Now()
	e := newEnv(b, func(c *oauth.Config) { c.Now = func() time.Time { return frozen } })
	redirect := "https://bench.example/cb"
	clientID := e.register(redirect)
	br := e.browser()
	code, verifier := e.flow(br, e.Member, clientID, redirect, "deals:read", nil) // signs in, consents
	type pending struct{ code, verifier string }
	codes := make(chan pending, b.N+1)
	codes <- pending{code, verifier}
	for len(codes) < b.N {
		v, challenge := pkce()
		r := br.get(e.authURL(clientID, redirect, challenge, "deals:read", "s"))
		loc, _ := url.Parse(r.Header.Get("Location"))
		if loc == nil || loc.Query().Get("code") == "" {
			b.Fatalf("authorize: %d %s", r.Status, r.Raw)
		}
		codes <- pending{loc.Query().Get("code"), v}
	}
	b.ResetTimer()
	againstFloor(b, e, "exchanges/s", 8, func(int) error {
		p := <-codes
		r := benchPost(b, e, url.Values{"grant_type": {"authorization_code"}, "code": {p.code}, "code_verifier": {p.verifier},
			"client_id": {clientID}, "redirect_uri": {redirect}})
		if r.Status != 200 {
			return fmt.Errorf("exchange: %d %s", r.Status, r.Raw)
		}
		return nil
	})
}

// againstFloor runs b.N calls of grant from workers goroutines (a worker's calls are
// sequential, so it may keep state by its index) and as many single-row commits (INSERT
// in autocommit) on the env's pool from as many workers, the floor. The two alternate in
// rounds, so both see the same machine, and it reports both rates and grant / floor.
func againstFloor(b *testing.B, e *env, unit string, workers int, grant func(worker int) error) {
	ctx := context.Background()
	pool := storetest.Pool(b)
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_commit_floor (id bigserial PRIMARY KEY, v bytea NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	commit := func(int) error {
		_, err := pool.Exec(ctx, `INSERT INTO bench_commit_floor (v) VALUES ($1)`, []byte("x"))
		return err
	}
	const rounds = 6
	var grantTime, floorTime time.Duration
	for i := range rounds {
		n := b.N*(i+1)/rounds - b.N*i/rounds
		grantTime += race(b, workers, n, grant)
		b.StopTimer()
		floorTime += race(b, workers, n, commit)
		b.StartTimer()
	}
	rate, floor := float64(b.N)/grantTime.Seconds(), float64(b.N)/floorTime.Seconds()
	b.ReportMetric(rate, unit)
	b.ReportMetric(floor, "commits/s")
	b.ReportMetric(rate/floor, "x-commits")
}

// race runs n calls of op from workers goroutines and returns the time they took.
func race(b *testing.B, workers, n int, op func(worker int) error) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := op(w); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	return elapsed
}
