package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// checkServing settles how clients reach the service and refuses what would break them.
// The API is HTTPS only (docs/contract.md section 9): a PUBLIC_URL that is not loopback must be
// https, whether this process terminates TLS (TLS_CERT_FILE, ACME_DOMAINS) or a proxy in
// front of it does. With no PUBLIC_URL the origin derives from LISTEN_ADDR, and a listen
// address with no host (":8080") resolves to localhost, never to "http://:8080".
func (c *config) checkServing() error {
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return errors.New("TLS_CERT_FILE and TLS_KEY_FILE go together: set both or neither")
	}
	if c.TLSCertFile != "" && len(c.ACMEDomains) > 0 {
		return errors.New("set TLS_CERT_FILE/TLS_KEY_FILE or ACME_DOMAINS, not both")
	}
	if c.PublicURL == "" {
		c.PublicURL, c.PublicURLDerived = c.derivedPublicURL(), true
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/") // the issuer has no trailing slash
	u, err := url.Parse(c.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("PUBLIC_URL %q is not an origin such as https://api.example.com", c.PublicURL)
	}
	if c.servesTLS() && u.Scheme != "https" {
		return fmt.Errorf("PUBLIC_URL %s: this process serves HTTPS (TLS_CERT_FILE or ACME_DOMAINS), so PUBLIC_URL must be https", c.PublicURL)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return fmt.Errorf("PUBLIC_URL %s: the API is HTTPS only, so a PUBLIC_URL that is not loopback must be https "+
			"(serve TLS with TLS_CERT_FILE/TLS_KEY_FILE or ACME_DOMAINS, or set PUBLIC_URL=https://... behind a TLS-terminating proxy)", c.PublicURL)
	}
	return nil
}

// servesTLS reports whether this process terminates TLS itself.
func (c *config) servesTLS() bool { return c.TLSCertFile != "" || len(c.ACMEDomains) > 0 }

// derivedPublicURL is the origin LISTEN_ADDR implies: the first ACME domain, or the listen
// host, with localhost standing for "every interface".
func (c *config) derivedPublicURL() string {
	scheme := "http"
	if c.servesTLS() {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(c.ListenAddr)
	if err != nil {
		return scheme + "://" + c.ListenAddr // checkServing names what is wrong with it
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	if len(c.ACMEDomains) > 0 {
		host = c.ACMEDomains[0]
	}
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// hsts tells browsers to use https only for this host (RFC 6797); it is on every response
// when PUBLIC_URL is https. includeSubDomains is left out: sibling hosts are not ours to bind.
func hsts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", "max-age=63072000")
		next.ServeHTTP(w, r)
	})
}

// tlsConfig is the listener's TLS when this process terminates it, nil otherwise: the
// certificate files (re-read when they change or on SIGHUP, never needing a restart), or
// certificates obtained and renewed through ACME with the TLS-ALPN-01 challenge, cached in
// DATA_DIR/acme so restarts do not ask the authority again. Both offer HTTP/2. reload is
// what SIGHUP does (onHangup): re-read the certificate files, or, with none, say so.
func (srv *server) tlsConfig() (cfg *tls.Config, reload func(), err error) {
	switch {
	case srv.cfg.TLSCertFile != "":
		files := &certFiles{cert: srv.cfg.TLSCertFile, key: srv.cfg.TLSKeyFile, log: srv.log}
		if err := files.load(); err != nil {
			return nil, nil, err
		}
		return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: files.get,
			NextProtos: []string{"h2", "http/1.1"}}, func() { files.reload("SIGHUP") }, nil
	case len(srv.cfg.ACMEDomains) > 0:
		m := &autocert.Manager{
			Prompt:     autocert.AcceptTOS,
			Cache:      autocert.DirCache(filepath.Join(srv.cfg.DataDir, "acme")),
			HostPolicy: autocert.HostWhitelist(srv.cfg.ACMEDomains...),
			Email:      srv.cfg.ACMEEmail,
			Client:     &acme.Client{DirectoryURL: srv.cfg.ACMEDirectoryURL},
		}
		cfg := m.TLSConfig() // offers h2, http/1.1 and acme-tls/1
		cfg.MinVersion = tls.VersionTLS12
		return cfg, srv.nothingToReload, nil // autocert renews by itself
	}
	return nil, srv.nothingToReload, nil
}

// certFiles serves the certificate in a pair of PEM files and picks up replacements: each
// handshake looks (at most once a second) whether either file changed, and SIGHUP reloads
// at once. A replacement that does not load is logged and the previous pair kept.
type certFiles struct {
	cert, key string
	log       *slog.Logger

	mu      sync.Mutex
	current *tls.Certificate
	stamp   string
	checked time.Time
}

func (f *certFiles) load() error {
	stamp := f.fileStamp()
	c, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return fmt.Errorf("TLS_CERT_FILE/TLS_KEY_FILE: %w", err)
	}
	f.mu.Lock()
	f.current, f.stamp = &c, stamp
	f.mu.Unlock()
	return nil
}

// fileStamp changes whenever either file is replaced or rewritten.
func (f *certFiles) fileStamp() string {
	var b strings.Builder
	for _, name := range []string{f.cert, f.key} {
		if fi, err := os.Stat(name); err == nil {
			fmt.Fprintf(&b, "%d/%d;", fi.ModTime().UnixNano(), fi.Size())
		}
	}
	return b.String()
}

func (f *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	f.mu.Lock()
	due := time.Since(f.checked) >= time.Second
	if due {
		f.checked = time.Now()
	}
	changed := due && f.fileStamp() != f.stamp
	f.mu.Unlock()
	if changed {
		f.reload("files changed")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current, nil
}

func (f *certFiles) reload(why string) {
	if err := f.load(); err != nil {
		f.log.Error("TLS certificate not reloaded; keeping the previous one", "why", why, "err", err)
		f.mu.Lock()
		f.stamp = f.fileStamp() // do not retry a broken pair on every handshake
		f.mu.Unlock()
		return
	}
	f.log.Info("TLS certificate reloaded", "why", why, "cert_file", f.cert)
}

func (srv *server) nothingToReload() {
	srv.log.Warn("SIGHUP: nothing to reload (only TLS_CERT_FILE and TLS_KEY_FILE are re-read); the process keeps running")
}

// onHangup calls reload on every SIGHUP until ctx ends. SIGHUP is what service managers
// send to reload (systemctl reload, kill -HUP); left to Go's default it would end the
// process at once, without the graceful shutdown SIGTERM gets, so it is taken whatever
// there is to reload.
func onHangup(ctx context.Context, reload func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			reload()
		}
	}
}
