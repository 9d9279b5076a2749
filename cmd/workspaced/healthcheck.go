package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// healthcheck is `workspaced healthcheck`, the container image's HEALTHCHECK (the image
// has no shell, curl or wget): it asks the server that the same environment configures for
// /readyz on its listen port and exits 0 when ready, 1 otherwise.
func healthcheck(ctx context.Context, args []string) int {
	cfg, err := parseConfig(flag.NewFlagSet("healthcheck", flag.ContinueOnError), args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	_, port, err := net.SplitHostPort(cfg.ListenAddr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "LISTEN_ADDR:", err)
		return 2
	}
	scheme := "http"
	if cfg.servesTLS() {
		scheme = "https"
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		// The certificate names the public host, not 127.0.0.1; readiness is all we ask.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // #nosec G402 -- loopback readiness probe
	req, _ := http.NewRequestWithContext(ctx, "GET", scheme+"://"+net.JoinHostPort("127.0.0.1", port)+"/readyz", nil)
	if len(cfg.ACMEDomains) > 0 {
		req.Host = cfg.ACMEDomains[0] // autocert answers only its domains' server names
		client.Transport.(*http.Transport).TLSClientConfig.ServerName = cfg.ACMEDomains[0]
	}
	res, err := client.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "not ready:", err)
		return 1
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "not ready:", res.Status)
		return 1
	}
	return 0
}
