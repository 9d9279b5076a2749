package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agencyos/workspaced/workspace"
)

var updateREADME = flag.Bool("update", false, "rewrite the README's settings table from settings.go")

const (
	readmeTableStart = "<!-- settings table: generated from cmd/workspaced/settings.go; docs/architecture.md says how to refresh it -->\n"
	readmeTableEnd   = "<!-- end of settings table -->\n"
)

// TestREADMESettingsTable: the README's settings table is made from the same table as
// serve -h, so neither can drift from the code.
func TestREADMESettingsTable(t *testing.T) {
	const path = "../../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(readme, []byte(readmeTableStart))
	end := bytes.Index(readme, []byte(readmeTableEnd))
	if start < 0 || end < start {
		t.Fatalf("README.md has no settings table between %q and %q", strings.TrimSpace(readmeTableStart), strings.TrimSpace(readmeTableEnd))
	}
	start += len(readmeTableStart)
	want := readmeSettings()
	if *updateREADME {
		out := append(append(append([]byte{}, readme[:start]...), want...), readme[end:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, string(readme[start:end])); diff != "" {
		t.Errorf("the README's settings table differs from cmd/workspaced/settings.go (-settings.go +README); "+
			"refresh it with go test ./cmd/workspaced -run TestREADMESettingsTable -update:\n%s", diff)
	}
}

// clearSettings unsets every setting's variable for the test, so the machine's
// environment does not leak in.
func clearSettings(t *testing.T) {
	t.Helper()
	for _, s := range settings {
		t.Setenv(s.env, "")
	}
}

// TestConfigDefaults: with nothing set, every setting has the default the README states.
func TestConfigDefaults(t *testing.T) {
	clearSettings(t)
	c, err := parseConfig(flag.NewFlagSet("serve", flag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config{DataDir: ".data", ListenAddr: "127.0.0.1:8080", PublicURL: "http://127.0.0.1:8080", PublicURLDerived: true, OIDCName: "SSO", ServiceName: "workspaced",
		PerCredential: 60, PerWorkspace: 600, RefreshGrace: 30 * time.Second, EnrichCost: 1, LogLevel: "info",
		MetricsAddr: "127.0.0.1:9090", WebhookRetentionDays: 30, WebhookRetrySpeedup: 1, ACMEDirectoryURL: "https://acme-v02.api.letsencrypt.org/directory",
		ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second, ShutdownGrace: 15 * time.Second, ShutdownDrain: 5 * time.Second,
		DB: dbConfig{ConnectTimeout: 5 * time.Second, AcquireTimeout: 3 * time.Second, StatementTimeout: 5 * time.Second, MaxConns: 16},
		Shed: shedConfig{BreakerTimeouts: 5, SearchTimeout: 2 * time.Second,
			CapacityConfig: workspace.CapacityConfig{WorkspaceShare: 50, CredentialShare: 25, ShareWait: time.Second}}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

// TestConfigReadsEnvironmentAndFlags: each kind of value is read from the environment,
// and a flag overrides it.
func TestConfigReadsEnvironmentAndFlags(t *testing.T) {
	clearSettings(t)
	t.Setenv("RATE_LIMITS", "false")
	t.Setenv("RATE_LIMIT_FAIL_OPEN", "true")
	t.Setenv("ENRICH_COST", "3")
	t.Setenv("REFRESH_GRACE", "45s")
	t.Setenv("ACME_DOMAINS", "a.example, b.example")
	t.Setenv("TLS_CERT_FILE", "") // ACME alone
	t.Setenv("FIRMOGRAPHICS_URL", "https://firmo.example/v1")
	c, err := parseConfig(flag.NewFlagSet("serve", flag.ContinueOnError), []string{"-enrich-cost=4", "-rate-limits", "-db-wait=2s"})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.RateLimitsOff, c.RateLimitFailOpen, c.EnrichCost, c.RefreshGrace, c.ACMEDomains, c.FirmographicsURL, c.DB.Wait}
	want := []any{false, true, 4, 45 * time.Second, []string{"a.example", "b.example"}, "https://firmo.example/v1", 2 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestConfigRefusesUnparsableValues: a value that does not parse stops the start with a
// message naming the setting, whether it comes from the environment or a flag. Before
// the settings table, each of these started anyway: RATE_LIMITS=yes turned limits off,
// a negative duration flag or ENRICH_COST was taken (the cost silently became 1), an
// unknown log level became info, and a URL that is not one failed only when first used.
func TestConfigRefusesUnparsableValues(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env, val  string
		args      []string
		wantNamed string
	}{
		{name: "bool from the environment", env: "RATE_LIMITS", val: "yes", wantNamed: "RATE_LIMITS"},
		{name: "bool from a flag", args: []string{"-rate-limit-fail-open=on"}, wantNamed: "-rate-limit-fail-open"},
		{name: "duration flag below zero", args: []string{"-http-read-timeout=-1s"}, wantNamed: "-http-read-timeout"},
		{name: "duration without a unit", env: "SHUTDOWN_GRACE", val: "15", wantNamed: "SHUTDOWN_GRACE"},
		{name: "duration over its maximum", args: []string{"-refresh-grace=2m"}, wantNamed: "-refresh-grace"},
		{name: "int below its minimum", env: "ENRICH_COST", val: "-3", wantNamed: "ENRICH_COST"},
		{name: "int that is not a number", env: "DB_MAX_CONNS", val: "lots", wantNamed: "DB_MAX_CONNS"},
		{name: "count below zero", env: "RATE_LIMIT_PER_CREDENTIAL", val: "-1", wantNamed: "RATE_LIMIT_PER_CREDENTIAL"},
		{name: "URL without a scheme", env: "OIDC_ISSUER", val: "accounts.example.com", wantNamed: "OIDC_ISSUER"},
		{name: "URL of another scheme", args: []string{"-firmographics-url=ftp://firmo.example"}, wantNamed: "-firmographics-url"},
		{name: "URL that does not parse", env: "ACME_DIRECTORY_URL", val: "https://[::1", wantNamed: "ACME_DIRECTORY_URL"},
		{name: "log level", env: "LOG_LEVEL", val: "verbose", wantNamed: "LOG_LEVEL"},
		{name: "MCP state key too short", env: "MCP_STATE_KEY", val: "c2hvcnQ=", wantNamed: "MCP_STATE_KEY"},
		{name: "MCP state key not base64", args: []string{"-mcp-state-key=not*base64"}, wantNamed: "-mcp-state-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearSettings(t)
			if tc.env != "" {
				t.Setenv(tc.env, tc.val)
			}
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(&strings.Builder{})
			_, err := parseConfig(fs, tc.args)
			if err == nil {
				t.Fatal("the configuration was accepted")
			}
			if !strings.Contains(err.Error(), tc.wantNamed) {
				t.Errorf("error %q does not name %s", err, tc.wantNamed)
			}
		})
	}
}

// TestServeHelpListsEverySetting: serve -h is made from the table: every setting's flag,
// variable and help.
func TestServeHelpListsEverySetting(t *testing.T) {
	clearSettings(t)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var out strings.Builder
	fs.SetOutput(&out)
	if _, err := parseConfig(fs, []string{"-h"}); err != flag.ErrHelp {
		t.Fatalf("-h: %v, want flag.ErrHelp", err)
	}
	help := out.String()
	for _, s := range settings {
		if !strings.Contains(help, "\n  -"+s.flag+" ") && !strings.Contains(help, "\n  -"+s.flag+"\n") {
			t.Errorf("serve -h does not list -%s", s.flag)
		}
		if !strings.Contains(help, s.help+" (env "+s.env) {
			t.Errorf("serve -h does not give %s's help and variable", s.env)
		}
	}
}
