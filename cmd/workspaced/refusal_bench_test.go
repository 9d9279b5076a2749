package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// BenchmarkRefusal compares what a read refused by its class's bound (503 overloaded, with
// SHARE_WAIT at 1ns: refused as soon as it finds no place) costs with the same read served
// (200), through the whole stack: net/http, the router, the access log, the guard,
// authentication, the capacities, and a keep-alive client in the same process
// (docs/performance.md, "Overload and a frozen database"). Re-run with:
//
//	go test ./cmd/workspaced/ -run '^$' -bench Refusal -benchtime 2s
func BenchmarkRefusal(b *testing.B) {
	ts, s, srv := newTestServer(b, func(c *config) { c.RateLimitsOff = true; c.Shed.ShareWait = time.Nanosecond }) // as the load runs serve
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, "Refusal bench", store.By{})
	if err != nil {
		b.Fatal(err)
	}
	agent, err := s.CreateAgent(ctx, ws, "bench agent", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		b.Fatal(err)
	}
	do := func(b *testing.B, method, path, body string, want int) []byte {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("apikey", e2eAPIKey)
		req.Header.Set("Authorization", "Bearer "+agent.Key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			b.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, out, want)
		}
		return out
	}
	var task struct{ Data struct{ ID string } }
	if err := json.Unmarshal(do(b, "POST", "/v1/tasks", `{"name": "benched"}`, 201), &task); err != nil {
		b.Fatal(err)
	}
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			do(b, "GET", "/v1/tasks/"+task.Data.ID, "", 200)
		}
	})
	b.Run("refused", func(b *testing.B) {
		reads := srv.guard.classes[workspace.ClassRead]
		for i := range reads.Capacity() { // every read place taken by other workspaces, as under a flood
			release, err := reads.Acquire(ctx, fmt.Sprint("workspace:other", i))
			if err != nil {
				b.Fatal(err)
			}
			defer release()
		}
		b.ReportAllocs()
		for b.Loop() {
			do(b, "GET", "/v1/tasks/"+task.Data.ID, "", 503)
		}
	})
}
