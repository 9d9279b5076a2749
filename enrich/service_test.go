package enrich

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// The store implements what metered enrichment declares.
var (
	_ Ledger      = (*store.Store)(nil)
	_ HoldSweeper = (*store.Store)(nil)
)

func TestMain(m *testing.M) { storetest.Main(m) }

// meteredEnv is a workspace with credits, a company web site served on 127.0.0.2 for any
// *.test name, and the service reading it through the SSRF guard (allowing only that
// address, through explicit test configuration).
type meteredEnv struct {
	store *store.Store
	actor *auth.Principal
	site  *testServer
	hits  *atomic.Int64
	hosts *hosts
	svc   *Service
}

func newMeteredEnv(t *testing.T, credits int64, status int) *meteredEnv {
	t.Helper()
	s := storetest.New(t)
	f := storetest.Workspace(t, s, nil)
	if credits > 0 {
		if _, err := s.GrantCredits(context.Background(), f.WorkspaceID, credits, store.By{}); err != nil {
			t.Fatal(err)
		}
	}
	cert, pool := testCert(t)
	hits := &atomic.Int64{}
	site := newServer(t, "127.0.0.2", &cert, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if status != 200 {
			w.WriteHeader(status)
			return
		}
		fmt.Fprintf(w, `<html><head><title>Home</title>
<script type="application/ld+json">{"@type": "Organization", "name": "Company of %s", "industry": "Software"}</script>
</head><body><a href="https://www.linkedin.com/company/acme">LinkedIn</a></body></html>`, r.Host)
	}))
	h := newHosts()
	svc := NewService(ServiceConfig{Store: s, Provider: NewSiteProvider(SiteConfig{
		Guard:     Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}, Resolver: h},
		TLSConfig: &tls.Config{RootCAs: pool},
	})})
	return &meteredEnv{store: s, actor: f.Admin, site: site, hits: hits, hosts: h, svc: svc}
}

// domain makes a *.test name resolve to the site.
func (e *meteredEnv) domain(name string) string {
	e.hosts.set(name+":443", e.site.AddrPort())
	return name
}

