package enrich

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// ErrBlockedAddress is wrapped by the error of a connection a Guard refused
// because the address is not public and not in Guard.Allow.
var ErrBlockedAddress = errors.New("enrich: address not allowed")

// DefaultDialTimeout is the connect timeout a Guard uses when DialTimeout is 0.
const DefaultDialTimeout = 5 * time.Second

// Resolver finds the addresses to connect to for host (a name, never an IP
// literal) and port (as in the URL, normally decimal).
type Resolver interface {
	Resolve(ctx context.Context, host, port string) ([]netip.AddrPort, error)
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(ctx context.Context, host, port string) ([]netip.AddrPort, error)

// Resolve calls f.
func (f ResolverFunc) Resolve(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
	return f(ctx, host, port)
}

// DNSResolver is the production Resolver: it looks host up with Resolver
// (net.DefaultResolver when nil) and keeps the port.
type DNSResolver struct {
	Resolver *net.Resolver
}

// Resolve looks host up in DNS and pairs every address with port.
func (r DNSResolver) Resolve(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
	res := r.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	p, err := res.LookupPort(ctx, "tcp", port)
	if err != nil {
		return nil, err
	}
	ips, err := res.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	out := make([]netip.AddrPort, 0, len(ips))
	for _, ip := range ips {
		out = append(out, netip.AddrPortFrom(ip, uint16(p)))
	}
	return out, nil
}

// Guard dials TCP connections only to public addresses, the defence against
// server-side request forgery for fetches of user-chosen domains.
//
// The check runs in the net.Dialer Control hook, on the address of the socket
// about to connect, for every connection: every redirect hop is a new
// connection (Transport disables keep-alives), and a DNS answer is used by the
// same dial that checks it, so an answer that changes between lookups is judged
// by what is actually connected to. Refused: loopback, private (RFC 1918),
// shared CGNAT space, link-local (cloud metadata 169.254.169.254 included),
// 0.0.0.0/8, multicast, broadcast, IETF-reserved, benchmarking and
// documentation ranges; on IPv6 everything outside global unicast 2000::/3
// (::, ::1, fc00::/7, fe80::/10, ff00::/8 ...), IETF protocol assignments
// 2001::/23 (Teredo included), documentation 2001:db8::/32 and 3fff::/20; and
// IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4 (2002::/16) forms are judged by the
// IPv4 address they carry.
//
// The zero Guard is the production configuration.
type Guard struct {
	// Allow lists prefixes connected to even though they are not public. Only
	// tests and explicit operator configuration set it (e.g. 127.0.0.0/8).
	Allow []netip.Prefix
	// Resolver maps host names to addresses; nil means DNSResolver{}. Tests
	// set it to send names to local test servers; the addresses it returns
	// are still checked.
	Resolver Resolver
	// DialTimeout bounds each connection attempt; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
}

// Allowed reports whether g lets a connection to a be made.
func (g *Guard) Allowed(a netip.Addr) bool {
	a = a.WithZone("") // a zoned address never matches a prefix
	u := a.Unmap()
	for _, p := range g.Allow {
		if p.Contains(a) || p.Contains(u) {
			return true
		}
	}
	if u.Is4() {
		return publicV4(u)
	}
	return publicV6(u)
}

// publicV4 reports whether the IPv4 address a is globally reachable
// (IANA IPv4 Special-Purpose Address Registry, RFC 6890).
func publicV4(a netip.Addr) bool {
	for _, p := range [...]string{
		"0.0.0.0/8",       // "this network", unspecified
		"10.0.0.0/8",      // RFC 1918 private
		"100.64.0.0/10",   // RFC 6598 shared address space (CGNAT)
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local, cloud metadata
		"172.16.0.0/12",   // RFC 1918 private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // TEST-NET-1
		"192.88.99.0/24",  // 6to4 relay anycast (deprecated)
		"192.168.0.0/16",  // RFC 1918 private
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // TEST-NET-2
		"203.0.113.0/24",  // TEST-NET-3
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, 255.255.255.255 broadcast
	} {
		if netip.MustParsePrefix(p).Contains(a) {
			return false
		}
	}
	return a.Is4()
}

// publicV6 reports whether the IPv6 address a (not IPv4-mapped) is globally
// reachable (IANA IPv6 Special-Purpose Address Registry).
func publicV6(a netip.Addr) bool {
	if !a.Is6() {
		return false
	}
	b := a.As16()
	// RFC 6052 section 2.1: the well-known NAT64 prefix carries the IPv4
	// address in its last 32 bits.
	if netip.MustParsePrefix("64:ff9b::/96").Contains(a) {
		return publicV4(netip.AddrFrom4([4]byte(b[12:16])))
	}
	// RFC 3056 section 2: 6to4 carries the IPv4 address in bits 16-47.
	if netip.MustParsePrefix("2002::/16").Contains(a) {
		return publicV4(netip.AddrFrom4([4]byte(b[2:6])))
	}
	if !netip.MustParsePrefix("2000::/3").Contains(a) {
		return false // ::, ::1, ::/96, fc00::/7, fe80::/10, ff00::/8, 64:ff9b:1::/48 ...
	}
	for _, p := range [...]string{
		"2001::/23",     // IETF protocol assignments, Teredo 2001::/32 included
		"2001:db8::/32", // documentation
		"3fff::/20",     // documentation (RFC 9637)
	} {
		if netip.MustParsePrefix(p).Contains(a) {
			return false
		}
	}
	return true
}

// control is the net.Dialer Control hook: it runs after the socket is created
// and before connect(2), with the numeric address being connected to.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable address %q", ErrBlockedAddress, address)
	}
	if !g.Allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, ap.Addr())
	}
	return nil
}

// DialContext connects to address ("host:port") like net.Dialer.DialContext,
// resolving host with g.Resolver and trying each address in turn. Every
// connection attempt is checked by the Control hook; a refused one returns an
// error wrapping ErrBlockedAddress and no packet is sent to that address.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var addrs []netip.AddrPort
	if ip, perr := netip.ParseAddr(host); perr == nil {
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("enrich: bad port in %q", address)
		}
		addrs = []netip.AddrPort{netip.AddrPortFrom(ip, uint16(p))}
	} else {
		r := g.Resolver
		if r == nil {
			r = DNSResolver{}
		}
		addrs, err = r.Resolve(ctx, host, port)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	timeout := g.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	d := net.Dialer{Timeout: timeout, Control: g.control}
	var firstErr error
	for _, ap := range addrs {
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		c, err := d.DialContext(ctx, network, ap.String())
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// Transport returns an http.Transport that connects only through
// g.DialContext, never through a proxy (environment variables are not read),
// and opens a new connection for every request, so each redirect hop is
// checked. tlsConfig may be nil (system roots); tests pass one trusting their
// certificate.
func (g *Guard) Transport(tlsConfig *tls.Config) *http.Transport {
	timeout := g.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            g.DialContext,
		TLSClientConfig:        tlsConfig.Clone(),
		TLSHandshakeTimeout:    timeout,
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: 64 << 10,
	}
}
