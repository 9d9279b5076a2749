// Package webhooks delivers the workspace's change events to the endpoints its admins
// register (docs/webhooks.md): an outbox written by database triggers in the same
// transaction as each write, a dispatcher that turns outbox rows into deliveries, and River
// jobs that POST them with Standard Webhooks signatures and retry on a fixed schedule.
package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/workspace"
)

// URLPolicy decides which endpoint URLs may be registered and delivered to: https to a
// public address, judged by the enrichment SSRF guard (enrich/guard.go), plus http to a
// loopback address while the service itself runs on loopback.
type URLPolicy struct {
	// Guard judges addresses; its Allow is extended with loopback when LoopbackHTTP is set.
	Guard enrich.Guard
	// LoopbackHTTP accepts http:// and https:// URLs on a loopback address, for a developer
	// running a receiver beside a service whose PUBLIC_URL is loopback.
	LoopbackHTTP bool
}

var _ workspace.WebhookURLs = (*URLPolicy)(nil)

// Refusal is Check's reason as a phrase safe to show (without ErrRefusedURL's words), or ""
// for a URL that may be registered.
func (p *URLPolicy) Refusal(ctx context.Context, raw string) string {
	if err := p.Check(ctx, raw); err != nil {
		return strings.TrimPrefix(err.Error(), ErrRefusedURL.Error()+": ")
	}
	return ""
}

// ErrRefusedURL is wrapped by every refusal of Check.
var ErrRefusedURL = errors.New("webhooks: endpoint URL refused")

// loopback is what LoopbackHTTP opens.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// guard returns the guard deliveries dial through.
func (p *URLPolicy) guard() *enrich.Guard {
	g := p.Guard
	if p.LoopbackHTTP {
		g.Allow = append(append([]netip.Prefix(nil), g.Allow...), loopback...)
	}
	return &g
}

// Check parses raw and refuses what may not be an endpoint: another scheme, credentials in
// the URL, a host written as a number (decimal, octal or hex IPv4 forms that resolvers
// read as addresses), and a host any of whose addresses the guard refuses. Deliveries are
// checked again on every connection (DNS rebinding), so passing Check is not enough to be
// delivered to. The error wraps ErrRefusedURL and says why, safe to show.
func (p *URLPolicy) Check(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("%w: not an absolute URL", ErrRefusedURL)
	}
	if u.User != nil {
		return fmt.Errorf("%w: credentials in the URL are not accepted", ErrRefusedURL)
	}
	host := u.Hostname()
	addrs, err := p.addresses(ctx, host, u.Port())
	if err != nil {
		return err
	}
	g := p.guard()
	allLoopback := true
	for _, a := range addrs {
		if !g.Allowed(a) {
			// Only that: what a name resolves to inside the service's network is not the
			// caller's to learn (a refusal would map internal names to addresses).
			return fmt.Errorf("%w: %s is not a public address", ErrRefusedURL, host)
		}
		allLoopback = allLoopback && a.Unmap().IsLoopback()
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && p.LoopbackHTTP && allLoopback:
	case p.LoopbackHTTP:
		return fmt.Errorf("%w: the URL must be https, or http on a loopback address while the service runs locally", ErrRefusedURL)
	default:
		return fmt.Errorf("%w: the URL must be https", ErrRefusedURL)
	}
	return nil
}

// addresses returns the addresses host stands for: itself when it is an IP literal,
// otherwise what the guard's resolver answers.
func (p *URLPolicy) addresses(ctx context.Context, host, port string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	if numericHost(host) {
		return nil, fmt.Errorf("%w: write the host as a name or a dotted IP address", ErrRefusedURL)
	}
	if port == "" {
		port = "443"
	}
	r := p.Guard.Resolver
	if r == nil {
		r = enrich.DNSResolver{}
	}
	aps, err := r.Resolve(ctx, host, port)
	if err != nil || len(aps) == 0 {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) || err == nil {
			return nil, fmt.Errorf("%w: %s does not resolve", ErrRefusedURL, host)
		}
		return nil, fmt.Errorf("%w: %s could not be resolved", ErrRefusedURL, host)
	}
	out := make([]netip.Addr, len(aps))
	for i, ap := range aps {
		out[i] = ap.Addr()
	}
	return out, nil
}

// numericHost reports whether host's last label is a number (2130706433, 0x7f.1, 017700000001):
// no top-level domain is, and C resolvers read such names as IPv4 addresses.
func numericHost(host string) bool {
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	last := strings.ToLower(labels[len(labels)-1])
	if last == "" {
		return true
	}
	if strings.HasPrefix(last, "0x") {
		return true
	}
	return strings.Trim(last, "0123456789") == ""
}
