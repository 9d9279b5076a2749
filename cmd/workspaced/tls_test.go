package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "drill CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue writes a certificate for localhost and 127.0.0.1 with serial to certFile/keyFile.
func (ca *testCA) issue(t *testing.T, serial int64, certFile, keyFile string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	// Written beside and renamed over, as certificate tools do, so a handshake never reads
	// half a file.
	for name, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: kb}} {
		if err := os.WriteFile(name+".new", pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(name+".new", name); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHTTPSWithCertificateFiles serves HTTPS from TLS_CERT_FILE/TLS_KEY_FILE to a Go
// client that verifies the chain, over HTTP/2, with HSTS on every response and Secure
// __Host- cookies on the login page; a replaced certificate is served after SIGHUP, and
// after a change on disk without any signal, with no restart.
func TestHTTPSWithCertificateFiles(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	ca := newTestCA(t)
	ca.issue(t, 100, certFile, keyFile)
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool},
		ForceAttemptHTTP2: true, DisableKeepAlives: true}}
	bin := buildBinary(t)
	d := startDaemon(t, bin, client, "DATABASE_URL="+storetest.DSN(t), "LISTEN_ADDR="+addr,
		"TLS_CERT_FILE="+certFile, "TLS_KEY_FILE="+keyFile)
	if d.url != "https://127.0.0.1:"+port { // what PUBLIC_URL derives from LISTEN_ADDR when unset
		t.Fatalf("url %s", d.url)
	}

	res, err := client.Get(d.url + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Issuer                string `json:"issuer"`
		AuthorizationEndpoint string `json:"authorization_endpoint"`
		RegistrationEndpoint  string `json:"registration_endpoint"`
	}
	json.NewDecoder(res.Body).Decode(&meta)
	res.Body.Close()
	if res.Proto != "HTTP/2.0" {
		t.Errorf("protocol %s, want HTTP/2.0", res.Proto)
	}
	if meta.Issuer != d.url {
		t.Errorf("issuer %q, want %q (derived from LISTEN_ADDR with https)", meta.Issuer, d.url)
	}
	if got := res.TLS.PeerCertificates[0].SerialNumber.Int64(); got != 100 {
		t.Errorf("serial %d", got)
	}
	for _, path := range []string{"/healthz", "/v1/me", "/nowhere"} {
		res, err := client.Get(d.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if !strings.HasPrefix(res.Header.Get("Strict-Transport-Security"), "max-age=") {
			t.Errorf("%s (%d): no HSTS header", path, res.StatusCode)
		}
	}

	// The login page's cookies are Secure and __Host- prefixed.
	body, _ := json.Marshal(map[string]any{"client_name": "TLS drill", "redirect_uris": []string{"http://127.0.0.1/cb"},
		"token_endpoint_auth_method": "none"})
	res, err = client.Post(meta.RegistrationEndpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(res.Body).Decode(&reg)
	res.Body.Close()
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1/cb"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"},
		"scope": {"deals:read"}, "state": {"s"}}
	res, err = client.Get(meta.AuthorizationEndpoint + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cookies := res.Header.Values("Set-Cookie")
	if res.StatusCode != 200 || len(cookies) == 0 {
		t.Fatalf("login page: %d, cookies %v", res.StatusCode, cookies)
	}
	for _, c := range cookies {
		if !strings.HasPrefix(c, "__Host-") || !strings.Contains(c, "; Secure") {
			t.Errorf("login page cookie not Secure/__Host-: %s", c)
		}
	}

	// The image's HEALTHCHECK: the same environment, exit 0 while ready, 1 when nothing answers.
	for _, tc := range []struct {
		addr string
		want int
	}{{addr, 0}, {freeAddr(t), 1}} {
		hc := exec.Command(bin, "healthcheck")
		hc.Env = []string{"PATH=" + os.Getenv("PATH"), "LISTEN_ADDR=" + tc.addr, "TLS_CERT_FILE=" + certFile, "TLS_KEY_FILE=" + keyFile}
		out, _ := hc.CombinedOutput()
		if hc.ProcessState.ExitCode() != tc.want {
			t.Errorf("healthcheck on %s: exit %d, want %d (%s)", tc.addr, hc.ProcessState.ExitCode(), tc.want, out)
		}
	}

	serial := func() int64 {
		t.Helper()
		res, err := client.Get(d.url + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.TLS.PeerCertificates[0].SerialNumber.Int64()
	}
	// Replaced and announced with SIGHUP: served at once.
	ca.issue(t, 200, certFile, keyFile)
	d.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, 5*time.Second, func() bool { return serial() == 200 }, "certificate 200 after SIGHUP")
	// Replaced with no signal: picked up from the files' change.
	time.Sleep(1100 * time.Millisecond) // the files' timestamps must differ from the last load
	ca.issue(t, 300, certFile, keyFile)
	waitFor(t, 5*time.Second, func() bool { return serial() == 300 }, "certificate 300 after the files changed")
}

