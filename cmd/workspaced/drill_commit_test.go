package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestDrillConnectionCutAfterCommit: the connection to PostgreSQL dies after a write's
// COMMIT was sent and before its answer came back (a proxy between the service and the
// database forwards the COMMIT, then cuts the service's side while the database finishes).
// The write committed, and the answer says its outcome is unknown, with or without an
// Idempotency-Key (docs/operations.md, "Unknown outcomes"); a retry with the same key
// replays the committed record rather than writing it again. A connection cut before the
// COMMIT was sent stays a plain 503 internal_error: nothing was written, and a retry with
// the key writes once.
func TestDrillConnectionCutAfterCommit(t *testing.T) {
	dsn := storetest.EmptyDatabase(t, "")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cutter := startCommitCutter(t, u.Host)
	u.Host = cutter.addr()
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+u.String(), "DB_BREAKER_TIMEOUTS=0", roomyLimits)
	_, key := agentKey(t, dsn)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	count := func(name string) int {
		t.Helper()
		var n int
		if err := admin.QueryRow(context.Background(), `SELECT count(*) FROM tasks WHERE name = $1`, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	post := func(name, idemKey string) (int, http.Header, map[string]any) {
		t.Helper()
		h := http.Header{}
		if idemKey != "" {
			h.Set("Idempotency-Key", idemKey)
		}
		code, header, raw := callWith(http.DefaultClient, "POST", d.url+"/v1/tasks", key, h, map[string]string{"name": name})
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		return code, header, body
	}
	taskID := func(body map[string]any) string {
		data, _ := body["data"].(map[string]any)
		id, _ := data["id"].(string)
		return id
	}

	for i := range 3 {
		// With a key: the COMMIT of the write's transaction is cut.
		name, idem := fmt.Sprintf("cut after commit, keyed %d", i), fmt.Sprintf("drill-cut-keyed-%d", i)
		cutter.arm(name, cutAtCommit)
		code, h, body := post(name, idem)
		if cutter.cuts() != 1 {
			t.Fatalf("keyed write %d: the proxy made %d cuts, want 1", i, cutter.cuts())
		}
		if code != 503 || body["error"] != "outcome_unknown" || h.Get("Retry-After") == "" {
			t.Errorf("keyed write %d cut after its COMMIT was sent: %d Retry-After=%q %v; want 503 outcome_unknown", i, code, h.Get("Retry-After"), body)
		}
		code, h, body = post(name, idem)
		if code != 201 || h.Get("Idempotent-Replayed") != "true" || taskID(body) == "" {
			t.Errorf("retry of keyed write %d with its key: %d replayed=%q %v; want the committed record replayed", i, code, h.Get("Idempotent-Replayed"), body)
		}
		if n := count(name); n != 1 {
			t.Errorf("keyed write %d: %d records named %q, want the one committed", i, n, name)
		}

		// Without a key: the Sync that ends the write's implicit transaction is cut.
		name = fmt.Sprintf("cut after commit, no key %d", i)
		cutter.arm(name, cutAtSync)
		code, h, body = post(name, "")
		if cutter.cuts() != 1 {
			t.Fatalf("unkeyed write %d: the proxy made %d cuts, want 1", i, cutter.cuts())
		}
		if code != 503 || body["error"] != "outcome_unknown" || h.Get("Retry-After") == "" {
			t.Errorf("unkeyed write %d cut after its commit was sent: %d Retry-After=%q %v; want 503 outcome_unknown", i, code, h.Get("Retry-After"), body)
		}
		waitFor(t, 5*time.Second, func() bool { return count(name) == 1 }, "the unkeyed write's record")

		// With a key, cut before the COMMIT (at the Sync after the INSERT): nothing was
		// written, the answer says so, and the retry writes once.
		name, idem = fmt.Sprintf("cut before commit, keyed %d", i), fmt.Sprintf("drill-cut-before-%d", i)
		cutter.arm(name, cutAtSync)
		code, _, body = post(name, idem)
		if cutter.cuts() != 1 {
			t.Fatalf("keyed write %d cut before its commit: the proxy made %d cuts, want 1", i, cutter.cuts())
		}
		if code != 503 || body["error"] != "internal_error" {
			t.Errorf("keyed write %d cut before its COMMIT was sent: %d %v; want 503 internal_error", i, code, body)
		}
		code, h, body = post(name, idem)
		if code != 201 || h.Get("Idempotent-Replayed") == "true" || taskID(body) == "" {
			t.Errorf("retry of keyed write %d that was not written: %d replayed=%q %v; want it written now", i, code, h.Get("Idempotent-Replayed"), body)
		}
		if n := count(name); n != 1 {
			t.Errorf("keyed write %d cut before commit, then retried: %d records named %q, want 1", i, n, name)
		}
	}
}

// Where commitCutter cuts a connection that carried its marker.
const (
	cutAtCommit = iota // at the simple-query COMMIT of an explicit transaction
	cutAtSync          // at the next Sync (the end of an implicit transaction, or of one statement in a transaction)
)

// commitCutter is a TCP proxy between the service and PostgreSQL. It forwards everything
// until a connection that has carried the armed marker (a value the test writes) sends the
// message it is armed to cut at: it forwards that message, closes the service's side at
// once, so the answer never reaches it, and half-closes the database's side, draining what
// the database answers, so the database processes everything it was sent (the COMMIT
// commits) before it sees the end of the connection. One cut per arm. It drops cancel
// requests: pgx sends one for a connection it loses (pgconn's asyncClose), which would
// race the database's work on the cut connection and make the test's own expectation,
// that the write committed, a matter of timing; what the service answers is the same
// either way.
type commitCutter struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	marker []byte
	at     int
	made   int
}

