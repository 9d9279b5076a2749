package enrich

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"
)

func TestGuardAllowed(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		// IPv4 public
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"93.184.216.34", true},
		{"100.63.255.255", true},
		{"100.128.0.0", true},
		{"172.15.255.255", true},
		{"172.32.0.0", true},
		{"223.255.255.255", true},
		// IPv4 refused
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"10.0.0.1", false},
		{"10.255.255.255", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"127.0.0.1", false},
		{"127.0.0.2", false},
		{"127.255.255.254", false},
		{"169.254.169.254", false},
		{"169.254.0.1", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.0.0.8", false},
		{"192.0.2.1", false},
		{"192.88.99.1", false},
		{"192.168.1.1", false},
		{"198.18.0.1", false},
		{"198.19.255.255", false},
		{"198.51.100.7", false},
		{"203.0.113.9", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"240.0.0.1", false},
		{"255.255.255.255", false},
		// IPv6 public
		{"2606:4700:4700::1111", true},
		{"2a00:1450:4001:80b::200e", true},
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::808:808", true}, // NAT64 of 8.8.8.8
		{"2002:808:808::1", true},  // 6to4 of 8.8.8.8
		// IPv6 refused
		{"::", false},
		{"::1", false},
		{"::127.0.0.1", false}, // IPv4-compatible (deprecated)
		{"fc00::1", false},
		{"fd12:3456:789a::1", false},
		{"fe80::1", false},
		{"fe80::1%eth0", false},
		{"febf::1", false},
		{"fec0::1", false},
		{"ff02::1", false},
		{"ff05::1:3", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"::ffff:192.168.0.1", false},
		{"::ffff:0.0.0.0", false},
		{"64:ff9b::7f00:1", false},    // NAT64 of 127.0.0.1
		{"64:ff9b::a00:1", false},     // NAT64 of 10.0.0.1
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"64:ff9b:1::1", false},       // local-use NAT64
		{"2002:7f00:1::1", false},     // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", false},  // 6to4 of 169.254.169.254
		{"2001:db8::1", false},
		{"2001::1", false}, // Teredo
		{"2001:2::1", false},
		{"3fff::1", false},
		{"100::1", false}, // discard-only
	}
	var g Guard // production configuration
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			if got := g.Allowed(a); got != tt.want {
				t.Errorf("Allowed(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

func TestGuardAllowList(t *testing.T) {
	g := Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32"), netip.MustParsePrefix("fd00::/8")}}
	for addr, want := range map[string]bool{
		"127.0.0.2":        true,
		"::ffff:127.0.0.2": true,
		"127.0.0.1":        false,
		"fd00::2":          true,
		"fc00::1":          false,
		"10.0.0.1":         false,
		"8.8.8.8":          true,
	} {
		if got := g.Allowed(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Allowed(%s) = %v, want %v", addr, got, want)
		}
	}
}

// countingListener counts accepted connections.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func listenCounting(tb testing.TB, addr string) *countingListener {
	tb.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Skipf("cannot listen on %s: %v", addr, err)
	}
	cl := &countingListener{Listener: ln}
	tb.Cleanup(func() { cl.Close() })
	go func() {
		for {
			c, err := cl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return cl
}

func TestGuardDialRefusesBeforeConnecting(t *testing.T) {
	ln := listenCounting(t, "127.0.0.1:0")
	target := netip.MustParseAddrPort(ln.Addr().String())
	var g Guard // production configuration
	g.Resolver = ResolverFunc(func(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
		return []netip.AddrPort{target}, nil
	})
	ctx := context.Background()
	for _, addr := range []string{ln.Addr().String(), "loopback.test:443"} {
		c, err := g.DialContext(ctx, "tcp", addr)
		if !errors.Is(err, ErrBlockedAddress) {
			if c != nil {
				c.Close()
			}
			t.Fatalf("DialContext(%s) error = %v, want ErrBlockedAddress", addr, err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := ln.n.Load(); n != 0 {
		t.Errorf("listener accepted %d connections, want 0", n)
	}

	g.Allow = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	c, err := g.DialContext(ctx, "tcp", "loopback.test:443")
	if err != nil {
		t.Fatalf("DialContext with 127.0.0.0/8 allowed: %v", err)
	}
	c.Close()
}

func TestGuardDialNoAddresses(t *testing.T) {
	g := Guard{Resolver: ResolverFunc(func(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
		return nil, nil
	})}
	if _, err := g.DialContext(context.Background(), "tcp", "nothing.test:443"); err == nil {
		t.Fatal("DialContext with no addresses succeeded")
	}
}
