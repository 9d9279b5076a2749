package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agencyos/workspaced/store"
)

// config is every setting, read from the environment with flags overriding
// (decisions.md 9). Only this package reads either.
type config struct {
	DatabaseURL       string
	DataDir           string
	ListenAddr        string
	PublicURL         string
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
	MetricsToken      string // "": /metrics is not on the public port

	// Serving (docs/operations.md): TLS here, deadlines, shutdown.
	TLSCertFile      string
	TLSKeyFile       string
	ACMEDomains      []string
	ACMEDirectoryURL string
	ACMEEmail        string
	ReadTimeout      time.Duration
	WriteTimeout     time.Duration
	ShutdownGrace    time.Duration
	DB               dbConfig
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

func env(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

// parseConfig reads the environment, then the flags of fs from args.
func parseConfig(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	fs.StringVar(&c.DatabaseURL, "database-url", env("DATABASE_URL", ""), "PostgreSQL URL; empty starts a private PostgreSQL under -data-dir")
	maxConns, err := strconv.Atoi(env("DB_MAX_CONNS", strconv.Itoa(store.DefaultMaxConns)))
	if err != nil || maxConns < 1 {
		return c, fmt.Errorf("DB_MAX_CONNS: want a positive integer, got %q", env("DB_MAX_CONNS", ""))
	}
	fs.IntVar(&c.DB.MaxConns, "db-max-conns", maxConns, "connections the PostgreSQL pool may open")
	fs.StringVar(&c.DataDir, "data-dir", env("DATA_DIR", ".data"), "folder of the private PostgreSQL (zero-config start)")
	fs.StringVar(&c.ListenAddr, "listen", env("LISTEN_ADDR", "127.0.0.1:8080"), "address to listen on")
	fs.StringVar(&c.PublicURL, "public-url", env("PUBLIC_URL", ""), "the origin clients reach, also the OAuth issuer (default http://<listen>)")
	fs.StringVar(&c.APIKey, "apikey", env("APIKEY", ""), "public routing key required on REST, token and revoke requests (default: generated once and kept in the database)")
	fs.StringVar(&c.RedisURL, "redis-url", env("REDIS_URL", ""), "Redis URL for rate limits shared across processes; empty keeps them in memory")
	fs.StringVar(&c.OIDCIssuer, "oidc-issuer", env("OIDC_ISSUER", ""), "upstream OpenID Connect issuer for 'Sign in with ...'")
	fs.StringVar(&c.OIDCClientID, "oidc-client-id", env("OIDC_CLIENT_ID", ""), "client id at the upstream issuer")
	fs.StringVar(&c.OIDCClientSecret, "oidc-client-secret", env("OIDC_CLIENT_SECRET", ""), "client secret at the upstream issuer")
	fs.StringVar(&c.OIDCName, "oidc-name", env("OIDC_NAME", "SSO"), "the upstream's name on the sign-in button")
	fs.StringVar(&c.ServiceName, "service-name", env("SERVICE_NAME", "workspaced"), "the service's name on the sign-in page, the console and emails")
	fs.StringVar(&c.SMTPURL, "smtp-url", env("SMTP_URL", ""), "smtp://user:password@host:587 (STARTTLS) or smtps://...:465, ?from=sender: emails invitation and password-reset links")
	fs.StringVar(&c.TrustedProxies, "trusted-proxies", env("TRUSTED_PROXIES", ""), "comma-separated proxy ranges whose X-Forwarded-For is believed")
	failOpen, _ := strconv.ParseBool(env("RATE_LIMIT_FAIL_OPEN", "false"))
	fs.BoolVar(&c.RateLimitFailOpen, "rate-limit-fail-open", failOpen, "when Redis is unreachable, let requests through (logged and counted) instead of refusing them")
	limitsOn, _ := strconv.ParseBool(env("RATE_LIMITS", "true"))
	fs.BoolFunc("rate-limits", "enforce rate limits (false only for load-test baselines; default $RATE_LIMITS or true)",
		func(v string) error { on, err := strconv.ParseBool(v); c.RateLimitsOff = !on; return err })
	c.RateLimitsOff = !limitsOn
	perCred, err := strconv.ParseUint(env("RATE_LIMIT_PER_CREDENTIAL", "60"), 10, 64)
	if err != nil {
		return c, fmt.Errorf("RATE_LIMIT_PER_CREDENTIAL: %w", err)
	}
	perWS, err := strconv.ParseUint(env("RATE_LIMIT_PER_WORKSPACE", "600"), 10, 64)
	if err != nil {
		return c, fmt.Errorf("RATE_LIMIT_PER_WORKSPACE: %w", err)
	}
	fs.Uint64Var(&c.PerCredential, "rate-limit-per-credential", perCred, "requests a minute per access token or agent key")
	fs.Uint64Var(&c.PerWorkspace, "rate-limit-per-workspace", perWS, "requests a minute per workspace")
	grace, err := time.ParseDuration(env("REFRESH_GRACE", "30s"))
	if err != nil {
		return c, fmt.Errorf("REFRESH_GRACE: %w", err)
	}
	fs.DurationVar(&c.RefreshGrace, "refresh-grace", grace, "refresh token grace window (at most 60s)")
	cost, err := strconv.Atoi(env("ENRICH_COST", "1"))
	if err != nil {
		return c, fmt.Errorf("ENRICH_COST: %w", err)
	}
	fs.IntVar(&c.EnrichCost, "enrich-cost", cost, "credits a fresh enrichment lookup costs")
	fs.StringVar(&c.FirmographicsURL, "firmographics-url", env("FIRMOGRAPHICS_URL", ""), "commercial firmographics API base URL; empty uses the built-in web site reader")
	fs.StringVar(&c.FirmographicsKey, "firmographics-key", env("FIRMOGRAPHICS_KEY", ""), "API key of the firmographics API")
	fs.StringVar(&c.LogLevel, "log-level", env("LOG_LEVEL", "info"), "debug, info, warn or error")
	fs.StringVar(&c.MCPAllowedOrigins, "mcp-allowed-origins", env("MCP_ALLOWED_ORIGINS", ""),
		"comma-separated browser origins allowed on /mcp besides loopback ones while PUBLIC_URL is loopback")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", env("METRICS_ADDR", "127.0.0.1:9090"), "address of the /metrics listener; off for none")
	fs.StringVar(&c.MetricsToken, "metrics-token", env("METRICS_TOKEN", ""), "serve /metrics on the public port too, to requests with this bearer token")
	fs.StringVar(&c.TLSCertFile, "tls-cert-file", env("TLS_CERT_FILE", ""), "PEM certificate chain: serve HTTPS with it (re-read on change or SIGHUP)")
	fs.StringVar(&c.TLSKeyFile, "tls-key-file", env("TLS_KEY_FILE", ""), "PEM private key of -tls-cert-file")
	fs.Func("acme-domains", "comma-separated domains to obtain certificates for with ACME (default $ACME_DOMAINS)", func(v string) error {
		c.ACMEDomains = splitList(v)
		return nil
	})
	c.ACMEDomains = splitList(env("ACME_DOMAINS", ""))
	fs.StringVar(&c.ACMEDirectoryURL, "acme-directory-url", env("ACME_DIRECTORY_URL", "https://acme-v02.api.letsencrypt.org/directory"), "ACME directory of the certificate authority")
	fs.StringVar(&c.ACMEEmail, "acme-email", env("ACME_EMAIL", ""), "contact address given to the ACME certificate authority")
	for _, d := range []struct {
		p        *time.Duration
		env, def string
		flag     string
		usage    string
	}{
		{&c.ReadTimeout, "HTTP_READ_TIMEOUT", "30s", "http-read-timeout", "longest time to read a request, body included"},
		{&c.WriteTimeout, "HTTP_WRITE_TIMEOUT", "60s", "http-write-timeout", "longest time to answer a request"},
		{&c.ShutdownGrace, "SHUTDOWN_GRACE", "15s", "shutdown-grace", "on SIGTERM, how long requests in flight may finish before their connections are closed"},
		{&c.DB.ConnectTimeout, "DB_CONNECT_TIMEOUT", "5s", "db-connect-timeout", "longest time one PostgreSQL connection attempt may take"},
		{&c.DB.AcquireTimeout, "DB_ACQUIRE_TIMEOUT", "3s", "db-acquire-timeout", "longest time a request waits for a free database connection"},
		{&c.DB.StatementTimeout, "DB_STATEMENT_TIMEOUT", "5s", "db-statement-timeout", "longest time one database statement may take before the request answers 503"},
		{&c.DB.Wait, "DB_WAIT", "0s", "db-wait", "at startup, keep retrying an unreachable database this long (0: fail at once)"},
	} {
		v, err := time.ParseDuration(env(d.env, d.def))
		if err != nil || v < 0 {
			return c, fmt.Errorf("%s: want a duration such as %s", d.env, d.def)
		}
		fs.DurationVar(d.p, d.flag, v, d.usage+"; env "+d.env) // flag appends "(default <v>)"
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.DB.MaxConns < 1 {
		return c, fmt.Errorf("db max conns %d: must be at least 1", c.DB.MaxConns)
	}
	if c.RefreshGrace < 0 || c.RefreshGrace > time.Minute {
		return c, fmt.Errorf("refresh grace %s: must be between 0 and 60s", c.RefreshGrace)
	}
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
