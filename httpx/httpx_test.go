package httpx_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
)

// TestStatusesFollowSpec: the spec's error table (docs/contract.md section 7) transcribed, plus the
// codes docs/decisions.md and docs/rest.md ("For integrations") add.
func TestStatusesFollowSpec(t *testing.T) {
	want := map[apierr.Code]int{
		"bad_request": 400, "create_failed": 400, "update_failed": 400, "unauthorized": 401,
		"insufficient_credits": 402, "insufficient_scope": 403, "insufficient_permission": 403,
		"forbidden": 403, "not_found": 404, "unknown_resource": 404, "method_not_allowed": 405,
		"validation_error": 422, "rate_limited": 429, "internal_error": 500, "upstream_error": 502,
		"enrich_unbilled": 502,
		// docs/decisions.md 4 and 8; docs/rest.md, "For integrations"
		"idempotency_in_flight": 409, "idempotency_conflict": 422, "precondition_failed": 412,
		"read_only": 403, "unknown_tool": 404,
	}
	for code, status := range want {
		if got := httpx.Status(&apierr.Error{Code: code}); got != status {
			t.Errorf("%s: %d, want %d", code, got, status)
		}
	}
	if got := httpx.Status(&apierr.Error{Code: apierr.CodeInternal, Unavailable: true}); got != 503 {
		t.Errorf("an unavailable dependency: %d, want 503", got)
	}
}

// logBuffer is a JSON log that tests read while the server writes it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the decoded log lines with message msg.
func (b *logBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b.buf.Bytes()), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// serve runs h behind RequestID and Recover, as cmd mounts them, logging to the buffer
// (which h's own error answers write to as well, through log).
func serve(t *testing.T, h func(log *slog.Logger) http.HandlerFunc) (*httptest.Server, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	srv := httptest.NewServer(httpx.RequestID(httpx.Recover(log)(h(log))))
	t.Cleanup(srv.Close)
	return srv, logs
}

// TestPanicIsA500InTheEnvelope: a handler's panic answers 500 internal_error in the
// envelope with the request's id, and is logged once with its stack.
func TestPanicIsA500InTheEnvelope(t *testing.T) {
	srv, logs := serve(t, func(*slog.Logger) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var deals []string
			_ = deals[len(r.URL.Path)] // an index out of range: a real runtime panic
		}
	})
	req, _ := http.NewRequest("GET", srv.URL+"/v1/deals", nil)
	req.Header.Set("X-Request-Id", "req-panic-0001")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 500 || body["error"] != "internal_error" || body["request_id"] != "req-panic-0001" ||
		body["message"] == "" {
		t.Fatalf("got %d %v, want 500 internal_error with the request id", resp.StatusCode, body)
	}
	if strings.Contains(body["message"].(string), "index out of range") {
		t.Fatalf("the panic value leaked into the answer: %v", body)
	}
	panics := logs.lines(t, "panic")
	if len(panics) != 1 {
		t.Fatalf("%d panic lines, want 1", len(panics))
	}
	if panics[0]["request_id"] != "req-panic-0001" || !strings.Contains(panics[0]["stack"].(string), "httpx_test") ||
		!strings.Contains(panics[0]["panic"].(string), "index out of range") {
		t.Fatalf("panic line lacks the request id, the value or the stack: %v", panics[0])
	}
	if n := len(logs.lines(t, "request failed")); n != 0 {
		t.Fatalf("the panic was logged again as %d 'request failed' lines", n)
	}
}

// TestAbortHandlerPassesThrough: http.ErrAbortHandler keeps net/http's meaning (abort the
// response, log nothing) rather than becoming a 500.
func TestAbortHandlerPassesThrough(t *testing.T) {
	srv, logs := serve(t, func(*slog.Logger) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }
	})
	resp, err := http.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got %d, want the connection aborted", resp.StatusCode)
	}
	if n := len(logs.lines(t, "panic")); n != 0 {
		t.Fatalf("%d panic lines for an abort", n)
	}
}

// TestClientThatHungUp: a request whose client went away is logged as such, at info, and
// never as a 500 or a failure: neither a handler's error after it nor a panic after it.
func TestClientThatHungUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(w http.ResponseWriter, r *http.Request, log *slog.Logger)
	}{
		{"an error", func(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
			httpx.WriteError(w, r, log, store.Internal(r.Context().Err()))
		}},
		{"a panic", func(w http.ResponseWriter, r *http.Request, _ *slog.Logger) { panic("after the hang-up") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entered := make(chan struct{})
			done := make(chan struct{})
			srv, logs := serve(t, func(log *slog.Logger) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					defer close(done)
					close(entered)
					<-r.Context().Done() // the client hangs up while the work runs
					tc.fail(w, r, log)
				}
			})
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
			go func() { <-entered; cancel() }()
			if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.Canceled) {
				t.Fatalf("client: %v, want canceled", err)
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the handler never saw the hang-up")
			}
			srv.Close() // waits for the handler's deferred recovery to finish logging
			if n := len(logs.lines(t, "client went away")); n != 1 {
				t.Fatalf("%d 'client went away' lines, want 1", n)
			}
			if n := len(logs.lines(t, "panic")) + len(logs.lines(t, "request failed")); n != 0 {
				t.Fatalf("the hang-up was also logged as %d failures", n)
			}
		})
	}
}
