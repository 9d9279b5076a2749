package ratelimit

import (
	"context"
	"net/netip"
	"testing"
	"time"
)

// smallSignInBudgets are budgets small enough to spend in a test; ResetMails is left zero,
// so it takes its default.
func smallSignInBudgets() SignInBudgets {
	return SignInBudgets{
		PerAddress:        Budget{Tokens: 10, Interval: time.Hour},
		PerAccountAddress: Budget{Tokens: 2, Interval: time.Hour},
		PerAccount:        Budget{Tokens: 4, Interval: time.Hour},
		UnknownAccounts:   Budget{Tokens: 2, Interval: time.Hour},
	}
}

// TestSignInBudgets walks the sign-in budgets on both stores (docs/oauth.md, "Sign-in
// budgets"): an address is slowed by its own failures for an account, the account-wide
// ceiling refuses only addresses that have failed for it, and unknown accounts share one
// budget across addresses.
func TestSignInBudgets(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			cfg := Config{SignIn: smallSignInBudgets()}
			b.configure(t)(&cfg)
			l := newLimiter(t, cfg)
			ctx := context.Background()
			ip := func(s string) netip.Addr { return netip.MustParseAddr(s) }
			allow := func(name, addr, account string, want bool) {
				t.Helper()
				if ok, err := l.AllowSignIn(ctx, ip(addr), account); err != nil || ok != want {
					t.Fatalf("%s: AllowSignIn = %v, %v; want %v", name, ok, err, want)
				}
			}
			fail := func(addr, account string) {
				t.Helper()
				if err := l.SignInFailed(ctx, ip(addr), account); err != nil {
					t.Fatal(err)
				}
			}
			allow("first attempt", "192.0.2.1", "bob", true)
			fail("192.0.2.1", "bob")
			allow("one failure", "192.0.2.1", "bob", true)
			fail("192.0.2.1", "bob")
			allow("the pair's failures spent", "192.0.2.1", "bob", false)
			allow("another account from that address", "192.0.2.1", "carol", true)
			allow("another address that has not failed", "192.0.2.2", "bob", true)
			fail("192.0.2.3", "bob")
			fail("192.0.2.4", "bob") // the account's ceiling: 4 failures from every address
			allow("an address that failed once, ceiling reached", "192.0.2.3", "bob", false)
			allow("an address that has not failed, ceiling reached", "192.0.2.5", "bob", true)
			allow("IPv6 in the failed /64", "2001:db8::1", "dave", true)
			fail("2001:db8::1", "dave")
			fail("2001:db8::2", "dave")
			allow("the same /64", "2001:db8::3", "dave", false)
			for i := range 10 {
				allow("the address's attempts", "198.51.100.1", string(rune('a'+i)), true)
			}
			allow("the address's attempts spent", "198.51.100.1", "zed", false)
			for _, want := range []bool{true, true, false} {
				if ok, err := l.AllowUnknownAccount(ctx); err != nil || ok != want {
					t.Fatalf("AllowUnknownAccount = %v, %v; want %v", ok, err, want)
				}
			}
		})
	}
}

// TestResetMailBudget: "Forgot password?" requests for one account are counted across
// every address (each call is a fresh limiter view of the same store, as replicas sharing
// Redis are), other accounts keep their own budget, and a zero ResetMails takes the default.
func TestResetMailBudget(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			cfg := Config{SignIn: smallSignInBudgets()}
			b.configure(t)(&cfg)
			replicas := []*Limiter{newLimiter(t, cfg)}
			if b.name == "redis" {
				replicas = append(replicas, newLimiter(t, cfg))
			}
			ctx := context.Background()
			want := int(DefaultSignInBudgets().ResetMails.Tokens)
			for i := range want + 2 {
				l := replicas[i%len(replicas)]
				ok, err := l.AllowResetMail(ctx, "bob@example.test")
				if err != nil || ok != (i < want) {
					t.Fatalf("request %d: AllowResetMail = %v, %v; want %v", i+1, ok, err, i < want)
				}
			}
			if ok, err := replicas[0].AllowResetMail(ctx, "carol@example.test"); err != nil || !ok {
				t.Fatalf("another account: %v, %v", ok, err)
			}
		})
	}
}

// TestSignInStoreDown: with Redis down and the failure policy closed, the sign-in methods
// return ErrUndecided (503), not a refusal (429).
func TestSignInStoreDown(t *testing.T) {
	l := newLimiter(t, Config{RedisURL: downRedisURL})
	ctx := context.Background()
	if _, err := l.AllowSignIn(ctx, netip.MustParseAddr("192.0.2.1"), "bob"); err != ErrUndecided {
		t.Errorf("AllowSignIn: %v, want ErrUndecided", err)
	}
	if err := l.SignInFailed(ctx, netip.MustParseAddr("192.0.2.1"), "bob"); err != ErrUndecided {
		t.Errorf("SignInFailed: %v, want ErrUndecided", err)
	}
	if _, err := l.AllowResetMail(ctx, "bob"); err != ErrUndecided {
		t.Errorf("AllowResetMail: %v, want ErrUndecided", err)
	}
}
