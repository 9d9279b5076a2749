package enrich

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSiteLookupExtracts(t *testing.T) {
	tests := []struct {
		name string
		page string
		want Company
	}{
		{
			name: "JSON-LD Organization wins over og:site_name and title",
			page: `<!doctype html><html><head>
<title>Acme | Home</title>
<meta property="og:site_name" content="Acme OG">
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Organization", "name": "Acme Corp",
 "industry": "Manufacturing", "url": "https://example.com/placeholder",
 "sameAs": ["https://www.linkedin.com/company/acme/", "https://twitter.com/acme?lang=en", "https://en.wikipedia.org/wiki/Acme"]}
</script></head><body><a href="https://twitter.com/someone_else">x</a></body></html>`,
			want: Company{Name: "Acme Corp", Industry: "Manufacturing", Socials: Socials{
				LinkedIn: "https://www.linkedin.com/company/acme",
				Twitter:  "https://twitter.com/acme",
			}},
		},
		{
			name: "JSON-LD @graph with a Corporation subtype",
			page: `<html><head><title>Ignored</title>
<script type="application/ld+json; charset=utf-8">{"@context":"https://schema.org","@graph":[
 {"@type":"WebSite","name":"Acme Website","publisher":{"@id":"#org"}},
 {"@type":["Corporation"],"@id":"#org","name":"Acme Holdings","industry":{"@type":"DefinedTerm","name":"Logistics"},"sameAs":"https://instagram.com/acme/"}
]}</script></head></html>`,
			want: Company{Name: "Acme Holdings", Industry: "Logistics", Socials: Socials{Instagram: "https://instagram.com/acme"}},
		},
		{
			name: "JSON-LD LocalBusiness nested in a WebPage, wrapped in a comment",
			page: `<html><head><title>Ignored</title>
<script type="application/ld+json"><!-- {"@type":"WebPage","name":"Home","about":{"@type":"schema:Bakery","name":"Acme Bakery"}} --></script>
<script type="application/ld+json">{"@type":"LocalBusiness","name":"Acme Bakery Ltd"}</script></head></html>`,
			want: Company{Name: "Acme Bakery Ltd"},
		},
		{
			name: "only og:site_name",
			page: `<html><head><meta property="og:title" content="Welcome"><meta property="og:site_name" content="  Acme   Widgets "></head><body>hi</body></html>`,
			want: Company{Name: "Acme Widgets"},
		},
		{
			name: "only title, trimmed and unescaped",
			page: "<html><head><title>\n   Acme &amp; Sons\n\t Ltd  </title></head><body><svg><title>logo</title></svg></body></html>",
			want: Company{Name: "Acme & Sons Ltd"},
		},
		{
			name: "socials from links, share buttons skipped, first match each",
			page: `<html><head><title>Acme</title></head><body>
<a href="https://twitter.com/intent/tweet?text=hi">share</a>
<a href="https://www.facebook.com/sharer/sharer.php?u=x">share</a>
<a href="https://www.linkedin.com/shareArticle?url=x">share</a>
<a href="/about">about</a>
<a href="http://X.com/AcmeHQ/">x</a>
<a href="https://twitter.com/second">second</a>
<a href=" //www.instagram.com/acme.hq?hl=en#top ">ig</a>
<a href="https://m.facebook.com/AcmeHQ/">fb</a>
<a href="https://www.linkedin.com/company/acme-hq/about/">li</a>
<a href="https://notlinkedin.com/company/acme">fake</a>
<a href="javascript:void(0)">js</a>
</body></html>`,
			want: Company{Name: "Acme", Socials: Socials{
				LinkedIn:  "https://www.linkedin.com/company/acme-hq/about",
				Twitter:   "https://x.com/AcmeHQ",
				Instagram: "https://www.instagram.com/acme.hq",
				Facebook:  "https://m.facebook.com/AcmeHQ",
			}},
		},
		{
			name: "sameAs before links, links fill the rest",
			page: `<html><head><title>Acme</title><script type="application/ld+json">
[{"@type":"Organization","sameAs":["https://facebook.com/acme.official"]}]</script></head>
<body><a href="https://facebook.com/acme.footer">fb</a><a href="https://linkedin.com/company/acme">li</a></body></html>`,
			want: Company{Name: "Acme", Socials: Socials{
				Facebook: "https://facebook.com/acme.official",
				LinkedIn: "https://linkedin.com/company/acme",
			}},
		},
		{
			name: "nothing to find",
			page: `<html><body><p>under construction</p></body></html>`,
			want: Company{},
		},
	}
	e := newEnv(t)
	p := e.provider(t, []string{"127.0.0.2/32"})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			domain := fmt.Sprintf("site%d.test", i)
			e.site(t, "127.0.0.2", domain, htmlHandler(tt.page))
			got, err := p.Lookup(context.Background(), domain)
			if err != nil {
				t.Fatalf("Lookup: %v", err)
			}
			tt.want.Domain = domain
			tt.want.Website = "https://" + domain
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lookup (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSiteLookupNormalizesDomain(t *testing.T) {
	e := newEnv(t)
	e.site(t, "127.0.0.2", "www.acme.test", htmlHandler(`<title>Acme</title>`))
	got, err := e.provider(t, []string{"127.0.0.2/32"}).Lookup(context.Background(), "HTTPS://WWW.Acme.test/about")
	if err != nil {
		t.Fatal(err)
	}
	if got.Domain != "www.acme.test" || got.Website != "https://www.acme.test" || got.Name != "Acme" {
		t.Errorf("Lookup = %+v", got)
	}
}

func TestSiteLookupInvalidDomain(t *testing.T) {
	e := newEnv(t)
	p := e.provider(t, nil)
	for _, d := range []string{"localhost", "127.0.0.1", "[::1]", "exa_mple.com", ""} {
		if _, err := p.Lookup(context.Background(), d); !errors.Is(err, ErrInvalidDomain) || errors.Is(err, ErrUpstream) {
			t.Errorf("Lookup(%q) error = %v, want ErrInvalidDomain only", d, err)
		}
	}
}

// redirector redirects to next(n) on its n-th request (from 1), or serves a
// page when next returns "".
func redirector(next func(n int) string) (http.Handler, *atomic.Int64) {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := next(int(n.Add(1)))
		if to == "" {
			fmt.Fprint(w, "<title>Landed</title>")
			return
		}
		http.Redirect(w, r, to, http.StatusFound)
	}), &n
}

