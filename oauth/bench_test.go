package oauth_test

import (
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agencyos/workspaced/oauth"
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
// HTTP server and PostgreSQL on this machine. Each worker refreshes its own token family
// (rotation: one retire, one pair inserted, under the family lock).
//
//	go test ./oauth/ -run '^$' -bench RefreshGrant -benchtime 5s
func BenchmarkRefreshGrant(b *testing.B) {
	e := newEnv(b)
	const workers = 8
	clientID := e.register("https://bench.example/cb")
	chains := make(chan string, workers)
	for range workers {
		code, verifier := e.flow(e.browser(), e.Member, clientID, "https://bench.example/cb", "deals:read", nil)
		chains <- e.exchange(clientID, code, verifier, "https://bench.example/cb").Refresh
	}
	var failed atomic.Int64
	b.SetParallelism(workers / max(1, runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		refresh := <-chains
		for pb.Next() {
			r := benchPost(b, e, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})
			if r.Status != 200 {
				failed.Add(1)
				continue
			}
			refresh = r.str("refresh_token")
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "grants/s")
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d refreshes failed", n)
	}
}

// BenchmarkCodeExchange measures authorization_code grants per second (PKCE check, code
// consumed, family and pair inserted). Codes are made beforehand through the authorize
// endpoint (consent remembered), on a frozen clock so none expires while waiting.
//
//	go test ./oauth/ -run '^$' -bench CodeExchange -benchtime 3000x
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
	close(codes)
	var failed atomic.Int64
	b.SetParallelism(8 / max(1, runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := <-codes
			r := benchPost(b, e, url.Values{"grant_type": {"authorization_code"}, "code": {p.code}, "code_verifier": {p.verifier},
				"client_id": {clientID}, "redirect_uri": {redirect}})
			if r.Status != 200 {
				failed.Add(1)
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "exchanges/s")
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d exchanges failed", n)
	}
}
