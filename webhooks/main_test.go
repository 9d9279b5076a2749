package webhooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const testAPIKey = "pk_test_routing_key"

// clock is the injectable clock of webhooks.Config.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is the REST API with webhook endpoints and, when started, delivery, over the
// package database; tokens map straight to principals.
type env struct {
	t      testing.TB
	store  *store.Store
	srv    *httptest.Server
	clock  *clock
	policy webhooks.URLPolicy
	svc    *webhooks.Service
	tokens sync.Map
}

// newEnv starts the API with policy judging endpoint URLs and a delivery service (not
// started) using the same policy and a fake clock set to now.
func newEnv(t testing.TB, policy webhooks.URLPolicy) *env {
	t.Helper()
	s := storetest.New(t)
	e := &env{t: t, store: s, clock: &clock{now: time.Now()}, policy: policy}
	e.svc = e.newService()
	tokens := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		if p, ok := e.tokens.Load(bearer); ok {
			return p.(*auth.Principal), nil
		}
		return nil, apierr.Unauthorized("unknown test token")
	})
	ops := workspace.NewOps(workspace.Config{Store: s, WebhookURLs: &policy, Webhooks: e.svc})
	api := restapi.New(restapi.Config{Ops: ops, APIKey: testAPIKey, Auth: tokens})
	mux := http.NewServeMux()
	mux.Handle("/v1/", http.StripPrefix("/v1", api.Handler()))
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	return e
}

// newService builds another delivery service over the same database (another process);
// opts adjust its Config.
func (e *env) newService(opts ...func(*webhooks.Config)) *webhooks.Service {
	e.t.Helper()
	cfg := webhooks.Config{Store: e.store, URLs: e.policy, Now: e.clock.Now, Poll: 20 * time.Millisecond,
		Timeout: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Columns: workspace.ColumnsOf}
	for _, o := range opts {
		o(&cfg)
	}
	svc, err := webhooks.New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return svc
}

// start runs svc until the test ends.
func (e *env) start(svc *webhooks.Service) {
	e.t.Helper()
	if err := svc.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Stop(ctx)
	})
}

func (e *env) token(p *auth.Principal) string {
	tok := "tst_" + uuid.NewString()
	e.tokens.Store(tok, p)
	return tok
}

type response struct {
	Status int
	Body   map[string]any
	Raw    []byte
}

func (r response) data() map[string]any { m, _ := r.Body["data"].(map[string]any); return m }

func (e *env) do(p *auth.Principal, method, path string, body any) response {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.srv.URL+"/v1"+path, rd)
	req.Header.Set("apikey", testAPIKey)
	req.Header.Set("Authorization", "Bearer "+e.token(p))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{Status: res.StatusCode, Raw: raw}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// write makes a REST write as p that must succeed (200 or 201) and returns the record's id.
func (e *env) write(p *auth.Principal, method, path string, body any) string {
	e.t.Helper()
	r := e.do(p, method, path, body)
	if r.Status != http.StatusCreated && r.Status != http.StatusOK {
		e.t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Raw)
	}
	id, _ := r.data()["id"].(string)
	return id
}

// createEndpoint registers url for events as p and returns the endpoint's id and secret.
func (e *env) createEndpoint(p *auth.Principal, url string, events ...string) (id, secret string) {
	e.t.Helper()
	body := map[string]any{"url": url}
	if len(events) > 0 {
		body["events"] = events
	}
	r := e.do(p, "POST", "/webhook_endpoints", body)
	if r.Status != http.StatusCreated {
		e.t.Fatalf("create endpoint: %d %s", r.Status, r.Raw)
	}
	return r.data()["id"].(string), r.data()["secret"].(string)
}

// delivery is one request a receiver got.
type delivery struct {
	Header http.Header
	Body   []byte
	Event  map[string]any
}

// receiver is a real HTTP server standing in for an integration: it records every request
// and answers with status() (200 unless set).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []delivery
	status int
	arrive chan struct{}
}

func newReceiver(t testing.TB) *receiver {
	rc := &receiver{status: http.StatusOK, arrive: make(chan struct{}, 100_000)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := delivery{Header: r.Header.Clone(), Body: body}
		_ = json.Unmarshal(body, &d.Event)
		rc.mu.Lock()
		rc.got = append(rc.got, d)
		status := rc.status
		rc.mu.Unlock()
		rc.arrive <- struct{}{}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(strings.Repeat("x", 10_000)))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) setStatus(s int) {
	rc.mu.Lock()
	rc.status = s
	rc.mu.Unlock()
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

// waitFor waits until the receiver has n requests in all.
func (rc *receiver) waitFor(t testing.TB, n int) []delivery {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for len(rc.deliveries()) < n {
		select {
		case <-rc.arrive:
		case <-deadline:
			t.Fatalf("receiver got %d requests, want %d", len(rc.deliveries()), n)
		}
	}
	return rc.deliveries()
}

// verify checks a delivery's signature with the official Standard Webhooks library.
func verify(t testing.TB, secret string, d delivery) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wh.Verify(d.Body, d.Header)
}

// verifyIgnoringTimestamp is verify without the library's 5-minute tolerance, for
// deliveries stamped by a clock moved ahead.
func verifyIgnoringTimestamp(t testing.TB, secret string, d delivery) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wh.VerifyIgnoringTimestamp(d.Body, d.Header)
}

// serviceRow runs sql as the database owner (outside RLS) and scans one row.
func (e *env) serviceRow(ws, sql string, args []any, dest ...any) {
	e.t.Helper()
	err := e.store.ServiceTx(context.Background(), ws, func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), sql, args...).Scan(dest...)
	})
	if err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

// eventually polls cond for up to 30 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// loopbackPolicy is a developer's setup: PUBLIC_URL on loopback, receivers beside it.
var loopbackPolicy = webhooks.URLPolicy{LoopbackHTTP: true}
