package main

import (
	"flag"
	"os"
	"strings"
	"time"

	"github.com/agencyos/workspaced/workspace"
)

// config is every setting, read from the environment with flags overriding
// (docs/decisions.md 9), as the table in settings.go declares them. Only this package reads
// either.
type config struct {
	DatabaseURL string
	DataDir     string
	ListenAddr  string
	PublicURL   string
	// PublicURLDerived reports whether PublicURL was derived from LISTEN_ADDR (checkServing)
	// because PUBLIC_URL was not set.
	PublicURLDerived  bool
	APIKey            string
	RedisURL          string
	OIDCIssuer        string
	OIDCClientID      string
	OIDCClientSecret  string
	OIDCName          string
	ServiceName       string // names the service on the sign-in page, the console and emails
	SMTPURL           string // "": invitation and reset links are not emailed
	TrustedProxies    string
	RateLimitFailOpen bool
	RateLimitsOff     bool // zero value: limits on
	PerCredential     uint64
	PerWorkspace      uint64
	RefreshGrace      time.Duration
	EnrichCost        int
	FirmographicsURL  string
	FirmographicsKey  string
	LogLevel          string
	// MCPAllowedOrigins are browser origins allowed on /mcp besides loopback ones while
	// PUBLIC_URL is loopback (comma-separated).
	MCPAllowedOrigins string
	MetricsAddr       string // "off": no metrics listener
	MetricsAddrSet    bool   // METRICS_ADDR or -metrics-addr given: a taken port fails the start
	MetricsToken      string // "": /metrics is not on the public port
	// Webhooks (docs/webhooks.md): how long the delivery log and the outbox are kept, and
	// the divisor of the retry schedule (drills).
	WebhookRetentionDays int
	WebhookRetrySpeedup  int

	// MCP confirmations (docs/mcp.md): the key sealing their requestState (base64 of
	// mcp.StateKeySize bytes; "": generated once and kept in the database, so replicas
	// share it). The conformance suite's fixtures, for tests only.
	MCPStateKey            string
	MCPConformanceFixtures bool

	// Serving (docs/operations.md): TLS here, deadlines, shutdown.
	TLSCertFile      string
	TLSKeyFile       string
	ACMEDomains      []string
	ACMEDirectoryURL string
	ACMEEmail        string
	ReadTimeout      time.Duration
	WriteTimeout     time.Duration
	ShutdownGrace    time.Duration
	ShutdownDrain    time.Duration
	DB               dbConfig
	Shed             shedConfig
}

// shedConfig bounds the requests in flight of each class, and each workspace's and
// credential's share of them, so the excess is refused instead of queueing for a database
// connection (docs/operations.md, "Overload and a frozen database" and "Fair shares of
// capacity"); a 0 bound derives from DB_MAX_CONNS (workspace.ClassShares).
type shedConfig struct {
	workspace.CapacityConfig
	Token           int           // the token endpoint's requests in flight
	SearchTimeout   time.Duration // each statement of a search
	BreakerTimeouts int           // database timeouts in a row that open the circuit breaker; 0: never
}

// dbConfig bounds every wait on PostgreSQL, so a database that stops answering turns into
// prompt 503s instead of requests piling up.
type dbConfig struct {
	ConnectTimeout   time.Duration // one connection attempt, handshake included
	AcquireTimeout   time.Duration // waiting for a free pooled connection
	StatementTimeout time.Duration // each statement, rows included
	Wait             time.Duration // at startup, keep retrying the first connection this long
	MaxConns         int           // connections the pool may open
}

// parseConfig reads every setting (settings.go) from the environment, then the flags of
// fs from args. A value that does not parse, from either, is an error naming it.
func parseConfig(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	if err := bindSettings(fs, &c); err != nil {
		return c, err
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.MetricsAddrSet = os.Getenv("METRICS_ADDR") != ""
	fs.Visit(func(f *flag.Flag) { c.MetricsAddrSet = c.MetricsAddrSet || f.Name == "metrics-addr" })
	if err := c.checkServing(); err != nil {
		return c, err
	}
	return c, nil
}

// splitList splits a comma-separated setting, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
