package mcp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
)

// BenchmarkGetDealsVsREST is docs/performance.md's MCP budget in one process: REST's
// GET /v1/deals/{id} and MCP's tools/call get_deals (a 2025-06-18 client, as
// bench/perf-load.sh's mcp group sends it) for the same deal with the same agent key, over
// real HTTP on loopback against the package database, alternated request by request on one
// keep-alive connection each. It reports each side's requests per second and mcp/rest,
// their ratio. Re-run with:
//
//	go test ./mcp -run '^$' -bench GetDealsVsREST -benchtime 3s -count 3
func BenchmarkGetDealsVsREST(b *testing.B) {
	e, key, deal := benchDeal(b)
	restClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	mcpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	b.Cleanup(restClient.CloseIdleConnections)
	b.Cleanup(mcpClient.CloseIdleConnections)
	body := getDealsCall(deal)
	do := func(c *http.Client, req *http.Request, want string) time.Duration {
		start := time.Now()
		res, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		took := time.Since(start)
		if err != nil || res.StatusCode != http.StatusOK || !strings.Contains(string(raw), want) {
			b.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, raw)
		}
		return took
	}
	restReq := func() *http.Request {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/v1/deals/"+deal, nil)
		req.Header.Set("apikey", testAPIKey)
		req.Header.Set("Authorization", "Bearer "+key)
		return req
	}
	mcpReq := func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+mcp.Path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		return req
	}
	// Warm both connections and the credential cache outside the timing.
	do(restClient, restReq(), deal)
	do(mcpClient, mcpReq(), deal)

	var rest, rpc time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 { // alternate which goes first, so neither always follows the other
			rest += do(restClient, restReq(), deal)
			rpc += do(mcpClient, mcpReq(), deal)
		} else {
			rpc += do(mcpClient, mcpReq(), deal)
			rest += do(restClient, restReq(), deal)
		}
		n++
	}
	restRate := float64(n) / rest.Seconds()
	mcpRate := float64(n) / rpc.Seconds()
	b.ReportMetric(restRate, "rest_req/s")
	b.ReportMetric(mcpRate, "mcp_req/s")
	b.ReportMetric(mcpRate/restRate, "mcp/rest")
}

// benchDeal is the benchmarks' workspace and deal: the env, an agent key and a deal id.
func benchDeal(b *testing.B) (*env, string, string) {
	e := newEnv(b)
	key := storetest.Workspace(b, e.store, nil).Agent.Key
	pipeline := e.mustCreate(b, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	deal := e.mustCreate(b, key, "deals", `{"name":"Acme retainer","pipeline_id":"`+pipeline+
		`","value":4000,"notes":"Met the marketing lead; wants a proposal for Q3."}`)["id"].(string)
	return e, key, deal
}

// getDealsCall is the tools/call get_deals request bench/perf-load.sh's mcp group sends.
func getDealsCall(deal string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_deals","arguments":{"id":"` + deal + `"}}}`
}

// BenchmarkGetDealsServerSide is the server's side of BenchmarkGetDealsVsREST: the same
// two requests handed to the mounted handlers in process, with no connection and no
// client, as many at once as GOMAXPROCS. It reports what one request costs the server,
// the store's round trips included: allocations, and cpu-ns/op, the process's CPU time
// (getrusage) over the requests answered. Re-run with:
//
//	go test ./mcp -run '^$' -bench GetDealsServerSide -benchtime 5000x -count 6
func BenchmarkGetDealsServerSide(b *testing.B) {
	e, key, deal := benchDeal(b)
	h := e.srv.Config.Handler
	body := getDealsCall(deal)
	run := func(b *testing.B, newReq func() *http.Request) {
		w := &discardWriter{h: http.Header{}}
		if h.ServeHTTP(w, newReq()); w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
		b.ReportAllocs()
		var before, after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				h.ServeHTTP(&discardWriter{h: http.Header{}}, newReq())
			}
		})
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
	b.Run("rest", func(b *testing.B) {
		run(b, func() *http.Request {
			req := httptest.NewRequest(http.MethodGet, e.srv.URL+"/v1/deals/"+deal, nil)
			req.Header.Set("apikey", testAPIKey)
			req.Header.Set("Authorization", "Bearer "+key)
			return req
		})
	})
	b.Run("mcp", func(b *testing.B) {
		run(b, func() *http.Request {
			req := httptest.NewRequest(http.MethodPost, e.srv.URL+mcp.Path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			return req
		})
	})
}

// discardWriter is a ResponseWriter that keeps the status and drops the body.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(p), nil
}