func waitFor(t *testing.T, within time.Duration, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRefusesHTTPPublicURL: the API is HTTPS only (docs/contract.md section 9). A non-loopback
// http PUBLIC_URL stops the start with a one-line reason and exit code 2.
func TestRefusesHTTPPublicURL(t *testing.T) {
	cmd := exec.Command(buildBinary(t), "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PUBLIC_URL=http://api.example.com", "DATABASE_URL=postgres://unused"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v (stderr %s)", err, stderr.String())
	}
	msg := strings.TrimSpace(stderr.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "must be https") || !strings.Contains(msg, "http://api.example.com") {
		t.Errorf("want one line naming the URL and the rule, got: %s", msg)
	}
}

// TestPublicURLRules checks the origin derived from LISTEN_ADDR and the refusals.
func TestPublicURLRules(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // "" means refused
	}{
		{map[string]string{"LISTEN_ADDR": ":8080"}, "http://localhost:8080"},
		{map[string]string{"LISTEN_ADDR": "0.0.0.0:8080"}, "http://localhost:8080"},
		{map[string]string{"LISTEN_ADDR": "127.0.0.1:9000"}, "http://127.0.0.1:9000"},
		{map[string]string{"LISTEN_ADDR": "10.0.0.5:8080"}, ""},
		{map[string]string{"PUBLIC_URL": "https://api.example.com/"}, "https://api.example.com"},
		{map[string]string{"PUBLIC_URL": "http://localhost:8080"}, "http://localhost:8080"},
		{map[string]string{"PUBLIC_URL": "http://[::1]:8080"}, "http://[::1]:8080"},
		{map[string]string{"PUBLIC_URL": "http://api.example.com"}, ""},
		{map[string]string{"PUBLIC_URL": "ftp://api.example.com"}, ""},
		{map[string]string{"PUBLIC_URL": "https://"}, ""},
		{map[string]string{"LISTEN_ADDR": ":8443", "TLS_CERT_FILE": "c", "TLS_KEY_FILE": "k"}, "https://localhost:8443"},
		{map[string]string{"TLS_CERT_FILE": "c", "TLS_KEY_FILE": "k", "PUBLIC_URL": "http://localhost:8080"}, ""},
		{map[string]string{"TLS_CERT_FILE": "c"}, ""},
		{map[string]string{"LISTEN_ADDR": ":443", "ACME_DOMAINS": "api.example.com, www.example.com"}, "https://api.example.com"},
		{map[string]string{"ACME_DOMAINS": "api.example.com", "TLS_CERT_FILE": "c", "TLS_KEY_FILE": "k"}, ""},
	} {
		for _, k := range []string{"LISTEN_ADDR", "PUBLIC_URL", "TLS_CERT_FILE", "TLS_KEY_FILE", "ACME_DOMAINS"} {
			t.Setenv(k, tc.env[k])
		}
		cfg, err := parseConfig(flag.NewFlagSet("t", flag.ContinueOnError), nil)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%v: accepted as %s, want refused", tc.env, cfg.PublicURL)
		case tc.want != "" && err != nil:
			t.Errorf("%v: refused: %v", tc.env, err)
		case tc.want != "" && cfg.PublicURL != tc.want:
			t.Errorf("%v: PUBLIC_URL %s, want %s", tc.env, cfg.PublicURL, tc.want)
		}
	}
}