func startCommitCutter(t *testing.T, target string) *commitCutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &commitCutter{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go c.serve(conn)
		}
	}()
	return c
}

func (c *commitCutter) addr() string { return c.ln.Addr().String() }

// arm makes the next connection that carries marker be cut at at.
func (c *commitCutter) arm(marker string, at int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.marker, c.at, c.made = []byte(marker), at, 0
}

// cuts is how many cuts were made since arm.
func (c *commitCutter) cuts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.made
}

// carries reports whether msg holds the armed marker, and returns that marker.
func (c *commitCutter) carries(msg []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.marker != nil && bytes.Contains(msg, c.marker) {
		return c.marker
	}
	return nil
}

// take reports whether a connection armed by marker cuts at a message of kind at, and
// disarms the proxy if so.
func (c *commitCutter) take(marker []byte, at int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if marker == nil || !bytes.Equal(marker, c.marker) || at != c.at {
		return false
	}
	c.marker = nil
	c.made++
	return true
}

func (c *commitCutter) serve(client net.Conn) {
	server, err := net.Dial("tcp", c.target)
	if err != nil {
		client.Close()
		return
	}
	var cut sync.Mutex // held while forwarding to the client; cutting closes client under it
	// Database to service: forwarded until the cut, then drained until the database closes.
	go func() {
		defer server.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				cut.Lock()
				_, _ = client.Write(buf[:n]) // fails once cut: the bytes are dropped
				cut.Unlock()
			}
			if err != nil {
				client.Close()
				return
			}
		}
	}()
	// Service to database, message by message (the wire protocol's framing: the startup
	// phase's untyped messages, then a type byte and a length).
	r := bufio.NewReader(client)
	startup := true
	var armed []byte
	for {
		msg, err := readFrontendMessage(r, startup)
		if err != nil {
			_ = server.(*net.TCPConn).CloseWrite()
			return
		}
		kind := -1
		if startup {
			switch binary.BigEndian.Uint32(msg[4:8]) {
			case 80877102: // CancelRequest: dropped (above)
				client.Close()
				server.Close()
				return
			case 80877103, 80877104: // SSLRequest, GSSENCRequest: the startup message follows
			default:
				startup = false
			}
		} else {
			switch msg[0] {
			case 'Q':
				if q := strings.TrimRight(string(msg[5:]), "\x00"); strings.EqualFold(strings.TrimSpace(q), "commit") {
					kind = cutAtCommit
				}
			case 'S':
				kind = cutAtSync
			}
		}
		if m := c.carries(msg); m != nil {
			armed = m
		}
		if _, err := server.Write(msg); err != nil {
			client.Close()
			return
		}
		if kind >= 0 && c.take(armed, kind) {
			cut.Lock()
			client.Close()
			cut.Unlock()
			_ = server.(*net.TCPConn).CloseWrite()
			return
		}
	}
}

