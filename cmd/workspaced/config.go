package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"
)

// config is every setting, read from the environment with flags overriding
// (decisions.md 9). Only this package reads either.
type config struct {
	DatabaseURL       string
	DBMaxConns        int
	DataDir           string
	ListenAddr        string
	PublicURL         string
	APIKey            string
	RedisURL          string
	OIDCIssuer        string
	OIDCClientID      string
	OIDCClientSecret  string
	OIDCName          string
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
	maxConns, err := strconv.Atoi(env("DB_MAX_CONNS", "16"))
	if err != nil || maxConns < 1 {
		return c, fmt.Errorf("DB_MAX_CONNS: want a positive integer, got %q", env("DB_MAX_CONNS", ""))
	}
	fs.IntVar(&c.DBMaxConns, "db-max-conns", maxConns, "connections the PostgreSQL pool may open")
	fs.StringVar(&c.DataDir, "data-dir", env("DATA_DIR", ".data"), "folder of the private PostgreSQL (zero-config start)")
	fs.StringVar(&c.ListenAddr, "listen", env("LISTEN_ADDR", "127.0.0.1:8080"), "address to listen on")
	fs.StringVar(&c.PublicURL, "public-url", env("PUBLIC_URL", ""), "the origin clients reach, also the OAuth issuer (default http://<listen>)")
	fs.StringVar(&c.APIKey, "apikey", env("APIKEY", ""), "public routing key required on REST, token and revoke requests (default: generated once and kept in the database)")
	fs.StringVar(&c.RedisURL, "redis-url", env("REDIS_URL", ""), "Redis URL for rate limits shared across processes; empty keeps them in memory")
	fs.StringVar(&c.OIDCIssuer, "oidc-issuer", env("OIDC_ISSUER", ""), "upstream OpenID Connect issuer for 'Sign in with ...'")
	fs.StringVar(&c.OIDCClientID, "oidc-client-id", env("OIDC_CLIENT_ID", ""), "client id at the upstream issuer")
	fs.StringVar(&c.OIDCClientSecret, "oidc-client-secret", env("OIDC_CLIENT_SECRET", ""), "client secret at the upstream issuer")
	fs.StringVar(&c.OIDCName, "oidc-name", env("OIDC_NAME", "SSO"), "the upstream's name on the sign-in button")
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
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.DBMaxConns < 1 {
		return c, fmt.Errorf("db max conns %d: must be at least 1", c.DBMaxConns)
	}
	if c.RefreshGrace < 0 || c.RefreshGrace > time.Minute {
		return c, fmt.Errorf("refresh grace %s: must be between 0 and 60s", c.RefreshGrace)
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.ListenAddr
	}
	for len(c.PublicURL) > 0 && c.PublicURL[len(c.PublicURL)-1] == '/' {
		c.PublicURL = c.PublicURL[:len(c.PublicURL)-1] // the issuer has no trailing slash
	}
	return c, nil
}
