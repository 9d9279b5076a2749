package ratelimit

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClientIP(t *testing.T) {
	trusted, err := ParsePrefixes("10.0.0.0/8, 192.0.2.10, 2001:db8:ffff::/48")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		remote string
		xff    []string
		want   string
	}{
		{"no proxy", "198.51.100.7:5555", nil, "198.51.100.7"},
		{"untrusted peer: XFF ignored", "198.51.100.7:5555", []string{"203.0.113.9"}, "198.51.100.7"},
		{"trusted proxy, one hop", "10.1.2.3:443", []string{"203.0.113.9"}, "203.0.113.9"},
		{"trusted chain: rightmost untrusted wins, forged left entries ignored",
			"10.1.2.3:443", []string{"6.6.6.6, 203.0.113.9, 192.0.2.10, 10.9.9.9"}, "203.0.113.9"},
		{"XFF over several header lines", "10.1.2.3:443", []string{"6.6.6.6, 203.0.113.9", "10.9.9.9"}, "203.0.113.9"},
		{"trusted proxy, no XFF: the proxy", "10.1.2.3:443", nil, "10.1.2.3"},
		{"all hops trusted: leftmost", "10.1.2.3:443", []string{"10.7.7.7, 192.0.2.10"}, "10.7.7.7"},
		{"malformed hop: the peer", "10.1.2.3:443", []string{"203.0.113.9, not-an-ip, 10.9.9.9"}, "10.1.2.3"},
		{"empty hop: the peer", "10.1.2.3:443", []string{"203.0.113.9,,10.9.9.9"}, "10.1.2.3"},
		{"malformed hop left of the client is never read", "10.1.2.3:443", []string{"garbage, 203.0.113.9"}, "203.0.113.9"},
		{"hop with a port", "10.1.2.3:443", []string{"203.0.113.9:61000"}, "203.0.113.9"},
		{"IPv6 peer", "[2001:db8::1]:443", []string{"203.0.113.9"}, "2001:db8::1"},
		{"IPv6 trusted proxy and client", "[2001:db8:ffff::1]:443", []string{"2001:db8:1::5, 2001:db8:ffff::2"}, "2001:db8:1::5"},
		{"IPv6 hop with a port", "[2001:db8:ffff::1]:443", []string{"[2001:db8:1::5]:8080"}, "2001:db8:1::5"},
		{"IPv4-mapped peer matches an IPv4 prefix", "[::ffff:10.1.2.3]:443", []string{"203.0.113.9"}, "203.0.113.9"},
		{"zoned link-local peer", "[fe80::1%eth0]:443", nil, "fe80::1"},
		{"unix socket peer", "@", []string{"203.0.113.9"}, "invalid IP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tc.remote, Header: http.Header{}}
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := ClientIP(r, trusted).String(); got != tc.want {
				t.Errorf("ClientIP = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestParsePrefixes(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []netip.Prefix
		wantErr bool
	}{
		{in: "", want: nil},
		{in: " , ", want: nil},
		{in: "10.0.0.0/8", want: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
		{in: "10.1.2.3/8", want: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
		{in: "192.0.2.10, 2001:db8::1", want: []netip.Prefix{
			netip.MustParsePrefix("192.0.2.10/32"), netip.MustParsePrefix("2001:db8::1/128")}},
		{in: "::ffff:10.0.0.1", want: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}},
		{in: "::ffff:10.0.0.0/104", want: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
		{in: "2001:db8::/32,127.0.0.1", want: []netip.Prefix{
			netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("127.0.0.1/32")}},
		{in: "10.0.0.0/33", wantErr: true},
		{in: "proxy.internal", wantErr: true},
		{in: "10.0.0.1, nope", wantErr: true},
		{in: "fe80::1%eth0", wantErr: true},
	} {
		got, err := ParsePrefixes(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParsePrefixes(%q) error = %v, wantErr %v", tc.in, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
			t.Errorf("ParsePrefixes(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
