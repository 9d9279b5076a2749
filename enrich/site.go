package enrich

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// Defaults for SiteConfig and FirmographicsConfig fields left zero.
const (
	DefaultTimeout      = 10 * time.Second // whole lookup: connects, redirects, body
	DefaultMaxBodyBytes = 1 << 20          // 1 MiB
	DefaultMaxRedirects = 3
	DefaultUserAgent    = "workspaced-enrich/1.0"
)

// SiteConfig configures a SiteProvider. The zero value is the production
// configuration.
type SiteConfig struct {
	// Guard checks every address the provider connects to. The zero Guard
	// refuses all non-public addresses and resolves with DNS.
	Guard Guard
	// TLSConfig is used for https; nil means the system roots. Tests set
	// RootCAs to trust their test server's certificate.
	TLSConfig *tls.Config
	// Timeout bounds a whole lookup; 0 means DefaultTimeout. Each connect is
	// bounded by Guard.DialTimeout (default 5s).
	Timeout time.Duration
	// MaxBodyBytes is how much of the page is read; 0 means
	// DefaultMaxBodyBytes. A longer page is parsed as far as this cap.
	MaxBodyBytes int64
	// MaxRedirects is how many redirects are followed; 0 means
	// DefaultMaxRedirects, negative means none.
	MaxRedirects int
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string
}

// SiteProvider is the built-in Provider: it reads the company's own home page,
// https://{domain}/, through a Guard.
//
// It follows at most MaxRedirects redirects, to http or https URLs only, each
// hop's address checked by the Guard. A non-2xx answer fails. Of the body it
// reads at most MaxBodyBytes and parses what it read: a page over the cap is
// not an error, since what a lookup needs (title, meta, JSON-LD) sits near the
// top; links past the cap are not seen.
//
// The name comes from a JSON-LD Organization (or a subtype such as Corporation
// or LocalBusiness, also inside @graph or nested), else og:site_name, else the
// <title>; the industry from that Organization's "industry"; the website is the
// origin of the final URL; socials come from the Organization's sameAs, then
// from <a href> links to linkedin.com, twitter.com or x.com, instagram.com and
// facebook.com, first match each, as https URLs without query or fragment.
type SiteProvider struct {
	cfg    SiteConfig
	client *http.Client
}

var _ Provider = (*SiteProvider)(nil)

// NewSiteProvider returns a SiteProvider for cfg.
func NewSiteProvider(cfg SiteConfig) *SiteProvider {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	} else if cfg.MaxRedirects < 0 {
		cfg.MaxRedirects = 0
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	cfg.Guard.Allow = slices.Clone(cfg.Guard.Allow)
	p := &SiteProvider{cfg: cfg}
	p.client = &http.Client{
		Transport:     p.cfg.Guard.Transport(cfg.TLSConfig),
		Timeout:       cfg.Timeout,
		CheckRedirect: checkRedirect(cfg.MaxRedirects),
	}
	return p
}

// checkRedirect allows at most max redirects, to http and https URLs only.
func checkRedirect(max int) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > max {
			return fmt.Errorf("stopped after %d redirects", max)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to scheme %q refused", req.URL.Scheme)
		}
		return nil
	}
}

// Lookup fetches https://{domain}/ and reads the company from it. See
// Provider for the errors it returns.
func (p *SiteProvider) Lookup(ctx context.Context, domain string) (Company, error) {
	d, err := NormalizeDomain(domain)
	if err != nil {
		return Company{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+d+"/", nil)
	if err != nil {
		return Company{}, fmt.Errorf("%w: %w", ErrUpstream, err)
	}
	req.Header.Set("User-Agent", p.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
	resp, err := p.client.Do(req)
	if err != nil {
		return Company{}, fmt.Errorf("%w: %w", ErrUpstream, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Company{}, fmt.Errorf("%w: GET %s: status %d", ErrUpstream, resp.Request.URL, resp.StatusCode)
	}
	pg, err := parsePage(io.LimitReader(resp.Body, p.cfg.MaxBodyBytes), resp.Header.Get("Content-Type"))
	if err != nil {
		return Company{}, fmt.Errorf("%w: reading %s: %w", ErrUpstream, resp.Request.URL, err)
	}
	return companyFrom(d, resp.Request.URL, pg), nil
}
