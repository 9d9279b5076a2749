package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agencyos/workspaced/store/storetest"
)

// metricsServer is the whole router, as startServer builds it, with cfg's metrics settings.
func metricsServer(t *testing.T, cfg config) (*httptest.Server, *server) {
	t.Helper()
	s := storetest.New(t)
	ts := httptest.NewUnstartedServer(nil)
	cfg.PublicURL, cfg.RefreshGrace, cfg.OIDCName = "http://"+ts.Listener.Addr().String(), 30*time.Second, "SSO"
	srv := &server{cfg: cfg, log: slog.New(slog.DiscardHandler), store: s, apiKey: e2eAPIKey, reg: prometheus.NewRegistry()}
	srv.metrics = newHTTPMetrics(srv.reg)
	ctx, cancel := context.WithCancel(context.Background())
	handler, _, err := srv.routes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = handler
	ts.Start()
	t.Cleanup(func() { ts.Close(); cancel() })
	return ts, srv
}

func get(t *testing.T, url string, headers ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// /metrics is not served to the world on the public port: only with METRICS_TOKEN as a
// bearer credential, else on the METRICS_ADDR listener.
func TestMetricsNotPublic(t *testing.T) {
	t.Run("no token: not on the public port", func(t *testing.T) {
		ts, srv := metricsServer(t, config{})
		if code, body := get(t, ts.URL+"/metrics"); code != http.StatusNotFound || strings.Contains(body, "workspaced_http_requests_total") {
			t.Fatalf("public /metrics: %d %.200s", code, body)
		}
		addr, stop, err := serveMetrics("127.0.0.1:0", srv.metricsHandler(), srv.log)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		if code, body := get(t, "http://"+addr+"/metrics"); code != 200 || !strings.Contains(body, "workspaced_http_requests_total") {
			t.Fatalf("metrics listener: %d %.200s", code, body)
		}
	})
	t.Run("METRICS_TOKEN: public port with the bearer token only", func(t *testing.T) {
		ts, _ := metricsServer(t, config{MetricsToken: "metrics-secret"})
		for _, auth := range []string{"", "Bearer wrong", "Bearer metrics-secret-and-more", "metrics-secret"} {
			if code, _ := get(t, ts.URL+"/metrics", "Authorization", auth); code != http.StatusNotFound {
				t.Fatalf("Authorization %q: %d, want 404", auth, code)
			}
		}
		if code, body := get(t, ts.URL+"/metrics", "Authorization", "Bearer metrics-secret"); code != 200 ||
			!strings.Contains(body, "workspaced_http_requests_total") {
			t.Fatalf("with the token: %d %.200s", code, body)
		}
	})
}

// The method label takes known methods and "other": a client cannot add series at will.
func TestMetricsMethodLabelBounded(t *testing.T) {
	ts, _ := metricsServer(t, config{MetricsToken: "metrics-secret"})
	for _, m := range []string{"XMETH123", "XMETH456", "get", "PATCH"} {
		req, _ := http.NewRequest(m, ts.URL+"/healthz", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	_, body := get(t, ts.URL+"/metrics", "Authorization", "Bearer metrics-secret")
	if strings.Contains(body, "XMETH") || strings.Contains(body, `method="get"`) {
		t.Fatalf("unbounded method label:\n%s", body)
	}
	if !strings.Contains(body, `method="other"`) || !strings.Contains(body, `method="PATCH"`) {
		t.Fatalf("want method=\"other\" and method=\"PATCH\" series:\n%s", body)
	}
}
