package enrich

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeDomain(t *testing.T) {
	long63 := strings.Repeat("a", 63)
	tests := []struct {
		name string
		in   string
		want string // "" means ErrInvalidDomain
	}{
		{name: "bare domain", in: "example.com", want: "example.com"},
		{name: "uppercase is lowered", in: "ExAmple.COM", want: "example.com"},
		{name: "surrounding spaces trimmed", in: "  example.com \n", want: "example.com"},
		{name: "https scheme stripped", in: "https://example.com", want: "example.com"},
		{name: "http scheme and path stripped", in: "HTTP://Example.com/about/us", want: "example.com"},
		{name: "scheme-relative", in: "//example.com/x", want: "example.com"},
		{name: "query stripped", in: "example.com?utm=1", want: "example.com"},
		{name: "fragment stripped", in: "example.com#top", want: "example.com"},
		{name: "port stripped", in: "example.com:8080", want: "example.com"},
		{name: "scheme, port and path stripped", in: "https://shop.example.co.uk:443/cart?id=2", want: "shop.example.co.uk"},
		{name: "empty port stripped", in: "example.com:", want: "example.com"},
		{name: "trailing dot stripped", in: "example.com.", want: "example.com"},
		{name: "www kept", in: "www.example.com", want: "www.example.com"},
		{name: "www kept with scheme", in: "https://WWW.Example.com/", want: "www.example.com"},
		{name: "hyphen and digits inside labels", in: "my-co2.example-9.io", want: "my-co2.example-9.io"},
		{name: "punycode label", in: "xn--bcher-kva.de", want: "xn--bcher-kva.de"},
		{name: "internationalised name to punycode", in: "https://Bücher.DE/shop", want: "xn--bcher-kva.de"},
		{name: "internationalised name with www", in: "www.münchen.de", want: "www.xn--mnchen-3ya.de"},
		{name: "63-character label", in: long63 + ".com", want: long63 + ".com"},
		{name: "numeric non-top labels", in: "123.example.com", want: "123.example.com"},
		{name: "253 characters", in: strings.Repeat(long63+".", 3) + strings.Repeat("b", 61), want: strings.Repeat(long63+".", 3) + strings.Repeat("b", 61)},

		{name: "fails because empty", in: ""},
		{name: "fails because only a scheme", in: "https://"},
		{name: "fails because localhost has no dot", in: "localhost"},
		{name: "fails because localhost with scheme and port has no dot", in: "http://localhost:8080/"},
		{name: "fails because single label", in: "intranet"},
		{name: "fails because IPv4 literal", in: "127.0.0.1"},
		{name: "fails because IPv4 literal with scheme and port", in: "http://169.254.169.254:80/latest"},
		{name: "fails because short IPv4 form", in: "127.1"},
		{name: "fails because hex IPv4 form", in: "0x7f.0.0.1"},
		{name: "fails because IPv6 literal in brackets", in: "[::1]"},
		{name: "fails because IPv6 literal with port", in: "http://[::1]:80/"},
		{name: "fails because bare IPv6 literal", in: "::1"},
		{name: "fails because bare IPv6 literal fe80", in: "fe80::1"},
		{name: "fails because underscore", in: "exa_mple.com"},
		{name: "fails because 64-character label", in: strings.Repeat("a", 64) + ".com"},
		{name: "fails because longer than 253", in: strings.Repeat(long63+".", 3) + strings.Repeat("b", 62)},
		{name: "fails because label starts with hyphen", in: "-example.com"},
		{name: "fails because label ends with hyphen", in: "example-.com"},
		{name: "fails because empty label", in: "example..com"},
		{name: "fails because leading dot", in: ".example.com"},
		{name: "fails because two trailing dots", in: "example.com.."},
		{name: "fails because all-numeric TLD", in: "example.123"},
		{name: "fails because userinfo", in: "user@example.com"},
		{name: "fails because userinfo after scheme", in: "https://user:pw@example.com/"},
		{name: "fails because space inside", in: "exa mple.com"},
		{name: "fails because non-numeric port", in: "example.com:http"},
		{name: "fails because overlong port", in: "example.com:123456"},
		{name: "fails because javascript URL", in: "javascript:alert(1)"},
		{name: "fails because bad scheme", in: "1http://example.com"},
		{name: "fails because percent-encoding", in: "exa%6dple.com"},
		{name: "fails because of a character IDNA disallows", in: "a\u0000\u00fc.com"},
		{name: "fails because an internationalised name has no dot", in: "bücher"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeDomain(tt.in)
			if tt.want == "" {
				if !errors.Is(err, ErrInvalidDomain) {
					t.Fatalf("NormalizeDomain(%q) = %q, %v; want ErrInvalidDomain", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("NormalizeDomain(%q) = %q, %v; want %q, nil", tt.in, got, err, tt.want)
			}
		})
	}
}
