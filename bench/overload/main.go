// Command overload is the bad-day load run (docs/performance.md, "Overload and
// a frozen database"): two workspaced binaries (before and after) on one private
// PostgreSQL cluster, each with a database of its own, driven in the same run:
//
//   - peak: GET /v1/deals/{id} from -peak-clients keep-alive clients;
//
//   - overload: the same from -clients clients, each honouring Retry-After on a 503 (or 429) as a
//     well-behaved client does (-no-backoff: retrying at once). Printed: useful throughput
//     (200s a second) as a ratio of the peak, p99 of the 200s, refusals, transport errors,
//     and the server's peak RSS during the run;
//
//   - frozen: the cluster is stopped (SIGSTOP on every process) while -frozen-clients
//     clients keep asking both servers; printed: answers a second and the p50/p99 latency
//     of the answers to requests sent after the first second of the outage, then how long
//     after SIGCONT each server answers 200 again.
//
//     go run ./bench/overload -before /tmp/workspaced-main -after /tmp/workspaced-new
//
// bench/overload.sh builds both binaries and runs it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store/pglaunch"
)

const apiKey = "pk_overload_bench_key_000000"

type server struct {
	name, url, key, deal string
	cmd                  *exec.Cmd
}

func main() {
	before := flag.String("before", "", "the binary before the change")
	after := flag.String("after", "", "the binary after the change")
	clients := flag.Int("clients", 6144, "clients in the overload run")
	peakClients := flag.Int("peak-clients", 16, "clients in the peak run")
	frozenClients := flag.Int("frozen-clients", 64, "clients while the database is frozen")
	dur := flag.Duration("d", 10*time.Second, "length of each run")
	noBackoff := flag.Bool("no-backoff", false, "overload clients retry a 503 at once instead of after its Retry-After")
	frozenRun := flag.Bool("frozen", true, "run the frozen-database part")
	flag.Parse()
	if *before == "" || *after == "" {
		fmt.Fprintln(os.Stderr, "usage: overload -before BIN -after BIN [-clients N] [-d 10s]")
		os.Exit(2)
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "overload-bench-")
	must(err)
	defer os.RemoveAll(dir)
	pg, err := pglaunch.Start(ctx, dir+"/pg", nil)
	must(err)
	defer pg.Stop()

	var servers []*server
	for _, v := range []struct{ name, bin string }{{"before", *before}, {"after", *after}} {
		s := start(ctx, pg, v.name, v.bin)
		defer s.cmd.Process.Kill()
		servers = append(servers, s)
	}

	fmt.Printf("%-8s %-9s %8s %10s %9s %8s %8s %8s\n", "server", "run", "clients", "ok/s", "p99 ms", "503/s", "errors", "peak RSS")
	peak := map[string]float64{}
	for _, s := range servers {
		r := drive(s, *peakClients, *dur, true, time.Time{})
		peak[s.name] = r.okPerSec()
		r.print(s.name, "peak", *peakClients)
	}
	for _, s := range servers {
		r := drive(s, *clients, *dur, !*noBackoff, time.Time{})
		r.print(s.name, "overload", *clients)
		fmt.Printf("%-8s useful throughput at %d clients: %.2f of its peak\n", s.name, *clients, r.okPerSec()/peak[s.name])
	}

	if !*frozenRun {
		return
	}
	// Frozen: both servers asked at once, from the moment the cluster stops.
	must(pg.Signal(syscall.SIGSTOP))
	frozen := time.Now()
	var wg sync.WaitGroup
	results := make([]*result, len(servers))
	for i, s := range servers {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = drive(s, *frozenClients, *dur, false, frozen.Add(time.Second)) }()
	}
	wg.Wait()
	must(pg.Signal(syscall.SIGCONT))
	thawed := time.Now()
	for i, s := range servers {
		r := results[i]
		fmt.Printf("%-8s frozen: %d answers after the first second (%.0f/s), p50 %.1f ms, p99 %.1f ms, statuses %v\n",
			s.name, len(r.lat), float64(len(r.lat))/(dur.Seconds()-1), r.pct(0.5), r.pct(0.99), r.statuses)
	}
	for _, s := range servers {
		for {
			if code := get(http.DefaultClient, s); code == 200 {
				fmt.Printf("%-8s first 200 %s after SIGCONT\n", s.name, time.Since(thawed).Round(time.Millisecond))
				break
			}
			if time.Since(thawed) > 60*time.Second {
				fmt.Printf("%-8s no 200 within 60s of SIGCONT\n", s.name)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// start migrates a database of its own for bin, seeds the demo workspace and serves it.
func start(ctx context.Context, pg *pglaunch.Server, name, bin string) *server {
	admin, err := pgx.Connect(ctx, pg.DSN)
	must(err)
	_, err = admin.Exec(ctx, "CREATE DATABASE bench_"+name)
	must(err)
	admin.Close(ctx)
	dsn := strings.Replace(pg.DSN, "/workspaced?", "/bench_"+name+"?", 1)
	if !strings.Contains(dsn, "bench_"+name) {
		must(fmt.Errorf("cannot derive a database URL from %s", pg.DSN))
	}
	env := append(os.Environ(), "DATABASE_URL="+dsn)
	seed := exec.Command(bin, "admin", "seed-demo")
	seed.Env = env
	mig := exec.Command(bin, "migrate")
	mig.Env = env
	if out, err := mig.CombinedOutput(); err != nil {
		must(fmt.Errorf("%s migrate: %v %s", name, err, out))
	}
	out, err := seed.Output()
	must(err)
	var demo struct {
		AgentKey string `json:"agent_key"`
	}
	must(json.Unmarshal(out, &demo))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve")
	// Every client uses the demo agent's key: its workspace and credential shares are the
	// whole bound (docs/operations.md, "Fair shares of capacity"), so the run measures the
	// class's bound, as before the shares, rather than one credential's 429s.
	cmd.Env = append(env, "APIKEY="+apiKey, "LISTEN_ADDR="+addr, "RATE_LIMITS=false", "METRICS_ADDR=off", "LOG_LEVEL=warn",
		"WORKSPACE_SHARE=100", "CREDENTIAL_SHARE=100")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	must(cmd.Start())
	s := &server{name: name, url: "http://" + addr, key: demo.AgentKey, cmd: cmd}
	for i := 0; ; i++ {
		if res, err := http.Get(s.url + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if i > 300 {
			must(fmt.Errorf("%s never became ready", name))
		}
		time.Sleep(100 * time.Millisecond)
	}
	req := s.request("/v1/deals?limit=1")
	res, err := http.DefaultClient.Do(req)
	must(err)
	var page struct{ Data []struct{ ID string } }
	must(json.NewDecoder(res.Body).Decode(&page))
	res.Body.Close()
	if len(page.Data) == 0 {
		must(fmt.Errorf("%s: the demo workspace has no deal", name))
	}
	s.deal = page.Data[0].ID
	return s
}

func (s *server) request(path string) *http.Request {
	req, _ := http.NewRequest("GET", s.url+path, nil)
	req.Header.Set("apikey", apiKey)
	req.Header.Set("Authorization", "Bearer "+s.key)
	return req
}

func get(c *http.Client, s *server) int {
	res, err := c.Do(s.request("/v1/deals/" + s.deal))
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

type result struct {
	took     time.Duration
	ok       int
	lat      []time.Duration // of 200s, or of every answer when measuring a frozen database
	statuses map[int]int
	errors   int
	refused  int
	peakRSS  int // kB
}

func (r *result) okPerSec() float64 { return float64(r.ok) / r.took.Seconds() }

func (r *result) pct(p float64) float64 {
	if len(r.lat) == 0 {
		return 0
	}
	return float64(r.lat[min(len(r.lat)-1, int(p*float64(len(r.lat))))].Microseconds()) / 1000
}

func (r *result) print(name, run string, clients int) {
	fmt.Printf("%-8s %-9s %8d %10.0f %9.1f %8.0f %8d %7dM\n", name, run, clients, r.okPerSec(), r.pct(0.99),
		float64(r.refused)/r.took.Seconds(), r.errors, r.peakRSS/1024)
}

// drive sends GET /v1/deals/{id} from n keep-alive clients for d. With backoff a client
// waits a 503's Retry-After before its next request. With since set (a frozen database)
// every answer's latency is kept, of the requests sent from since on; otherwise those of
// the 200s.
func drive(s *server, n int, d time.Duration, backoff bool, since time.Time) *result {
	r := &result{statuses: map[int]int{}}
	var mu sync.Mutex
	var rss atomic.Int64
	stopRSS := make(chan struct{})
	go func() {
		for {
			rss.Store(max(rss.Load(), int64(residentKB(s.cmd.Process.Pid))))
			select {
			case <-stopRSS:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	end := start.Add(d)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A client of its own, as independent clients are: one shared Transport
			// serialises thousands of connections on its pool's lock.
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
			defer client.CloseIdleConnections()
			for time.Now().Before(end) {
				t := time.Now()
				res, err := client.Do(s.request("/v1/deals/" + s.deal))
				took := time.Since(t)
				mu.Lock()
				if err != nil {
					r.errors++
					mu.Unlock()
					time.Sleep(10 * time.Millisecond)
					continue
				}
				r.statuses[res.StatusCode]++
				switch {
				case !since.IsZero():
					if !t.Before(since) {
						r.lat = append(r.lat, took)
					}
				case res.StatusCode == 200:
					r.ok++
					r.lat = append(r.lat, took)
				case res.StatusCode == 503 || res.StatusCode == 429:
					r.refused++ // 429: the one key's share of the bound taken (docs/operations.md)
				}
				mu.Unlock()
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if (res.StatusCode == 503 || res.StatusCode == 429) && backoff {
					after, _ := strconv.Atoi(res.Header.Get("Retry-After"))
					time.Sleep(time.Duration(max(after, 1)) * time.Second)
				}
			}
		}()
	}
	wg.Wait()
	close(stopRSS)
	r.took = time.Since(start)
	r.peakRSS = int(rss.Load())
	slices.Sort(r.lat)
	return r
}

// residentKB is the process's resident set (VmRSS) in kB, 0 when unreadable.
func residentKB(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "overload:", err)
		os.Exit(1)
	}
}
