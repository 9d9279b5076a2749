package enrich

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// testCert returns a self-signed certificate, usable as its own root, for
// every name the tests use and the loopback addresses.
func testCert(tb testing.TB) (tls.Certificate, *x509.CertPool) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "enrich test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"*.test", "*.acme.test"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("127.0.0.2"), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// testServer is an httptest server on a chosen loopback address that counts
// the connections it accepted.
type testServer struct {
	*httptest.Server
	ln *countingListener
}

// AddrPort is the address the server listens on.
func (s *testServer) AddrPort() netip.AddrPort {
	return netip.MustParseAddrPort(s.Listener.Addr().String())
}

// Conns is how many connections the server accepted.
func (s *testServer) Conns() int64 { return s.ln.n.Load() }

// newServer starts a server on ip (e.g. "127.0.0.2"), with TLS when cert is
// not nil. It skips the test when ip cannot be listened on.
func newServer(tb testing.TB, ip string, cert *tls.Certificate, h http.Handler) *testServer {
	tb.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		tb.Skipf("cannot listen on %s: %v", ip, err)
	}
	cl := &countingListener{Listener: ln}
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = cl
	if cert != nil {
		s.TLS = &tls.Config{Certificates: []tls.Certificate{*cert}}
		s.StartTLS()
	} else {
		s.Start()
	}
	tb.Cleanup(s.Close)
	return &testServer{Server: s, ln: cl}
}

// hosts is a test Resolver: "host:port" -> address, counting lookups.
type hosts struct {
	mu    sync.Mutex
	m     map[string][]netip.AddrPort
	calls map[string]int
}

func newHosts() *hosts {
	return &hosts{m: map[string][]netip.AddrPort{}, calls: map[string]int{}}
}

func (h *hosts) set(hostport string, addrs ...netip.AddrPort) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m[hostport] = addrs
}

func (h *hosts) Resolve(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hp := net.JoinHostPort(host, port)
	h.calls[hp]++
	if a, ok := h.m[hp]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (h *hosts) Calls(hostport string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[hostport]
}

// env is a loopback test world: a certificate, a resolver, and a way to build
// SiteProviders that use them.
type env struct {
	cert  tls.Certificate
	roots *x509.CertPool
	hosts *hosts
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	cert, roots := testCert(tb)
	return &env{cert: cert, roots: roots, hosts: newHosts()}
}

// site starts a TLS server on ip serving h and points domain:443 at it.
func (e *env) site(tb testing.TB, ip, domain string, h http.Handler) *testServer {
	tb.Helper()
	s := newServer(tb, ip, &e.cert, h)
	e.hosts.set(domain+":443", s.AddrPort())
	return s
}

// provider returns a SiteProvider resolving through e, trusting e's
// certificate, and allowing only the prefixes given (none: production).
func (e *env) provider(tb testing.TB, allow []string, edit ...func(*SiteConfig)) *SiteProvider {
	tb.Helper()
	cfg := SiteConfig{
		Guard:     Guard{Resolver: e.hosts},
		TLSConfig: &tls.Config{RootCAs: e.roots},
	}
	for _, a := range allow {
		cfg.Guard.Allow = append(cfg.Guard.Allow, netip.MustParsePrefix(a))
	}
	for _, f := range edit {
		f(&cfg)
	}
	return NewSiteProvider(cfg)
}

// htmlHandler serves body as text/html.
func htmlHandler(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	})
}