func TestSiteLookupRedirects(t *testing.T) {
	for _, tt := range []struct {
		name      string
		redirects int
		wantErr   bool
	}{
		{name: "no redirect", redirects: 0},
		{name: "3 redirects are followed", redirects: 3},
		{name: "fails because of a 4th redirect", redirects: 4, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			h, n := redirector(func(n int) string {
				if n > tt.redirects {
					return ""
				}
				return fmt.Sprintf("https://www.acme.test/hop%d", n)
			})
			e.site(t, "127.0.0.2", "acme.test", h)
			e.site(t, "127.0.0.2", "www.acme.test", h)
			got, err := e.provider(t, []string{"127.0.0.2/32"}).Lookup(context.Background(), "acme.test")
			if tt.wantErr {
				if !errors.Is(err, ErrUpstream) {
					t.Fatalf("Lookup error = %v, want ErrUpstream", err)
				}
				if got := n.Load(); got != 4 {
					t.Errorf("server saw %d requests, want 4 (the 4th redirect is not followed)", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Lookup: %v", err)
			}
			wantSite := "https://acme.test"
			if tt.redirects > 0 {
				wantSite = "https://www.acme.test"
			}
			if got.Name != "Landed" || got.Website != wantSite {
				t.Errorf("Lookup = %+v, want name Landed, website %s", got, wantSite)
			}
		})
	}
}

func TestSiteLookupRefusesRedirectToOtherSchemes(t *testing.T) {
	e := newEnv(t)
	h, _ := redirector(func(int) string { return "ftp://acme.test/file" })
	e.site(t, "127.0.0.2", "acme.test", h)
	_, err := e.provider(t, []string{"127.0.0.2/32"}).Lookup(context.Background(), "acme.test")
	if !errors.Is(err, ErrUpstream) || !strings.Contains(err.Error(), `scheme "ftp"`) {
		t.Fatalf("Lookup error = %v, want ErrUpstream about the ftp scheme", err)
	}
}

func TestSiteLookupBodyCap(t *testing.T) {
	// The documented choice: a page over 1 MiB is parsed as far as the cap.
	const mib = 1 << 20
	head := `<html><head><title>Big Acme</title></head><body><a href="https://twitter.com/early">t</a>`
	before := `<a href="https://instagram.com/justbefore">i</a>`
	after := `<a href="https://linkedin.com/company/after">l</a>`
	pad := strings.Repeat("x", mib-len(head)-len(before))
	page := head + pad + before + after + strings.Repeat("y", 2*mib) + "</body></html>"
	e := newEnv(t)
	e.site(t, "127.0.0.2", "big.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	}))
	got, err := e.provider(t, []string{"127.0.0.2/32"}).Lookup(context.Background(), "big.test")
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	want := Company{Domain: "big.test", Name: "Big Acme", Website: "https://big.test", Socials: Socials{
		Twitter:   "https://twitter.com/early",
		Instagram: "https://instagram.com/justbefore",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
}

func TestSiteLookupStatusFails(t *testing.T) {
	for _, code := range []int{http.StatusInternalServerError, http.StatusNotFound, http.StatusForbidden, http.StatusNotModified} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			e := newEnv(t)
			e.site(t, "127.0.0.2", "acme.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(code)
				fmt.Fprint(w, "<title>Error page</title>")
			}))
			_, err := e.provider(t, []string{"127.0.0.2/32"}).Lookup(context.Background(), "acme.test")
			if !errors.Is(err, ErrUpstream) {
				t.Fatalf("Lookup error = %v, want ErrUpstream", err)
			}
		})
	}
}