func (e *meteredEnv) balance(t *testing.T) int64 {
	t.Helper()
	var b int64
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT balance FROM credit_balances WHERE workspace_id = $1`,
		e.actor.WorkspaceID).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

func wantCode(t *testing.T, err error, status int, code apierr.Code) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || httpx.Status(e) != status || e.Code != code {
		t.Fatalf("want %d %s, got %v", status, code, err)
	}
}

func TestEnrichFreshThenCached(t *testing.T) {
	e := newMeteredEnv(t, 10, 200)
	ctx := context.Background()
	d := e.domain("acme.test")
	res, err := e.svc.Enrich(ctx, e.actor, "https://ACME.test/about")
	if err != nil {
		t.Fatal(err)
	}
	if res.Domain != d || res.Name != "Company of acme.test" || res.Industry != "Software" ||
		res.Socials.LinkedIn != "https://www.linkedin.com/company/acme" || res.Cached || res.CreditsSpent != 1 || res.CreditsRemaining != 9 {
		t.Fatalf("fresh lookup: %+v", res)
	}
	again, err := e.svc.Enrich(ctx, e.actor, d)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || again.CreditsSpent != 0 || again.CreditsRemaining != 9 || again.Name != res.Name {
		t.Fatalf("second lookup should be cached and free: %+v", again)
	}
	if e.hits.Load() != 1 || e.balance(t) != 9 {
		t.Fatalf("site hit %d times, balance %d; want 1 and 9", e.hits.Load(), e.balance(t))
	}
	var ledger, activity int
	storetest.Pool(t).QueryRow(ctx, `SELECT count(*) FROM credit_ledger WHERE workspace_id = $1 AND delta = -1 AND domain = $2`,
		e.actor.WorkspaceID, d).Scan(&ledger)
	storetest.Pool(t).QueryRow(ctx, `SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'enrich'`,
		e.actor.WorkspaceID).Scan(&activity)
	if ledger != 1 || activity != 1 {
		t.Fatalf("ledger rows %d, activity rows %d; want 1 each", ledger, activity)
	}
}

func TestEnrichWithoutCreditsFetchesNothing(t *testing.T) {
	e := newMeteredEnv(t, 0, 200)
	_, err := e.svc.Enrich(context.Background(), e.actor, e.domain("broke.test"))
	wantCode(t, err, http.StatusPaymentRequired, "insufficient_credits")
	if e.hits.Load() != 0 || e.site.Conns() != 0 {
		t.Fatalf("a fetch was made without credits: %d requests", e.hits.Load())
	}
}

func TestEnrichProviderFailureChargesNothing(t *testing.T) {
	e := newMeteredEnv(t, 5, http.StatusInternalServerError)
	_, err := e.svc.Enrich(context.Background(), e.actor, e.domain("down.test"))
	wantCode(t, err, http.StatusBadGateway, "upstream_error")
	if b := e.balance(t); b != 5 {
		t.Fatalf("balance %d after a failed lookup, want 5", b)
	}
}

func TestEnrichInvalidDomain(t *testing.T) {
	e := newMeteredEnv(t, 5, 200)
	for _, d := range []string{"", "localhost", "127.0.0.1", "exa_mple.com", "http://[::1]/"} {
		_, err := e.svc.Enrich(context.Background(), e.actor, d)
		wantCode(t, err, http.StatusUnprocessableEntity, "validation_error")
	}
	if e.hits.Load() != 0 || e.balance(t) != 5 {
		t.Fatal("invalid domains reached the site or the balance")
	}
}

// expiringProvider lets the hold expire (and the sweeper refund it) while the lookup runs,
// so the charge cannot be settled afterwards.
type expiringProvider struct {
	inner Provider
	store *store.Store
}

func (p expiringProvider) Lookup(ctx context.Context, domain string) (Company, error) {
	if _, err := p.store.SweepCreditHolds(ctx, time.Now().Add(time.Hour)); err != nil {
		return Company{}, err
	}
	return p.inner.Lookup(ctx, domain)
}

func TestEnrichUnbilledWithholdsResult(t *testing.T) {
	e := newMeteredEnv(t, 3, 200)
	e.svc.cfg.Provider = expiringProvider{inner: e.svc.cfg.Provider, store: e.store}
	d := e.domain("unbilled.test")
	res, err := e.svc.Enrich(context.Background(), e.actor, d)
	wantCode(t, err, http.StatusBadGateway, "enrich_unbilled")
	if res != nil {
		t.Fatalf("result not withheld: %+v", res)
	}
	if b := e.balance(t); b != 3 {
		t.Fatalf("balance %d, want 3: nothing charged", b)
	}
	var cached int
	storetest.Pool(t).QueryRow(context.Background(), `SELECT count(*) FROM enrichment_cache WHERE workspace_id = $1 AND domain = $2`,
		e.actor.WorkspaceID, d).Scan(&cached)
	if cached != 0 {
		t.Fatal("an unbilled result was cached")
	}
}

func TestEnrichConcurrentSpendsExactlyTheBalance(t *testing.T) {
	e := newMeteredEnv(t, 10, 200)
	const n = 50
	var ok, noCredit, other atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		d := e.domain(fmt.Sprintf("c%02d.test", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.svc.Enrich(context.Background(), e.actor, d)
			var se *apierr.Error
			switch {
			case err == nil:
				ok.Add(1)
			case errors.As(err, &se) && se.Code == "insufficient_credits":
				noCredit.Add(1)
			default:
				t.Errorf("unexpected: %v", err)
				other.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 10 || noCredit.Load() != 40 || e.balance(t) != 0 {
		t.Fatalf("%d succeeded, %d got 402, balance %d; want 10, 40, 0", ok.Load(), noCredit.Load(), e.balance(t))
	}
	if e.hits.Load() != 10 {
		t.Fatalf("%d fetches, want 10: refused requests must not fetch", e.hits.Load())
	}
	var spent int64
	storetest.Pool(t).QueryRow(context.Background(), `SELECT -sum(delta) FROM credit_ledger WHERE workspace_id = $1 AND reason = 'enrich'`,
		e.actor.WorkspaceID).Scan(&spent)
	if spent != 10 {
		t.Fatalf("ledger says %d spent, want 10", spent)
	}
}

// TestEnrichConcurrentSameDomainChargedOnce: concurrent enrichments of one domain by one
// workspace fetch and charge once; the others wait for that result and get it as cached,
// free.
func TestEnrichConcurrentSameDomainChargedOnce(t *testing.T) {
	e := newMeteredEnv(t, 10, 200)
	d := e.domain("once.test")
	const n = 8
	var wg sync.WaitGroup
	results := make([]*Result, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { results[i], errs[i] = e.svc.Enrich(context.Background(), e.actor, d) })
	}
	wg.Wait()
	var spent int64
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if results[i].Name != "Company of once.test" {
			t.Fatalf("call %d: %+v", i, results[i])
		}
		spent += results[i].CreditsSpent
	}
	if spent != 1 || e.balance(t) != 9 || e.hits.Load() != 1 {
		t.Fatalf("%d credits reported spent, balance %d, %d fetches; want 1, 9, 1", spent, e.balance(t), e.hits.Load())
	}
}
