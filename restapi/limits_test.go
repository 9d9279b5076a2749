package restapi_test

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

func redisURL() string {
	if u := os.Getenv("REDIS_TEST_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

func newLimiter(t *testing.T, cfg ratelimit.Config) *ratelimit.Limiter {
	t.Helper()
	if cfg.RedisURL != "" && cfg.KeyPrefix == "" {
		var b [6]byte
		rand.Read(b[:])
		cfg.KeyPrefix = "workspaced-test:" + hex.EncodeToString(b[:])
	}
	l, err := ratelimit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func withLimiter(l workspace.Limiter) func(*envConfig) {
	return func(c *envConfig) { c.Limiter = l }
}

// credential gives p its own credential, as a separate token or key would be.
func credential(p *auth.Principal, id string) *auth.Principal {
	c := *p
	c.Credential.ID = id
	return &c
}

func header(t *testing.T, r response, name string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(r.Header.Get(name), 10, 64)
	if err != nil {
		t.Fatalf("%s header %q: %v", name, r.Header.Get(name), err)
	}
	return v
}

func TestRateLimitsPerTokenAndWorkspace(t *testing.T) {
	for _, backend := range []string{"memory", "redis"} {
		t.Run(backend, func(t *testing.T) {
			cfg := ratelimit.Config{PerCredential: 3, PerWorkspace: 5}
			if backend == "redis" {
				cfg.RedisURL = redisURL()
			}
			e := newEnv(t, withLimiter(newLimiter(t, cfg)))
			f := storetest.Workspace(t, e.store, workspace.Scopes())
			other := storetest.Workspace(t, e.store, workspace.Scopes())
			a := e.token(credential(f.Admin, "token-a"))
			b := e.token(credential(f.Admin, "token-b"))
			c := e.token(credential(other.Admin, "token-c"))

			for want := int64(2); want >= 0; want-- {
				r := e.do("GET", "/labels", a, testAPIKey, "")
				if r.Status != 200 {
					t.Fatalf("call within budget: %d %s", r.Status, r.Raw)
				}
				if got := header(t, r, "X-RateLimit-Remaining"); got != want {
					t.Fatalf("X-RateLimit-Remaining %d, want %d", got, want)
				}
				if header(t, r, "X-RateLimit-Limit") != 3 || header(t, r, "X-RateLimit-Reset") <= time.Now().Unix() {
					t.Fatalf("limit %s reset %s", r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Reset"))
				}
			}
			denied := e.do("GET", "/labels", a, testAPIKey, "")
			wantError(t, denied, http.StatusTooManyRequests, "rate_limited")
			if denied.Header.Get("Retry-After") != "60" {
				t.Fatalf("Retry-After %q, want 60", denied.Header.Get("Retry-After"))
			}
			// The message states the budget as configured, not the defaults.
			if msg, _ := denied.Body["message"].(string); !strings.Contains(msg, "budget of 3 requests per minute") {
				t.Fatalf("429 message %q does not state the token's budget of 3", msg)
			}
			// Token B of the same workspace passes until the workspace's budget (5) is spent:
			// A spent 3 of it (its denied call was not charged to the workspace).
			for i := 0; i < 2; i++ {
				if r := e.do("GET", "/labels", b, testAPIKey, ""); r.Status != 200 {
					t.Fatalf("token b call %d: %d", i+1, r.Status)
				}
			}
			wsDenied := e.do("GET", "/labels", b, testAPIKey, "")
			wantError(t, wsDenied, http.StatusTooManyRequests, "rate_limited")
			if msg, _ := wsDenied.Body["message"].(string); !strings.Contains(msg, "workspace's budget of 5 requests per minute") {
				t.Fatalf("429 message %q does not state the workspace's budget of 5", msg)
			}
			// Another workspace is untouched.
			if r := e.do("GET", "/labels", c, testAPIKey, ""); r.Status != 200 || header(t, r, "X-RateLimit-Remaining") != 2 {
				t.Fatalf("other workspace: %d remaining %s", r.Status, r.Header.Get("X-RateLimit-Remaining"))
			}
		})
	}
}

func TestRateLimitSharedAcrossProcesses(t *testing.T) {
	// Two API instances (as two processes would be) over one Redis budget.
	cfg := ratelimit.Config{PerCredential: 4, PerWorkspace: 100, RedisURL: redisURL()}
	var b [6]byte
	rand.Read(b[:])
	cfg.KeyPrefix = "workspaced-test:" + hex.EncodeToString(b[:])
	one := newEnv(t, withLimiter(newLimiter(t, cfg)))
	two := newEnv(t, withLimiter(newLimiter(t, cfg)))
	f := storetest.Workspace(t, one.store, workspace.Scopes())
	p := credential(f.Admin, "shared-token")
	t1, t2 := one.token(p), two.token(p)
	for i, e := range []*env{one, two, one, two} {
		tok := t1
		if e == two {
			tok = t2
		}
		if r := e.do("GET", "/labels", tok, testAPIKey, ""); r.Status != 200 {
			t.Fatalf("call %d: %d", i+1, r.Status)
		}
	}
	wantError(t, two.do("GET", "/labels", t2, testAPIKey, ""), http.StatusTooManyRequests, "rate_limited")
	wantError(t, one.do("GET", "/labels", t1, testAPIKey, ""), http.StatusTooManyRequests, "rate_limited")
}

// A Redis that stops under a running service (its own redis-server, stopped by the test)
// follows the failure policy: fail-open serves, fail-closed answers 503 internal_error with
// a short Retry-After, not 429 "you are over your limit" (docs/operations.md, "Bad days:
// what the service does").
func TestRateLimitRedisDownFollowsPolicy(t *testing.T) {
	for _, failOpen := range []bool{false, true} {
		t.Run("fail_open="+strconv.FormatBool(failOpen), func(t *testing.T) {
			url, stop := privateRedis(t)
			l := newLimiter(t, ratelimit.Config{RedisURL: url, FailOpen: failOpen})
			e := newEnv(t, withLimiter(l))
			f := storetest.Workspace(t, e.store, workspace.Scopes())
			token := e.token(f.Admin)
			if r := e.do("GET", "/labels", token, testAPIKey, ""); r.Status != 200 {
				t.Fatalf("with Redis up: %d %s", r.Status, r.Raw)
			}
			stop()
			for range 3 {
				r := e.do("GET", "/labels", token, testAPIKey, "")
				if failOpen {
					if r.Status != 200 {
						t.Fatalf("fail-open with Redis stopped: %d %s", r.Status, r.Raw)
					}
					continue
				}
				wantError(t, r, http.StatusServiceUnavailable, "internal_error")
				if got := r.Header.Get("Retry-After"); got != strconv.Itoa(ratelimit.OutageRetryAfter) {
					t.Fatalf("Retry-After %q, want %d", got, ratelimit.OutageRetryAfter)
				}
			}
			// Failed authentication is throttled by the same store: fail-closed refuses it
			// the same way rather than letting guesses through unthrottled.
			r := e.do("GET", "/labels", "kagt_guess", testAPIKey, "")
			if failOpen {
				wantError(t, r, http.StatusUnauthorized, "unauthorized")
			} else {
				wantError(t, r, http.StatusServiceUnavailable, "internal_error")
			}
		})
	}
}

// privateRedis starts a redis-server of the test's own on a free loopback port (the
// machine's Redis is shared) and returns its URL and a function that stops it.
func privateRedis(t *testing.T) (string, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	ln.Close()
	cmd := exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server: %v (install redis-server; .ci/run does)", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not start", addr)
		}
	}
	return "redis://" + addr + "/0", stop
}

func TestFailedAuthenticationLimitedPerIP(t *testing.T) {
	l := newLimiter(t, ratelimit.Config{IPBudgets: map[string]ratelimit.Budget{
		ratelimit.BucketAuthFail: {Tokens: 3, Interval: time.Minute}, ratelimit.BucketRegister: {Tokens: 20, Interval: time.Hour}}})
	e := newEnv(t, withLimiter(l))
	for i := 0; i < 3; i++ {
		r := e.do("GET", "/labels", "kagt_guess", testAPIKey, "")
		wantError(t, r, http.StatusUnauthorized, "unauthorized")
		if r.Header.Get("X-RateLimit-Remaining") == "" {
			t.Fatal("failed authentication without rate-limit headers")
		}
	}
	wantError(t, e.do("GET", "/labels", "kagt_guess", testAPIKey, ""), http.StatusTooManyRequests, "rate_limited")
	// A valid credential from the same address is still served: only failures are counted.
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	if r := e.do("GET", "/labels", f.Agent.Key, testAPIKey, ""); r.Status != 200 {
		t.Fatalf("valid key after failures: %d", r.Status)
	}
}
