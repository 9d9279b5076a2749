package restapi_test

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
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

func withLimiter(l restapi.Limiter) func(*restapi.Config) {
	return func(c *restapi.Config) { c.Limiter = l }
}

// credential gives p its own credential, as a separate token or key would be.
func credential(p *store.Principal, id string) *store.Principal {
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
			f := storetest.Workspace(t, e.store, restapi.Scopes())
			other := storetest.Workspace(t, e.store, restapi.Scopes())
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
			// Token B of the same workspace passes until the workspace's budget (5) is spent:
			// A spent 3 of it (its denied call was not charged to the workspace).
			for i := 0; i < 2; i++ {
				if r := e.do("GET", "/labels", b, testAPIKey, ""); r.Status != 200 {
					t.Fatalf("token b call %d: %d", i+1, r.Status)
				}
			}
			wantError(t, e.do("GET", "/labels", b, testAPIKey, ""), http.StatusTooManyRequests, "rate_limited")
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
	f := storetest.Workspace(t, one.store, restapi.Scopes())
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

func TestRateLimitRedisDownFollowsPolicy(t *testing.T) {
	for _, failOpen := range []bool{false, true} {
		t.Run("fail_open="+strconv.FormatBool(failOpen), func(t *testing.T) {
			l := newLimiter(t, ratelimit.Config{RedisURL: "redis://127.0.0.1:1/0", FailOpen: failOpen})
			e := newEnv(t, withLimiter(l))
			f := storetest.Workspace(t, e.store, restapi.Scopes())
			r := e.do("GET", "/labels", e.token(f.Admin), testAPIKey, "")
			if failOpen && r.Status != 200 {
				t.Fatalf("fail-open: %d %s", r.Status, r.Raw)
			}
			if !failOpen {
				wantError(t, r, http.StatusTooManyRequests, "rate_limited")
			}
		})
	}
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
	f := storetest.Workspace(t, e.store, restapi.Scopes())
	if r := e.do("GET", "/labels", f.Agent.Key, testAPIKey, ""); r.Status != 200 {
		t.Fatalf("valid key after failures: %d", r.Status)
	}
}
