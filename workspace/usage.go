package workspace

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// UsageStore adds counted requests to the database; *store.Store implements it.
type UsageStore interface {
	// AddUsage adds each count to its workspace's, day's and credential's total.
	AddUsage(ctx context.Context, counts []store.UsageCount) error
}

// Usage counts authenticated requests (reads and writes, REST and MCP) per credential per
// UTC day (docs/console.md, "Credits and usage"). A request costs a map increment under a
// mutex, no database write: Run adds the totals to the database every few seconds and
// once more when it stops (cmd runs it among the process's loops, which stop before the
// pool closes). Totals that could not be written are kept for the next flush, so an
// outage delays counts and loses none, unless the process dies before it ends.
type Usage struct {
	store UsageStore
	log   *slog.Logger
	now   func() time.Time

	mu     sync.Mutex
	counts map[usageKey]int64
}

// usageKey is one total. The credential is kept as its two parts, so counting allocates
// nothing (the label is joined at the flush).
type usageKey struct {
	day                            int64 // days since the Unix epoch, UTC
	workspace, typ, id, clientName string
}

// NewUsage returns an empty counter over s; now nil means time.Now.
func NewUsage(s UsageStore, log *slog.Logger, now func() time.Time) *Usage {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Usage{store: s, log: log, now: now, counts: map[usageKey]int64{}}
}

// Counted returns a that counts every credential it accepts.
func (u *Usage) Counted(a Authenticator) Authenticator {
	return AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		p, err := a.Authenticate(ctx, bearer)
		if err == nil {
			u.Count(p)
		}
		return p, err
	})
}

// Count counts one request made with p's credential.
func (u *Usage) Count(p *auth.Principal) {
	if p.Credential.Type == "" || p.Credential.ID == "" {
		return
	}
	k := usageKey{day: u.now().Unix() / 86400, workspace: p.WorkspaceID, typ: p.Credential.Type, id: p.Credential.ID,
		clientName: p.Credential.ClientName}
	u.mu.Lock()
	u.counts[k]++
	u.mu.Unlock()
}

// Flush adds the totals counted since the last flush to the database; on failure they
// are kept for the next one.
func (u *Usage) Flush(ctx context.Context) error {
	u.mu.Lock()
	taken := u.counts
	u.counts = map[usageKey]int64{}
	u.mu.Unlock()
	if len(taken) == 0 {
		return nil
	}
	counts := make([]store.UsageCount, 0, len(taken))
	for k, n := range taken {
		counts = append(counts, store.UsageCount{WorkspaceID: k.workspace, Day: time.Unix(k.day*86400, 0).UTC(),
			Credential: store.Credential{Type: k.typ, ID: k.id, ClientName: k.clientName}, Requests: n})
	}
	err := u.store.AddUsage(ctx, counts)
	if err != nil {
		u.mu.Lock()
		for k, n := range taken {
			u.counts[k] += n
		}
		u.mu.Unlock()
	}
	return err
}

// UsageFlushEvery is how often cmd has Run write the counts: the console's usage is at
// most this late, and a crash loses at most this much of it.
const UsageFlushEvery = 10 * time.Second

// Run flushes every period until ctx ends, then once more, within 2 seconds (the loops'
// owner waits 3 for every loop at shutdown, cmd/workspaced/loops.go).
func (u *Usage) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := u.Flush(ctx); err != nil {
				u.log.WarnContext(ctx, "usage: counts not written; kept for the next flush", "err", err)
			}
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if err := u.Flush(fctx); err != nil {
				u.log.Warn("usage: counts lost at shutdown", "err", err)
			}
			return
		}
	}
}
