// Command load drives one HTTP request at a server for a while and prints one JSON line:
// requests/s, p50 and p99 latency, and errors. Closed loop by default (-c connections,
// each sending its next request when the last one is answered: the peak); with -rate it
// sends at that fixed rate and measures each request from when it was due, so a stall
// shows in p99 instead of silently lowering the rate (no coordinated omission).
//
//	load -url http://127.0.0.1:18091/v1/deals?limit=50 -H 'apikey: k' -c 16 -d 5s [-rate 2000]
//	     [-method POST -body '{"jsonrpc":"2.0",...}']
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	url := flag.String("url", "", "URL to request")
	method := flag.String("method", "GET", "HTTP method")
	body := flag.String("body", "", "request body")
	conns := flag.Int("c", 16, "concurrent connections")
	dur := flag.Duration("d", 5*time.Second, "how long to send")
	rate := flag.Float64("rate", 0, "requests/s to send at; 0 sends as fast as answers come")
	var hs headers
	flag.Var(&hs, "H", "header 'Name: value', repeatable")
	flag.Parse()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conns, MaxConnsPerHost: *conns}}
	newReq := func() *http.Request {
		req, err := http.NewRequest(*method, *url, strings.NewReader(*body))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, h := range hs {
			k, v, _ := strings.Cut(h, ":")
			req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		return req
	}
	var errs, wrong atomic.Int64
	var firstErr atomic.Value
	do := func() bool {
		res, err := client.Do(newReq())
		if err != nil {
			errs.Add(1)
			firstErr.CompareAndSwap(nil, err.Error())
			return false
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || bytes.Contains(b, []byte(`"isError":true`)) {
			wrong.Add(1)
			firstErr.CompareAndSwap(nil, fmt.Sprintf("%d %.200s", res.StatusCode, b))
			return false
		}
		return true
	}

	var mu sync.Mutex
	var lat []time.Duration
	start := time.Now()
	end := start.Add(*dur)
	var wg sync.WaitGroup
	if *rate <= 0 {
		for range *conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []time.Duration
				for time.Now().Before(end) {
					t := time.Now()
					if do() {
						mine = append(mine, time.Since(t))
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
	} else {
		// Request i is due at start + i/rate; workers take the next due slot.
		var next atomic.Int64
		interval := time.Duration(float64(time.Second) / *rate)
		for range *conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []time.Duration
				for {
					due := start.Add(time.Duration(next.Add(1)-1) * interval)
					if !due.Before(end) {
						break
					}
					time.Sleep(time.Until(due))
					if do() {
						mine = append(mine, time.Since(due))
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	took := time.Since(start)
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	out := map[string]any{"rps": float64(len(lat)) / took.Seconds(), "p50_ms": pct(0.50), "p99_ms": pct(0.99),
		"ok": len(lat), "errors": errs.Load(), "bad_status": wrong.Load()}
	if e := firstErr.Load(); e != nil {
		out["first_error"] = e
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}
