package ratelimit

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP returns the address per-IP budgets should charge for r. It is the socket
// peer's address unless the peer is inside one of the trusted prefixes (the
// TRUSTED_PROXIES setting): then X-Forwarded-For is read from the right, the end each
// proxy appends to, skipping trusted hops, and the first untrusted address is the client.
// Entries left of that one were written by the client and could be anything, so they are
// never used. All hops trusted (a request from inside the proxies' network) gives the
// leftmost entry. An entry that does not parse, met before an untrusted one, means the
// chain cannot be read: ClientIP returns the peer, which at least limits the proxy's
// traffic as one client rather than trusting a forged value.
//
// Entries may carry a port ("192.0.2.1:443", "[2001:db8::1]:443"), as some proxies
// write; IPv4-mapped IPv6 addresses are unmapped and zones dropped, so prefixes compare
// as written. The Forwarded header (RFC 7239) is not read. ClientIP returns the zero Addr
// when RemoteAddr is not an address (a Unix socket); TakeIP counts those as one client.
func ClientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer, ok := parseHop(r.RemoteAddr)
	if !ok || !isTrusted(peer, trusted) {
		return peer
	}
	var hops []string
	// Several X-Forwarded-For lines are one list in order (RFC 9110 section 5.3).
	for _, line := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(line, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := parseHop(hops[i])
		if !ok {
			return peer
		}
		if !isTrusted(hop, trusted) {
			return hop
		}
		client = hop
	}
	return client
}

// parseHop parses an address with or without a port.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	return a.Unmap().WithZone(""), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParsePrefixes parses a comma-separated list of CIDR prefixes and bare addresses, the
// form of the TRUSTED_PROXIES setting; a bare address becomes a /32 or /128. Blank
// entries are skipped, so an empty string trusts no proxy. Prefixes are masked
// ("10.1.2.3/8" is 10.0.0.0/8) and IPv4-mapped ones unmapped so they match what ClientIP
// compares.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("ratelimit: trusted proxy %q: %w", f, err)
			}
			if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
				p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("ratelimit: trusted proxy %q: %w", f, err)
		}
		if a.Zone() != "" {
			return nil, fmt.Errorf("ratelimit: trusted proxy %q: zones are not supported", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