func TestSiteLookupTimeout(t *testing.T) {
	e := newEnv(t)
	// The site answers only when the test ends: had it answered when the request's context
	// ended, a client giving up at the same moment could still read that empty 200 (seen
	// once under -race), and the lookup would not have timed out at all.
	release := make(chan struct{})
	e.site(t, "127.0.0.2", "slow.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer close(release)
	p := e.provider(t, []string{"127.0.0.2/32"}, func(c *SiteConfig) { c.Timeout = 300 * time.Millisecond })
	start := time.Now()
	_, err := p.Lookup(context.Background(), "slow.test")
	if !errors.Is(err, ErrUpstream) {
		t.Fatalf("Lookup error = %v, want ErrUpstream", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Lookup took %v, want about 300ms", d)
	}
}

func TestSiteLookupUnresolvable(t *testing.T) {
	e := newEnv(t)
	_, err := e.provider(t, nil).Lookup(context.Background(), "nowhere.test")
	if !errors.Is(err, ErrUpstream) {
		t.Fatalf("Lookup error = %v, want ErrUpstream", err)
	}
}

func TestSiteProviderIgnoresProxyEnvironment(t *testing.T) {
	p := NewSiteProvider(SiteConfig{})
	tr, ok := p.client.Transport.(*http.Transport)
	if !ok || tr.Proxy != nil || !tr.DisableKeepAlives {
		t.Fatalf("transport = %#v, want no Proxy and keep-alives disabled", p.client.Transport)
	}
}

// The SSRF tests use the production Guard (no Allow prefixes) unless they say
// otherwise; only name resolution is pointed at test addresses.

func TestSiteLookupRefusesNonPublicAddresses(t *testing.T) {
	e := newEnv(t)
	loop4 := e.site(t, "127.0.0.1", "loopback.test", htmlHandler("<title>internal</title>"))
	e.hosts.set("mapped.test:443", netip.AddrPortFrom(netip.MustParseAddr("::ffff:127.0.0.1"), loop4.AddrPort().Port()))
	e.hosts.set("private.test:443", netip.MustParseAddrPort("10.0.0.1:443"))
	e.hosts.set("metadata.test:443", netip.MustParseAddrPort("169.254.169.254:443"))
	e.hosts.set("cgnat.test:443", netip.MustParseAddrPort("100.64.0.1:443"))
	e.hosts.set("nat64.test:443", netip.MustParseAddrPort("[64:ff9b::a9fe:a9fe]:443"))
	var loop6 *testServer
	t.Run("listen ::1", func(t *testing.T) {
		loop6 = e.site(t, "::1", "loopback6.test", htmlHandler("<title>internal</title>"))
	})
	p := e.provider(t, nil)
	domains := []string{"loopback.test", "mapped.test", "private.test", "metadata.test", "cgnat.test", "nat64.test"}
	if loop6 != nil {
		domains = append(domains, "loopback6.test")
	}
	for _, d := range domains {
		t.Run(d, func(t *testing.T) {
			_, err := p.Lookup(context.Background(), d)
			if !errors.Is(err, ErrUpstream) || !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("Lookup(%s) error = %v, want ErrUpstream wrapping ErrBlockedAddress", d, err)
			}
			if e.hosts.Calls(d+":443") != 1 {
				t.Errorf("%s resolved %d times, want 1: the refusal is on the resolved address", d, e.hosts.Calls(d+":443"))
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	if n := loop4.Conns(); n != 0 {
		t.Errorf("127.0.0.1 server accepted %d connections, want 0", n)
	}
	if loop6 != nil {
		if n := loop6.Conns(); n != 0 {
			t.Errorf("::1 server accepted %d connections, want 0", n)
		}
	}
}

func TestSiteLookupRefusesRedirectToLoopback(t *testing.T) {
	e := newEnv(t)
	plain := newServer(t, "127.0.0.1", nil, htmlHandler("<title>internal</title>"))
	internal := e.site(t, "127.0.0.1", "internal.test", htmlHandler("<title>internal</title>"))
	for _, to := range []string{
		"http://" + plain.Listener.Addr().String() + "/admin", // IP literal
		"https://internal.test/admin",                         // name resolving to 127.0.0.1
	} {
		t.Run(to, func(t *testing.T) {
			h, n := redirector(func(int) string { return to })
			e.site(t, "127.0.0.2", "public.test", h)
			// Only 127.0.0.2 is allowed, standing in for a public address.
			_, err := e.provider(t, []string{"127.0.0.2/32"}).Lookup(context.Background(), "public.test")
			if !errors.Is(err, ErrUpstream) || !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("Lookup error = %v, want ErrUpstream wrapping ErrBlockedAddress", err)
			}
			if n.Load() != 1 {
				t.Errorf("allowed site saw %d requests, want 1", n.Load())
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	if plain.Conns() != 0 || internal.Conns() != 0 {
		t.Errorf("loopback servers accepted %d and %d connections, want 0", plain.Conns(), internal.Conns())
	}
}

// rebinding answers the first lookup of each host with first and every later
// one with then, like a DNS server whose answer changes under a short TTL.
func rebinding(first, then netip.AddrPort) (Resolver, *atomic.Int64) {
	var calls atomic.Int64
	return ResolverFunc(func(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
		if calls.Add(1) == 1 {
			return []netip.AddrPort{first}, nil
		}
		return []netip.AddrPort{then}, nil
	}), &calls
}

func TestSiteLookupRefusesRebinding(t *testing.T) {
	e := newEnv(t)
	hidden := newServer(t, "127.0.0.1", &e.cert, htmlHandler("<title>internal</title>"))

	t.Run("between lookups", func(t *testing.T) {
		site := newServer(t, "127.0.0.2", &e.cert, htmlHandler("<title>Rebind Inc</title>"))
		res, calls := rebinding(site.AddrPort(), hidden.AddrPort())
		p := e.provider(t, []string{"127.0.0.2/32"}, func(c *SiteConfig) { c.Guard.Resolver = res })
		got, err := p.Lookup(context.Background(), "rebind.test")
		if err != nil || got.Name != "Rebind Inc" {
			t.Fatalf("first Lookup = %+v, %v; want Rebind Inc", got, err)
		}
		_, err = p.Lookup(context.Background(), "rebind.test")
		if !errors.Is(err, ErrBlockedAddress) {
			t.Fatalf("second Lookup error = %v, want ErrBlockedAddress", err)
		}
		if calls.Load() != 2 {
			t.Errorf("resolver called %d times, want 2", calls.Load())
		}
	})
	t.Run("within one lookup", func(t *testing.T) {
		// The first answer passes; the site then redirects to itself, the new
		// connection gets the second answer, and that address is refused.
		h, n := redirector(func(int) string { return "https://rebind.test/again" })
		site := newServer(t, "127.0.0.2", &e.cert, h)
		res, calls := rebinding(site.AddrPort(), hidden.AddrPort())
		p := e.provider(t, []string{"127.0.0.2/32"}, func(c *SiteConfig) { c.Guard.Resolver = res })
		_, err := p.Lookup(context.Background(), "rebind.test")
		if !errors.Is(err, ErrBlockedAddress) {
			t.Fatalf("Lookup error = %v, want ErrBlockedAddress", err)
		}
		if n.Load() != 1 || calls.Load() != 2 {
			t.Errorf("site saw %d requests and resolver %d calls, want 1 and 2", n.Load(), calls.Load())
		}
	})
	time.Sleep(50 * time.Millisecond)
	if n := hidden.Conns(); n != 0 {
		t.Errorf("127.0.0.1 server accepted %d connections, want 0", n)
	}
}
