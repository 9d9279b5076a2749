package enrich

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// FirmographicsConfig configures a FirmographicsProvider. Its String and
// GoString methods redact APIKey, so printing the config does not leak it.
type FirmographicsConfig struct {
	// BaseURL is the API's base, e.g. "https://api.vendor.example/v1"; the
	// provider requests {BaseURL}/companies?domain=... . It is operator
	// configuration, so it is not checked by a Guard.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer {APIKey}". It is never
	// logged and never part of an error.
	APIKey string
	// TLSConfig is used for https; nil means the system roots.
	TLSConfig *tls.Config
	// DialTimeout bounds each connect; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// Timeout bounds a whole lookup; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBodyBytes caps the answer; 0 means DefaultMaxBodyBytes. A longer
	// answer fails, since truncated JSON cannot be read.
	MaxBodyBytes int64
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string
}

// String describes c with the API key redacted.
func (c FirmographicsConfig) String() string {
	key := ""
	if c.APIKey != "" {
		key = "[redacted]"
	}
	return fmt.Sprintf("{BaseURL:%s APIKey:%s Timeout:%s MaxBodyBytes:%d}", c.BaseURL, key, c.Timeout, c.MaxBodyBytes)
}

// GoString is String, so %#v redacts the key too.
func (c FirmographicsConfig) GoString() string { return "enrich.FirmographicsConfig" + c.String() }

// FirmographicsProvider is a Provider backed by a commercial firmographics
// HTTP API. For a domain it sends
//
//	GET {BaseURL}/companies?domain={domain}
//	Authorization: Bearer {APIKey}
//
// and expects a 2xx JSON object of this assumed shape (unknown keys ignored,
// any key may be missing or null):
//
//	{"name": "Acme Corp", "domain": "acme.com", "website": "https://acme.com",
//	 "industry": "Manufacturing",
//	 "linkedin_url": "https://www.linkedin.com/company/acme",
//	 "twitter_url": "https://twitter.com/acme",
//	 "instagram_url": "https://instagram.com/acme",
//	 "facebook_url": "https://facebook.com/acme"}
//
// The Company's Domain is always the domain asked for. Website and social URLs
// must be http or https (a bare host gets https://, socials are upgraded to
// https); anything else is dropped. Every failure wraps ErrUpstream: network
// errors, timeouts, a non-2xx status (404, the vendor's "no such company",
// included), an answer over MaxBodyBytes, or JSON that is not an object.
type FirmographicsProvider struct {
	base   *url.URL
	key    string
	ua     string
	max    int64
	client *http.Client
}

var _ Provider = (*FirmographicsProvider)(nil)

// NewFirmographicsProvider returns a FirmographicsProvider for cfg. It fails
// when BaseURL is not an absolute http or https URL or APIKey is empty.
func NewFirmographicsProvider(cfg FirmographicsConfig) (*FirmographicsProvider, error) {
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, errors.New("enrich: firmographics base URL must be an absolute http or https URL")
	}
	if base.User != nil {
		return nil, errors.New("enrich: firmographics base URL must not carry credentials")
	}
	if cfg.APIKey == "" {
		return nil, errors.New("enrich: firmographics API key is empty")
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	dialer := &net.Dialer{Timeout: cfg.DialTimeout}
	return &FirmographicsProvider{
		base: base,
		key:  cfg.APIKey,
		ua:   cfg.UserAgent,
		max:  cfg.MaxBodyBytes,
		client: &http.Client{
			Transport: &http.Transport{
				Proxy:                  nil, // no proxy from the environment
				DialContext:            dialer.DialContext,
				TLSClientConfig:        cfg.TLSConfig.Clone(),
				TLSHandshakeTimeout:    cfg.DialTimeout,
				MaxResponseHeaderBytes: 64 << 10,
				MaxIdleConnsPerHost:    4,
				IdleConnTimeout:        90 * time.Second,
			},
			Timeout: cfg.Timeout,
			// net/http drops Authorization on a redirect to another host.
			CheckRedirect: checkRedirect(DefaultMaxRedirects),
		},
	}, nil
}

// firmographicsAnswer is the assumed response shape; see FirmographicsProvider.
type firmographicsAnswer struct {
	Name         string `json:"name"`
	Domain       string `json:"domain"`
	Website      string `json:"website"`
	Industry     string `json:"industry"`
	LinkedInURL  string `json:"linkedin_url"`
	TwitterURL   string `json:"twitter_url"`
	InstagramURL string `json:"instagram_url"`
	FacebookURL  string `json:"facebook_url"`
}

// Lookup asks the API about domain. See Provider and FirmographicsProvider for
// the errors it returns.
func (p *FirmographicsProvider) Lookup(ctx context.Context, domain string) (Company, error) {
	d, err := NormalizeDomain(domain)
	if err != nil {
		return Company{}, err
	}
	u := p.base.JoinPath("companies")
	q := u.Query()
	q.Set("domain", d)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Company{}, fmt.Errorf("%w: firmographics: %w", ErrUpstream, err)
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", p.ua)
	resp, err := p.client.Do(req)
	if err != nil {
		// *url.Error names the URL, which carries the domain but not the key.
		return Company{}, fmt.Errorf("%w: firmographics: %w", ErrUpstream, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The body is not quoted: a vendor may echo request headers back.
		return Company{}, fmt.Errorf("%w: firmographics: status %d for %s", ErrUpstream, resp.StatusCode, d)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, p.max+1))
	if err != nil {
		return Company{}, fmt.Errorf("%w: firmographics: reading answer: %w", ErrUpstream, err)
	}
	if int64(len(body)) > p.max {
		return Company{}, fmt.Errorf("%w: firmographics: answer over %d bytes", ErrUpstream, p.max)
	}
	var a firmographicsAnswer
	if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' {
		return Company{}, fmt.Errorf("%w: firmographics: answer is not a JSON object", ErrUpstream)
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return Company{}, fmt.Errorf("%w: firmographics: decoding answer: %w", ErrUpstream, err)
	}
	return Company{
		Domain:   d,
		Name:     collapseSpace(a.Name),
		Website:  webURL(a.Website, false),
		Industry: collapseSpace(a.Industry),
		Socials: Socials{
			LinkedIn:  webURL(a.LinkedInURL, true),
			Twitter:   webURL(a.TwitterURL, true),
			Instagram: webURL(a.InstagramURL, true),
			Facebook:  webURL(a.FacebookURL, true),
		},
	}, nil
}

// webURL returns s as an http or https URL, https:// added to a bare host and,
// when forceHTTPS, http upgraded; anything else gives "".
func webURL(s string, forceHTTPS bool) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if !strings.Contains(s, "://") {
		s = "https://" + strings.TrimPrefix(s, "//")
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	if forceHTTPS {
		u.Scheme = "https"
	}
	return u.String()
}