// readFrontendMessage reads one message a PostgreSQL client sends: untyped (length and
// body) during startup, typed (a byte, then length and body) after.
func readFrontendMessage(r *bufio.Reader, startup bool) ([]byte, error) {
	head := 5
	if startup {
		head = 4
	}
	msg := make([]byte, head)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(msg[head-4:]))
	if n < 4 || n > 1<<30 {
		return nil, fmt.Errorf("message length %d", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return append(msg, body...), nil
}

// TestDrillBackendEndedDuringCommit: the backend of a write ends while its commit waits
// (held for a synchronous standby that does not exist, as in TestDrillOutcomeUnknown,
// after the commit was written locally): ended by pg_terminate_backend, which answers a
// FATAL error instead of the commit's answer, or by SIGKILL, which restarts the whole
// cluster. The write committed; the answer says its outcome is unknown, keyed or not, at
// once rather than at a deadline; a keyed retry replays the record, and each record
// exists once.
func TestDrillBackendEndedDuringCommit(t *testing.T) {
	pg := privatePG(t)
	ctx := context.Background()
	// exec runs sql on a connection of its own: a SIGKILL ends every connection.
	exec := func(sql string, args ...any) pgx.Row {
		t.Helper()
		var conn *pgx.Conn
		waitFor(t, 30*time.Second, func() bool {
			var err error
			conn, err = pgx.Connect(ctx, pg.DSN)
			return err == nil
		}, "a connection to the private cluster")
		t.Cleanup(func() { conn.Close(ctx) })
		return conn.QueryRow(ctx, sql, args...)
	}
	admin, err := pgx.Connect(ctx, pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	// Commits do not wait for a standby unless a transaction asks (TestDrillOutcomeUnknown).
	for _, sql := range []string{`ALTER SYSTEM SET synchronous_commit = 'local'`, `SELECT pg_reload_conf()`} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// The statement deadline is far: an answer at it would prove nothing.
	d := startDaemon(t, buildBinary(t), nil, "DATABASE_URL="+pg.DSN, "DB_STATEMENT_TIMEOUT=30s",
		"DB_BREAKER_TIMEOUTS=0", roomyLimits)
	_, key := agentKey(t, pg.DSN)
	holdCommits(t, admin, pg.DSN)

	post := func(name, idemKey string) (int, http.Header, map[string]any) {
		h := http.Header{}
		if idemKey != "" {
			h.Set("Idempotency-Key", idemKey)
		}
		code, header, raw := callWith(http.DefaultClient, "POST", d.url+"/v1/tasks", key, h, map[string]string{"name": name})
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		return code, header, body
	}
	count := func(name string) int {
		t.Helper()
		var n int
		// After a SIGKILL the postmaster ends every backend and recovers: a connection made
		// before it did can end at its first statement (unexpected EOF), so a count is tried
		// on a new connection until one answers.
		waitFor(t, 30*time.Second, func() bool {
			conn, err := pgx.Connect(ctx, pg.DSN)
			if err != nil {
				return false
			}
			defer conn.Close(ctx)
			return conn.QueryRow(ctx, `SELECT count(*) FROM tasks WHERE name = $1`, name).Scan(&n) == nil
		}, "a count of the tasks named "+name)
		return n
	}
	end := map[string]func(pid int){
		"pg_terminate_backend": func(pid int) {
			var ok bool
			if err := exec(`SELECT pg_terminate_backend($1)`, pid).Scan(&ok); err != nil || !ok {
				t.Fatalf("pg_terminate_backend(%d): %v %v", pid, ok, err)
			}
		},
		"SIGKILL": func(pid int) {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		},
	}
	for _, how := range []string{"pg_terminate_backend", "SIGKILL"} {
		for _, keyed := range []bool{true, false} {
			name, idem := "commit held, "+how, ""
			if keyed {
				name, idem = name+", keyed", "drill-ended-"+how
			}
			type answer struct {
				code int
				h    http.Header
				body map[string]any
			}
			answered := make(chan answer, 1)
			go func() {
				code, h, body := post(name, idem)
				answered <- answer{code, h, body}
			}()
			var pid int
			waitFor(t, 15*time.Second, func() bool {
				return exec(`SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'`).Scan(&pid) == nil
			}, "the write's commit to wait for the standby")
			ended := time.Now()
			end[how](pid)
			a := <-answered
			if took := time.Since(ended); a.code != 503 || a.body["error"] != "outcome_unknown" || a.h.Get("Retry-After") == "" || took > 10*time.Second {
				t.Errorf("%s, keyed %v: %d Retry-After=%q %v %v after the end; want 503 outcome_unknown at once",
					how, keyed, a.code, a.h.Get("Retry-After"), a.body, took)
			}
			if keyed {
				waitFor(t, 30*time.Second, func() bool {
					code, h, _ := post(name, idem)
					return code == 201 && h.Get("Idempotent-Replayed") == "true"
				}, how+": the keyed retry to replay the committed write")
			}
			if n := count(name); n != 1 {
				t.Errorf("%s, keyed %v: %d records named %q, want the one committed", how, keyed, n, name)
			}
		}
	}
}
