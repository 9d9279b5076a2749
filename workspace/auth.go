package workspace

import (
	"context"
	"crypto/sha256"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
)

// Authenticator resolves a bearer credential to a principal. It returns a apierr.Error with
// code unauthorized when the credential is missing, malformed, unknown, expired, revoked,
// or its user is not active. cmd fills it with agent keys and oauth's access tokens.
type Authenticator interface {
	Authenticate(ctx context.Context, bearer string) (*auth.Principal, error)
}

// AuthenticatorFunc adapts a function.
type AuthenticatorFunc func(ctx context.Context, bearer string) (*auth.Principal, error)

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(ctx context.Context, bearer string) (*auth.Principal, error) {
	return f(ctx, bearer)
}

// Prefixed dispatches a credential to the authenticator for its prefix (kagt_, svc_at_).
type Prefixed map[string]Authenticator

// Authenticate implements Authenticator.
func (p Prefixed) Authenticate(ctx context.Context, bearer string) (*auth.Principal, error) {
	for prefix, a := range p {
		if strings.HasPrefix(bearer, prefix) {
			return a.Authenticate(ctx, bearer)
		}
	}
	return nil, apierr.Unauthorized("the bearer credential is not an access token or agent key")
}

// Cache remembers resolved credentials briefly so a request costs no credential query.
// Revocations flush it at once through PostgreSQL LISTEN/NOTIFY (store.ListenRevocations,
// shared by every process); while that listener is down, entries live one second, so a
// revocation is never visible later than that. A lookup that was in flight when a flush
// came may have read the credential before it was revoked, so its result is returned but
// not kept: every flush advances a generation, and only a lookup that began in the
// current generation stores what it found. The entries sit in an expiring LRU bounded to
// cacheSize credentials; each also carries its own deadline, as the one-second lifetime
// without the listener and a credential's own expiry are shorter than the LRU's TTL.
type Cache struct {
	inner   Authenticator
	ttl     time.Duration
	entries *expirable.LRU[[32]byte, cacheEntry]

	mu         sync.Mutex // orders stores against flushes (generation)
	listening  bool
	generation uint64
}

type cacheEntry struct {
	p       *auth.Principal
	expires time.Time
}

// cacheSize bounds the credentials a process remembers, against a flood of distinct tokens.
const cacheSize = 100_000

// CacheTTL is how long a process trusts a credential it has looked up, while it hears
// revocations (which flush it at once); it bounds how long a revocation another process
// could not announce still lets the credential in.
const CacheTTL = 30 * time.Second

// NewCache wraps inner with a cache whose entries live ttl (CacheTTL in production) while
// revocations are being listened to.
func NewCache(inner Authenticator, ttl time.Duration) *Cache {
	return &Cache{inner: inner, ttl: ttl, entries: expirable.NewLRU[[32]byte, cacheEntry](cacheSize, nil, ttl)}
}

// Authenticate implements Authenticator.
func (c *Cache) Authenticate(ctx context.Context, bearer string) (*auth.Principal, error) {
	key := sha256.Sum256([]byte(bearer))
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries.Get(key)
	gen := c.generation
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.p, nil
	}
	p, err := c.inner.Authenticate(ctx, bearer)
	if err != nil {
		return nil, err
	}
	ttl := time.Second
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.generation != gen { // flushed meanwhile: what was read may already be revoked
		return p, nil
	}
	if c.listening {
		ttl = c.ttl
	}
	exp := now.Add(ttl)
	if p.Credential.ExpiresAt != nil && p.Credential.ExpiresAt.Before(exp) {
		exp = *p.Credential.ExpiresAt
	}
	c.entries.Add(key, cacheEntry{p: p, expires: exp})
	return p, nil
}

// Flush drops every cached credential; payloads are coarse on purpose (revocations are
// rare, and a flush costs one query per active credential).
func (c *Cache) Flush(string) {
	c.mu.Lock()
	c.entries.Purge()
	c.generation++
	c.mu.Unlock()
}

// SetListening records whether revocation notifications are arriving.
func (c *Cache) SetListening(on bool) {
	c.mu.Lock()
	c.listening = on
	if !on {
		c.entries.Purge()
		c.generation++
	}
	c.mu.Unlock()
}
