package ratelimit

import (
	"context"
	"errors"
	"net/netip"
	"time"
)

// SignInBudgets are the password sign-in budgets (docs/oauth.md, "Sign-in budgets"). They
// follow OWASP ASVS V2.2.1: brute force is slowed without letting anyone lock a member
// out. What an address does is charged to that address (every attempt) and to the pair
// (account, address) (failures); an account's failures from every address together meet a
// ceiling far above what one address may do, and that ceiling refuses only addresses that
// have themselves failed for the account, so the right password from an address that has
// not failed is never refused. Accounts are named by their lowercased email, known or not,
// hashed before they reach the store.
type SignInBudgets struct {
	// PerAddress counts every attempt from an address, failed or not: one address guessing
	// across many accounts is bounded, and a burst of parallel attempts cannot overshoot
	// it (it is charged before the password is checked).
	PerAddress Budget
	// PerAccountAddress counts the failures for one account from one address.
	PerAccountAddress Budget
	// PerAccount counts the failures for one account from every address: the ceiling.
	PerAccount Budget
	// UnknownAccounts counts, across every address, the attempts for emails no member
	// has whose password is hashed anyway (to take as long as a real check): beyond it
	// they are not hashed, so made-up emails cannot keep the hash slots busy.
	UnknownAccounts Budget
	// ResetMails counts the "Forgot password?" requests for one account from every
	// address, known account or not: beyond it no more reset links are mailed to it, so a
	// flood from many addresses cannot fill one inbox. Zero means the default.
	ResetMails Budget
}

// DefaultSignInBudgets returns the budgets used when Config.SignIn is zero: 20 attempts
// per 5 minutes per address, 5 failures per 15 minutes per account and address, 100
// failures per 15 minutes per account, 6 hashed unknown-account attempts a minute, 3
// reset mails an hour per account.
func DefaultSignInBudgets() SignInBudgets {
	return SignInBudgets{
		PerAddress:        Budget{Tokens: 20, Interval: 5 * time.Minute},
		PerAccountAddress: Budget{Tokens: 5, Interval: 15 * time.Minute},
		PerAccount:        Budget{Tokens: 100, Interval: 15 * time.Minute},
		UnknownAccounts:   Budget{Tokens: 6, Interval: time.Minute},
		ResetMails:        Budget{Tokens: 3, Interval: time.Hour},
	}
}

// ErrUndecided is returned by the sign-in methods when the store failed and the failure
// policy (Config.FailOpen false) refused: no budget decided, so callers answer 503, not 429.
var ErrUndecided = errors.New("ratelimit: the rate-limit store is unreachable and the failure policy refuses")

// AllowSignIn decides whether a password sign-in for account from ip may be checked, and
// charges the attempt to ip's budget. It refuses when ip's attempts are spent, when ip has
// failed too often for account, or when ip has failed for account and the account's
// failures from every address reach the ceiling.
func (l *Limiter) AllowSignIn(ctx context.Context, ip netip.Addr, account string) (bool, error) {
	if ok, err := l.signInTake(ctx, l.signIn.PerAddress, l.prefix+":signin:ip:{"+ipKey(ip)+"}"); err != nil || !ok {
		return false, err
	}
	pair, acct := l.signInKeys(ip, account)
	// A budget of no tokens admits nothing, so the take charges nothing and reports the
	// failures counted: the counters are read, not charged (failures are charged by
	// SignInFailed, after the check).
	use, _, err := l.counts.take(ctx, []charge{{key: pair, budget: Budget{Interval: l.signIn.PerAccountAddress.Interval}},
		{key: acct, budget: Budget{Interval: l.signIn.PerAccount.Interval}}})
	if err != nil {
		return l.signInStoreFailed(err, l.signIn.PerAccountAddress)
	}
	switch {
	case use[0].used >= l.signIn.PerAccountAddress.Tokens:
		return false, nil
	case use[0].used > 0 && use[1].used >= l.signIn.PerAccount.Tokens:
		return false, nil
	}
	return true, nil
}

// SignInFailed charges a failed sign-in for account from ip to the pair's and the
// account's failures.
func (l *Limiter) SignInFailed(ctx context.Context, ip netip.Addr, account string) error {
	pair, acct := l.signInKeys(ip, account)
	for _, c := range []charge{{pair, l.signIn.PerAccountAddress}, {acct, l.signIn.PerAccount}} {
		// Each on its own: a spent ceiling must not keep the pair's failures from counting.
		if _, err := l.signInTake(ctx, c.budget, c.key); err != nil {
			return err
		}
	}
	return nil
}

// AllowUnknownAccount charges one hashed attempt for an email no member has to the budget
// shared by every address, and reports whether it was within it.
func (l *Limiter) AllowUnknownAccount(ctx context.Context) (bool, error) {
	return l.signInTake(ctx, l.signIn.UnknownAccounts, l.prefix+":signin:unknown")
}

// AllowResetMail charges one "Forgot password?" request for account (a lowercased email,
// whether or not a member has it) to the account's budget shared by every address, and
// reports whether a reset link may be mailed.
func (l *Limiter) AllowResetMail(ctx context.Context, account string) (bool, error) {
	return l.signInTake(ctx, l.signIn.ResetMails, l.prefix+":signin:reset:{"+hashKey(account)+"}")
}

// signInKeys names the failure logs of the pair (account, ip) and of the account. Both
// carry the account as their Redis Cluster hash tag.
func (l *Limiter) signInKeys(ip netip.Addr, account string) (pair, acct string) {
	tag := "{" + hashKey(account) + "}"
	return l.prefix + ":signin:pair:" + tag + ":" + ipKey(ip), l.prefix + ":signin:account:" + tag
}

// signInTake charges one event to key's budget b and reports whether it was within it.
func (l *Limiter) signInTake(ctx context.Context, b Budget, key string) (bool, error) {
	if l.closed.Load() {
		return false, ErrClosed
	}
	_, ok, err := l.counts.take(ctx, []charge{{key: key, budget: b}})
	if err != nil {
		return l.signInStoreFailed(err, b)
	}
	return ok, nil
}

// signInStoreFailed applies the failure policy to a sign-in the store could not decide.
func (l *Limiter) signInStoreFailed(err error, b Budget) (bool, error) {
	if d := l.storeFailed(err, "signin", b); !d.Allowed {
		return false, ErrUndecided
	}
	return true, nil
}
