package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// drillReceiver is a webhook receiver on a fixed loopback port that the drill stops and
// starts again; it keeps the names of the labels whose events it verified.
type drillReceiver struct {
	addr string
	wh   *standardwebhooks.Webhook
	mu   sync.Mutex
	srv  *http.Server
	got  map[string]int // label name -> verified deliveries
	bad  atomic.Int64   // deliveries that did not verify
}

func (rc *drillReceiver) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", rc.addr)
	if err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	rc.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := rc.wh.Verify(body, r.Header); err != nil {
			rc.bad.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var ev struct {
			Data struct {
				Record struct {
					Name string `json:"name"`
				} `json:"record"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &ev)
		rc.mu.Lock()
		rc.got[ev.Data.Record.Name]++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}
	srv := rc.srv
	rc.mu.Unlock()
	go srv.Serve(ln)
}

func (rc *drillReceiver) stop() {
	rc.mu.Lock()
	srv := rc.srv
	rc.mu.Unlock()
	srv.Close()
}

func (rc *drillReceiver) names() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make(map[string]int, len(rc.got))
	for k, v := range rc.got {
		out[k] = v
	}
	return out
}

// TestDrillWebhooksSurviveKillsAndOutage (docs/webhooks.md, "Delivery"): 1,000 writes
// while the server is killed with SIGKILL twice and the receiver is down for 30 s;
// afterwards every committed write's event was received at least once, each verified with
// the Standard Webhooks Go library, and no event arrived for a write that did not commit.
//
// The faults, in order: a kill at write 250; the receiver down at write 400, for 30 s, with
// the writers slowed so writes go on through the whole outage; a second kill at write 600,
// while the receiver is down, so deliveries that are failing are also orphaned by a dead
// process. The server runs with WEBHOOK_RETRY_SPEEDUP=60 (83 ms, 5 s, 30 s, 2 min, ...
// instead of 5 s, 5 min, 30 min, 2 h, ...): an event failing during the outage is tried
// again at most 30 s after the receiver is back instead of 5 minutes, so the drill lasts
// about 1.5 minutes, not 6; the failure, retry and rescue paths are the production ones.
func TestDrillWebhooksSurviveKillsAndOutage(t *testing.T) {
	pg := privatePG(t)
	bin := buildBinary(t)
	env := []string{"DATABASE_URL=" + pg.DSN, roomyLimits, "RATE_LIMIT_PER_WORKSPACE=1000000", "WEBHOOK_RETRY_SPEEDUP=60"}
	listen := freeAddr(t)
	env = append(env, "LISTEN_ADDR="+listen)
	d := startDaemon(t, bin, nil, env...)
	ws, key := agentKey(t, pg.DSN)

	secret := workspace.NewSigningSecret()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	rc := &drillReceiver{addr: freeAddr(t), wh: wh, got: map[string]int{}}
	rc.start(t)
	defer rc.stop()
	registerEndpoint(t, pg.DSN, ws, "http://"+rc.addr+"/hook", secret)

	const writes = 1000
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Int64
	var pace atomic.Int64 // a writer's pause between writes, in nanoseconds
	kill := func() {
		d.cmd.Process.Signal(syscall.SIGKILL)
		<-d.exited
		d = startDaemon(t, bin, nil, env...)
	}
	for range 4 {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > writes {
					return
				}
				body := map[string]any{"name": fmt.Sprintf("drill-%04d", i)}
				if i%50 == 0 {
					body = map[string]any{"name": ""} // refused (422): must leave no event
				}
				for attempt := 0; ; attempt++ {
					status, _, _ := call(http.DefaultClient, "POST", "http://"+listen+"/v1/labels", key, body)
					if status == http.StatusCreated || status >= 400 && status < 500 {
						break
					}
					if attempt == 50 { // the server is down: give this write up
						failed.Add(1)
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				time.Sleep(time.Duration(pace.Load()))
			}
		})
	}
	for next.Load() < 250 {
		time.Sleep(10 * time.Millisecond)
	}
	kill()
	for next.Load() < 400 {
		time.Sleep(10 * time.Millisecond)
	}
	const outage = 30 * time.Second
	rc.stop()
	back := time.Now().Add(outage)
	pace.Store(int64(300 * time.Millisecond)) // 4 writers: about 13 writes a second
	for next.Load() < 600 {
		time.Sleep(10 * time.Millisecond)
	}
	kill()
	time.Sleep(time.Until(back))
	rc.start(t)
	pace.Store(0)
	if next.Load() >= writes {
		t.Fatalf("the writes ended before the receiver came back: the outage did not overlap them")
	}
	wg.Wait()

	committed := committedLabels(t, pg.DSN, ws)
	if len(committed) < writes*9/10 {
		t.Fatalf("only %d of %d writes committed", len(committed), writes)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		got := rc.names()
		missing := 0
		for name := range committed {
			if got[name] == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d committed writes' events never arrived", missing, len(committed))
		}
		time.Sleep(500 * time.Millisecond)
	}
	got := rc.names()
	redelivered := 0
	for name, n := range got {
		if !committed[name] {
			t.Errorf("an event arrived for %q, which did not commit", name)
		}
		redelivered += n - 1
	}
	if n := rc.bad.Load(); n != 0 {
		t.Errorf("%d deliveries did not verify with the Standard Webhooks library", n)
	}
	retried := retriedDeliveries(t, pg.DSN, ws)
	if retried == 0 {
		t.Error("no delivery needed a second attempt: the outage did not meet the deliveries")
	}
	t.Logf("%d writes committed, %d given up while the server was down; every event received and verified; "+
		"%d deliveries retried after failing, %d events redelivered", len(committed), failed.Load(), retried, redelivered)
}

// registerEndpoint adds an enabled endpoint with a known secret, as the service's owner
// role (the drill's agent is not an admin; the API path is covered by webhooks' tests).
func registerEndpoint(t *testing.T, dsn, ws, url, secret string) {
	t.Helper()
	ctx := context.Background()
	err := openStore(t, dsn).ServiceTx(ctx, ws, func(tx pgx.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, `INSERT INTO webhook_endpoints (url, events) VALUES ($1, '{labels.created}')
			RETURNING id::text`, url).Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO webhook_secrets (endpoint_id, secret) VALUES ($1::text::uuid, $2)`, id, secret)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// committedLabels returns the names of the workspace's drill labels in the database.
func committedLabels(t *testing.T, dsn, ws string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	out := map[string]bool{}
	err := openStore(t, dsn).ServiceTx(ctx, ws, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT name FROM labels WHERE workspace_id = $1::text::uuid AND name LIKE 'drill-%'`, ws)
		if err != nil {
			return err
		}
		return store.Scan(rows, func(rows pgx.Rows) error {
			for rows.Next() {
				var n string
				if err := rows.Scan(&n); err != nil {
					return err
				}
				out[n] = true
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// retriedDeliveries counts the workspace's deliveries that took more than one attempt.
func retriedDeliveries(t *testing.T, dsn, ws string) int {
	t.Helper()
	ctx := context.Background()
	var n int
	err := openStore(t, dsn).ServiceTx(ctx, ws, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE workspace_id = $1::text::uuid AND attempts > 1`, ws).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
