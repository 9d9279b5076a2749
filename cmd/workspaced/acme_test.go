package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/letsencrypt/challtestsrv"
	"github.com/letsencrypt/pebble/v2/ca"
	"github.com/letsencrypt/pebble/v2/db"
	"github.com/letsencrypt/pebble/v2/va"
	"github.com/letsencrypt/pebble/v2/wfe"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestACMEWithPebble obtains a certificate for workspaced.test from Let's Encrypt's test
// authority, Pebble, run in this test: Pebble really validates the TLS-ALPN-01 challenge
// by connecting to the workspaced process's port (its DNS, challtestsrv, resolves every
// name to 127.0.0.1), and a Go client then verifies the served certificate against
// Pebble's root. A restart serves the cached certificate
// from DATA_DIR without asking the authority again.
func TestACMEWithPebble(t *testing.T) {
	t.Setenv("PEBBLE_VA_NOSLEEP", "1")      // validate at once rather than after 0-5 s
	t.Setenv("PEBBLE_WFE_NONCEREJECT", "0") // no deliberately rejected nonces
	const domain = "workspaced.test"
	addr := freeAddr(t)
	_, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)

	logger := log.New(io.Discard, "", 0)
	if testing.Verbose() {
		logger = log.New(os.Stderr, "pebble ", log.Ltime)
	}
	store := db.NewMemoryStore()
	authority := ca.New(logger, store, "", "ecdsa", 0, 1, map[string]ca.Profile{"default": {Description: "default"}})
	// The validation authority resolves names with its own DNS server and connects to the
	// identifier's address at our port.
	dnsAddr := freeAddr(t)
	dnsServer, err := challtestsrv.New(challtestsrv.Config{DNSAddrs: []string{dnsAddr}, Log: logger})
	if err != nil {
		t.Fatal(err)
	}
	dnsServer.SetDefaultDNSIPv4("127.0.0.1")
	dnsServer.SetDefaultDNSIPv6("")
	go dnsServer.Run()
	defer dnsServer.Shutdown()
	validator := va.New(logger, 0, port, false, dnsAddr, store)
	front := wfe.New(logger, store, validator, authority, []string{"pebble.letsencrypt.org"}, false, false, 3, 5)
	acmeServer := httptest.NewTLSServer(front.Handler())
	defer acmeServer.Close()
	mgmt := httptest.NewTLSServer(front.ManagementHandler())
	defer mgmt.Close()

	// workspaced trusts the ACME server's own HTTPS certificate through SSL_CERT_FILE.
	dir := t.TempDir()
	acmeCA := filepath.Join(dir, "acme-server.pem")
	os.WriteFile(acmeCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: acmeServer.Certificate().Raw}), 0o600)
	dataDir := filepath.Join(dir, "data")
	env := []string{"DATABASE_URL=" + storetest.DSN(t), "LISTEN_ADDR=:" + portText, "ACME_DOMAINS=" + domain,
		"ACME_DIRECTORY_URL=" + acmeServer.URL + wfe.DirectoryPath, "ACME_EMAIL=ops@example.com",
		"SSL_CERT_FILE=" + acmeCA, "DATA_DIR=" + dataDir}

	// Pebble's root, which signs what it issues.
	res, err := mgmt.Client().Get(mgmt.URL + wfe.RootCertPath + "0")
	if err != nil {
		t.Fatal(err)
	}
	rootPEM, _ := io.ReadAll(res.Body)
	res.Body.Close()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(rootPEM) {
		t.Fatalf("pebble root: %s", rootPEM)
	}
	// The client reaches workspaced.test at 127.0.0.1 and verifies the name and the chain.
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true, DisableKeepAlives: true}}

	bin := buildBinary(t)
	d := launchDaemon(t, bin, env...)
	d.url = "https://" + domain + ":" + portText // PUBLIC_URL derived from the ACME domain
	// The first handshake obtains the certificate (account, order, TLS-ALPN-01, finalize).
	var got *http.Response
	waitFor(t, 60*time.Second, func() bool {
		got, err = client.Get(d.url + "/readyz")
		if err != nil {
			t.Logf("not yet: %v", err)
			return false
		}
		got.Body.Close()
		return got.StatusCode == 200
	}, "an HTTPS answer with a certificate from Pebble")
	leaf := got.TLS.PeerCertificates[0]
	if got.Proto != "HTTP/2.0" || len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != domain {
		t.Errorf("proto %s, certificate for %v", got.Proto, leaf.DNSNames)
	}
	if got.Header.Get("Strict-Transport-Security") == "" {
		t.Error("no HSTS over ACME-served HTTPS")
	}
	if entries, _ := os.ReadDir(filepath.Join(dataDir, "acme")); len(entries) == 0 {
		t.Error("nothing cached in DATA_DIR/acme")
	}

	// Restarted with the authority gone, the cached certificate is served.
	d.cmd.Process.Kill()
	<-d.exited
	acmeServer.Close()
	d = launchDaemon(t, bin, env...)
	d.url = "https://" + domain + ":" + portText
	waitFor(t, 30*time.Second, func() bool {
		res, err := client.Get(d.url + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.TLS.PeerCertificates[0].SerialNumber.Cmp(leaf.SerialNumber) == 0
	}, "the cached certificate after a restart")
}
