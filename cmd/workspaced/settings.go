package main

import (
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/overload"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// A setting is one configuration value, declared once: its environment variable, its
// flag, its default as the environment spells it, how its text is read (the flag.Value
// its field is bound through, which refuses what it cannot read), and the help that
// `workspaced serve -h` and the README's settings table print (readmeSettings).
type setting struct {
	env, flag string
	def       string // the default, read like the environment's value; "" is empty
	defDoc    string // the README's default column when the default is derived, or worth words
	help      string // one line: serve -h, and the README's meaning unless doc says more
	doc       string // the README's meaning, when it says more than help
	bind      func(c *config) flag.Value
}

// settings lists every setting, in the README's order.
var settings = []setting{
	{env: "DATABASE_URL", flag: "database-url", defDoc: "empty: private PostgreSQL in `DATA_DIR`",
		help: "PostgreSQL URL; empty starts a private PostgreSQL under -data-dir",
		doc:  "PostgreSQL to use. Its role must own the schema and have `BYPASSRLS` (or be superuser): it resolves credentials and runs the admin CLI; requests themselves drop to the `workspaced_app` role, which has no `BYPASSRLS`",
		bind: func(c *config) flag.Value { return text(&c.DatabaseURL) }},
	{env: "DB_MAX_CONNS", flag: "db-max-conns", def: strconv.Itoa(store.DefaultMaxConns),
		help: "connections the PostgreSQL pool may open",
		doc:  "connections the PostgreSQL pool may open (each request holds one for its statement; keep the sum over processes below the server's `max_connections`)",
		bind: func(c *config) flag.Value { return &intValue{p: &c.DB.MaxConns, min: 1} }},
	{env: "DATA_DIR", flag: "data-dir", def: ".data", help: "folder of the private PostgreSQL (zero-config start)",
		bind: func(c *config) flag.Value { return text(&c.DataDir) }},
	{env: "LISTEN_ADDR", flag: "listen", def: "127.0.0.1:8080", help: "address to listen on",
		bind: func(c *config) flag.Value { return text(&c.ListenAddr) }},
	{env: "PUBLIC_URL", flag: "public-url",
		defDoc: "derived from `LISTEN_ADDR`: `http://<host:port>`, `https://` when this process serves TLS, `localhost` for a listen address with no host (`:8080`), the first ACME domain with ACME",
		help:   "the origin clients reach, also the OAuth issuer; derived from -listen when empty",
		doc:    "the origin clients reach; also the OAuth issuer (no trailing slash). The API is HTTPS only: a `PUBLIC_URL` that is not loopback must be `https`, or the start is refused with a one-line reason. With `https`, every response carries `Strict-Transport-Security` and the login and consent cookies are `Secure` and `__Host-` prefixed",
		bind:   func(c *config) flag.Value { return text(&c.PublicURL) }}, // checked by checkServing
	{env: "TLS_CERT_FILE", flag: "tls-cert-file", help: "PEM certificate chain: serve HTTPS with it (re-read on change or SIGHUP)",
		doc:  "serve HTTPS (and HTTP/2) here with this PEM certificate chain and `TLS_KEY_FILE`'s key; replaced files are picked up within a second, or at once on `SIGHUP`, without a restart",
		bind: func(c *config) flag.Value { return text(&c.TLSCertFile) }},
	{env: "TLS_KEY_FILE", flag: "tls-key-file", help: "PEM private key of -tls-cert-file",
		bind: func(c *config) flag.Value { return text(&c.TLSKeyFile) }},
	{env: "ACME_DOMAINS", flag: "acme-domains", help: "comma-separated domains to obtain certificates for with ACME",
		doc:  "comma-separated domains to obtain and renew certificates for automatically (ACME, TLS-ALPN-01 on the listen port, which the authority must reach as port 443); certificates are cached in `DATA_DIR/acme`",
		bind: func(c *config) flag.Value { return (*listValue)(&c.ACMEDomains) }},
	{env: "ACME_DIRECTORY_URL", flag: "acme-directory-url", def: "https://acme-v02.api.letsencrypt.org/directory",
		defDoc: "Let's Encrypt production", help: "ACME directory of the certificate authority",
		bind: func(c *config) flag.Value { return webURL(&c.ACMEDirectoryURL) }},
	{env: "ACME_EMAIL", flag: "acme-email", help: "contact address given to the ACME certificate authority",
		bind: func(c *config) flag.Value { return text(&c.ACMEEmail) }},
	{env: "HTTP_READ_TIMEOUT", flag: "http-read-timeout", def: "30s", help: "longest time to read a request, body included",
		doc:  "longest time to read a whole request (body included); slow clients are cut off",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.ReadTimeout} }},
	{env: "HTTP_WRITE_TIMEOUT", flag: "http-write-timeout", def: "60s", help: "longest time to answer a request",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.WriteTimeout} }},
	{env: "SHUTDOWN_DRAIN", flag: "shutdown-drain", def: "5s",
		help: "on SIGTERM, how long to keep serving with /healthz and /readyz at 503 and Connection: close, before the grace period",
		doc:  "on SIGTERM or Ctrl-C, how long to keep serving first, with `/healthz` and `/readyz` answering 503 and every response saying `Connection: close`, so a balancer and kept-alive clients move away before anything closes (docs/operations.md, \"Drain on restart\"); `0s` skips it",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.ShutdownDrain} }},
	{env: "SHUTDOWN_GRACE", flag: "shutdown-grace", def: "15s",
		help: "after the drain, how long requests in flight (and the emails they asked for) may finish before their connections are closed",
		doc:  "after the drain, how long requests in flight, and then the emails they asked for, may finish; connections still open then are closed, emails still on their way are dropped, and the process exits 0",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.ShutdownGrace} }},
	{env: "DB_CONNECT_TIMEOUT", flag: "db-connect-timeout", def: "5s", help: "longest time one PostgreSQL connection attempt may take",
		doc:  "longest time one PostgreSQL connection attempt may take (TCP and handshake)",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.DB.ConnectTimeout} }},
	{env: "DB_ACQUIRE_TIMEOUT", flag: "db-acquire-timeout", def: "3s", help: "longest time a request waits for a free database connection",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.DB.AcquireTimeout} }},
	{env: "DB_STATEMENT_TIMEOUT", flag: "db-statement-timeout", def: "5s",
		help: "longest time one database statement may take before the request answers 503",
		doc:  "longest time one database statement may take; past it the request answers `503 internal_error` with `Retry-After`",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.DB.StatementTimeout} }},
	{env: "MAX_IN_FLIGHT_READS", flag: "max-in-flight-reads", def: "0", defDoc: "`0`: `DB_MAX_CONNS`",
		help: "reads (REST GETs, MCP get and list tools) in flight; beyond, the next waits SHARE_WAIT for a place, then 503 overloaded (0: DB_MAX_CONNS)",
		doc:  "reads (REST `GET`s, MCP get and list tools) in flight; beyond it the next waits up to `SHARE_WAIT` for a place, the quietest workspace served first, then is answered `503 overloaded` with `Retry-After: 1`, instead of queueing for a database connection (docs/operations.md, \"Overload and a frozen database\")",
		bind: func(c *config) flag.Value { return &intValue{p: &c.Shed.Reads} }},
	{env: "MAX_IN_FLIGHT_SEARCHES", flag: "max-in-flight-searches", def: "0", defDoc: "`0`: a quarter of `DB_MAX_CONNS`",
		help: "searches (/v1/search, lists with q, their MCP tools) in flight, bounded apart from reads (0: a quarter of DB_MAX_CONNS)",
		doc:  "searches (`/v1/search`, lists with `q`, their MCP tools) in flight, bounded apart from reads since each costs the database many reads; beyond it as for reads (docs/operations.md, \"Fair shares of capacity\")",
		bind: func(c *config) flag.Value { return &intValue{p: &c.Shed.Searches} }},
	{env: "MAX_IN_FLIGHT_WRITES", flag: "max-in-flight-writes", def: "0", defDoc: "`0`: `DB_MAX_CONNS`",
		help: "writes (REST and MCP) in flight; beyond it as for reads (0: DB_MAX_CONNS)",
		bind: func(c *config) flag.Value { return &intValue{p: &c.Shed.Writes} }},
	{env: "WORKSPACE_SHARE", flag: "workspace-share", def: strconv.Itoa(workspace.DefaultWorkspaceShare),
		help: "percent of each class's bound (reads, searches, writes) one workspace may hold; beyond, its next waits on its own, then 429",
		doc:  "percent of each bound (`MAX_IN_FLIGHT_READS`, `_SEARCHES`, `_WRITES`; at least one place) one workspace's operations may hold at once, whoever else waits: beyond it the next waits up to `SHARE_WAIT` behind the workspace's own, then is answered `429 rate_limited` with `Retry-After: 1` (docs/operations.md, \"Fair shares of capacity\")",
		bind: func(c *config) flag.Value { return &intValue{p: &c.Shed.WorkspaceShare, min: 1, max: 100} }},
	{env: "CREDENTIAL_SHARE", flag: "credential-share", def: strconv.Itoa(workspace.DefaultCredentialShare),
		help: "percent of each class's bound one credential (token, agent key) may hold; beyond, as WORKSPACE_SHARE",
		doc:  "percent of each bound one credential (access token, agent key) may hold at once, so one member's flood leaves the workspace's others room; beyond it as `WORKSPACE_SHARE`",
		bind: func(c *config) flag.Value { return &intValue{p: &c.Shed.CredentialShare, min: 1, max: 100} }},
	{env: "SHARE_WAIT", flag: "share-wait", def: workspace.DefaultShareWait.String(),
		help: "longest an operation waits for a place in its class before 429 (its share taken) or 503 overloaded",
		doc:  "longest an operation waits for a place: behind its own workspace's or credential's when its share is taken (then `429 rate_limited`), or for the class to have room (then `503 overloaded`); a workspace or credential has at most its share waiting, and the next is refused at once",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.Shed.ShareWait, max: time.Minute} }},
	{env: "SEARCH_STATEMENT_TIMEOUT", flag: "search-statement-timeout", def: "2s",
		help: "longest time one statement of a search may take (below DB_STATEMENT_TIMEOUT); past it the search answers 503",
		doc:  "longest time one statement of a search (`/v1/search`, a list with `q`, their MCP tools) may take, at the server, below `DB_STATEMENT_TIMEOUT`; past it the search answers `503 internal_error` with `Retry-After`, and the breaker does not count it",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.Shed.SearchTimeout} }},
	{env: "MAX_IN_FLIGHT_TOKEN", flag: "max-in-flight-token", def: "0", defDoc: "`0`: `DB_MAX_CONNS`",
		help: "token endpoint requests in flight before the next is refused with 503 temporarily_unavailable (0: DB_MAX_CONNS)",
		bind: func(c *config) flag.Value { return &intValue{p: &c.Shed.Token} }},
	{env: "DB_BREAKER_TIMEOUTS", flag: "db-breaker-timeouts", def: "5",
		help: "database timeouts in a row after which requests are refused at once until the database answers (0: never)",
		doc:  "database timeouts in a row after which requests that need the database are answered 503 at once, while a probe asks the database every " + overload.DefaultProbeEvery.String() + "; the first answer closes it. `0`: never",
		bind: func(c *config) flag.Value { return &intValue{p: &c.Shed.BreakerTimeouts} }},
	{env: "DB_WAIT", flag: "db-wait", def: "0s", help: "at startup, keep retrying an unreachable database this long (0: fail at once)",
		doc:  "at startup, keep retrying an unreachable database this long (each attempt logged); `0` fails at once with a message naming the connect timeout",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.DB.Wait} }},
	{env: "APIKEY", flag: "apikey", defDoc: "generated once, kept in the database",
		help: "public routing key required on REST, token and revoke requests; generated once and kept in the database when empty",
		doc:  "the public routing key every REST, token and revoke request carries (`apikey` header, or `?apikey=`)",
		bind: func(c *config) flag.Value { return text(&c.APIKey) }},
	{env: "REDIS_URL", flag: "redis-url", defDoc: "empty: limits in memory",
		help: "Redis URL for rate limits shared across processes; empty keeps them in memory",
		doc:  "Redis for rate limits shared by several processes: `redis://[user:password@]host:port/db` or `rediss://` for TLS; waits 1 s to connect and 500 ms for a reply unless `?dial_timeout=` / `?write_timeout=` say otherwise; it also takes `?db=`, `?client_name=` and, with `rediss://`, `?skip_verify=true`; any other parameter refuses to start",
		bind: func(c *config) flag.Value { return text(&c.RedisURL) }}, // checked by ratelimit.New
	{env: "RATE_LIMIT_FAIL_OPEN", flag: "rate-limit-fail-open", def: "false",
		help: "when Redis is unreachable, let requests through (logged and counted) instead of refusing them",
		doc:  "when Redis is unreachable: `false` refuses requests (503 `internal_error`, `Retry-After: 5`), `true` lets them through; either way it is logged and counted in `/metrics`",
		bind: func(c *config) flag.Value { return &boolValue{p: &c.RateLimitFailOpen} }},
	{env: "RATE_LIMIT_PER_CREDENTIAL", flag: "rate-limit-per-credential", def: "60", help: "requests a minute per access token or agent key",
		bind: func(c *config) flag.Value { return (*countValue)(&c.PerCredential) }},
	{env: "RATE_LIMIT_PER_WORKSPACE", flag: "rate-limit-per-workspace", def: "600", help: "requests a minute per workspace",
		bind: func(c *config) flag.Value { return (*countValue)(&c.PerWorkspace) }},
	{env: "RATE_LIMITS", flag: "rate-limits", def: "true", help: "enforce rate limits (false only for load-test baselines)",
		doc:  "`false` turns limits off (only for load-test baselines)",
		bind: func(c *config) flag.Value { return &boolValue{p: &c.RateLimitsOff, negate: true} }},
	{env: "TRUSTED_PROXIES", flag: "trusted-proxies", help: "comma-separated proxy ranges whose X-Forwarded-For is believed",
		doc:  "comma-separated proxy ranges whose `X-Forwarded-For` is believed for per-IP limits",
		bind: func(c *config) flag.Value { return text(&c.TrustedProxies) }}, // checked by ratelimit.ParsePrefixes
	{env: "OIDC_ISSUER", flag: "oidc-issuer", help: "upstream OpenID Connect issuer for 'Sign in with ...'",
		doc:  "upstream OpenID Connect provider for \"Sign in with …\"",
		bind: func(c *config) flag.Value { return webURL(&c.OIDCIssuer) }},
	{env: "OIDC_CLIENT_ID", flag: "oidc-client-id", help: "client id at the upstream issuer",
		bind: func(c *config) flag.Value { return text(&c.OIDCClientID) }},
	{env: "OIDC_CLIENT_SECRET", flag: "oidc-client-secret", help: "client secret at the upstream issuer",
		bind: func(c *config) flag.Value { return text(&c.OIDCClientSecret) }},
	{env: "OIDC_NAME", flag: "oidc-name", def: "SSO", help: "the upstream's name on the sign-in button",
		bind: func(c *config) flag.Value { return text(&c.OIDCName) }},
	{env: "SERVICE_NAME", flag: "service-name", def: "workspaced",
		help: "the service's name on the sign-in page, the console and emails",
		doc:  "the service's name on the sign-in page, the console (`/console`) and emails",
		bind: func(c *config) flag.Value { return text(&c.ServiceName) }},
	{env: "SMTP_URL", flag: "smtp-url",
		help: "smtp://user:password@host:587 (STARTTLS) or smtps://...:465, with ?from=sender: emails invitation and password-reset links",
		doc:  "`smtp://user:password@host:587` (STARTTLS, required unless the host is loopback) or `smtps://…:465`, with `?from=sender`: emails invitation and password-reset links ([docs/console.md](docs/console.md)); empty shows them to the admin only",
		bind: func(c *config) flag.Value { return text(&c.SMTPURL) }},
	{env: "REFRESH_GRACE", flag: "refresh-grace", def: "30s", help: "refresh token grace window (at most 60s)",
		bind: func(c *config) flag.Value { return &durationValue{p: &c.RefreshGrace, max: time.Minute} }},
	{env: "ENRICH_COST", flag: "enrich-cost", def: "1", help: "credits a fresh enrichment lookup costs",
		bind: func(c *config) flag.Value { return &intValue{p: &c.EnrichCost, min: 1} }},
	{env: "FIRMOGRAPHICS_URL", flag: "firmographics-url", defDoc: "empty: built-in web site reader",
		help: "commercial firmographics API base URL; empty uses the built-in web site reader",
		doc:  "commercial firmographics API for enrichment",
		bind: func(c *config) flag.Value { return webURL(&c.FirmographicsURL) }},
	{env: "FIRMOGRAPHICS_KEY", flag: "firmographics-key", help: "API key of the firmographics API",
		bind: func(c *config) flag.Value { return text(&c.FirmographicsKey) }},
	{env: "LOG_LEVEL", flag: "log-level", def: "info", help: "debug, info, warn or error",
		bind: func(c *config) flag.Value { return logLevel(&c.LogLevel) }},
	{env: "MCP_ALLOWED_ORIGINS", flag: "mcp-allowed-origins",
		help: "comma-separated browser origins allowed on /mcp besides loopback ones while PUBLIC_URL is loopback",
		doc:  "comma-separated browser origins (`scheme://host[:port]`) allowed on `/mcp` besides loopback ones while `PUBLIC_URL` is loopback; others get 403 (DNS rebinding guard)",
		bind: func(c *config) flag.Value { return text(&c.MCPAllowedOrigins) }},
	{env: "MCP_STATE_KEY", flag: "mcp-state-key", defDoc: "generated once, kept in the database",
		help: "base64 key of 32 bytes sealing the state of MCP confirmations; generated once and kept in the database when empty",
		doc:  "base64 (standard or URL alphabet) of 32 random bytes (`openssl rand -base64 32`): the AES-256-GCM key that seals the `requestState` of MCP confirmations ([docs/mcp.md](docs/mcp.md), \"Confirmations\"), so a client can neither read nor change it. Every replica must have the same key; left empty, one is generated on the first start and kept in the database, which replicas share. Changing it voids confirmations in flight",
		bind: func(c *config) flag.Value { return stateKey(&c.MCPStateKey) }},
	{env: "MCP_CONFORMANCE_FIXTURES", flag: "mcp-conformance-fixtures", def: "false",
		help: "serve the MCP conformance suite's fixtures at /mcp/x/conformance (tests only; refused unless PUBLIC_URL is loopback)",
		doc:  "`true` adds the toolset `conformance` at `/mcp/x/conformance`: the tools, prompts and resources the official MCP conformance suite calls, which touch no data. For conformance runs only: the start is refused unless `PUBLIC_URL` is loopback",
		bind: func(c *config) flag.Value { return &boolValue{p: &c.MCPConformanceFixtures} }},
	{env: "METRICS_ADDR", flag: "metrics-addr", def: "127.0.0.1:9090", help: "address of the /metrics listener; off for none",
		doc:  "address of the separate `/metrics` listener (loopback by default; in a container use `:9090` and do not publish the port); `off` for none. Left unset, a taken default port is logged and the start goes on without the listener; set, a taken port fails the start",
		bind: func(c *config) flag.Value { return text(&c.MetricsAddr) }},
	{env: "METRICS_TOKEN", flag: "metrics-token", help: "serve /metrics on the public port too, to requests with this bearer token",
		doc:  "when set, `/metrics` is also served on the public port to requests with `Authorization: Bearer <METRICS_TOKEN>`; otherwise it is not there at all",
		bind: func(c *config) flag.Value { return text(&c.MetricsToken) }},
	{env: "WEBHOOK_RETENTION_DAYS", flag: "webhook-retention-days", def: "30",
		help: "days webhook deliveries and events are kept",
		doc:  "days webhook deliveries (the delivery log) and dispatched events (the event log) are kept; older ones are deleted hourly, in batches, except deliveries still pending and the events they need (docs/webhooks.md, \"Retention\")",
		bind: func(c *config) flag.Value { return &intValue{p: &c.WebhookRetentionDays, min: 1} }},
	{env: "WEBHOOK_RETRY_SPEEDUP", flag: "webhook-retry-speedup", def: "1",
		help: "divide every webhook retry wait by this (drills and tests; 1 in production)",
		doc:  "divides every wait of the webhook retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h): `60` retries after 83 ms, 5 s, 30 s ... for a drill or a test of a receiver's outage; keep `1` in production (docs/webhooks.md, \"Delivery\"). The 3 days after which a failing endpoint is disabled are not divided",
		bind: func(c *config) flag.Value { return &intValue{p: &c.WebhookRetrySpeedup, min: 1} }},
}

// bindSettings gives c every setting's default, then the environment's value where one
// is set, and declares the flags of fs that override them. A value that does not parse
// is an error naming the variable: a start never guesses what a setting meant.
func bindSettings(fs *flag.FlagSet, c *config) error {
	for _, s := range settings {
		v := s.bind(c)
		if err := v.Set(s.def); err != nil {
			panic(fmt.Sprintf("setting %s: default %q: %v", s.env, s.def, err)) // a programming error
		}
		if raw, ok := os.LookupEnv(s.env); ok && raw != "" {
			if err := v.Set(raw); err != nil {
				return fmt.Errorf("%s=%q: %v", s.env, raw, err)
			}
		}
		fs.Var(v, s.flag, s.help)
	}
	fs.Usage = func() { printSettings(fs) }
	return nil
}

// printSettings is `workspaced serve -h` (and migrate's, healthcheck's): every setting in
// the table's order with its flag, the kind of value it takes, its help, its variable and
// its default (the environment's value, when one is set).
func printSettings(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintf(w, "Usage of workspaced %s: flags override environment variables\n", fs.Name())
	for _, s := range settings {
		f := fs.Lookup(s.flag)
		arg := ""
		if n, ok := f.Value.(interface{ kind() string }); ok {
			arg = " " + n.kind()
		}
		def := ""
		if f.DefValue != "" {
			def = ", default " + f.DefValue
		}
		fmt.Fprintf(w, "  -%s%s\n    \t%s (env %s%s)\n", s.flag, arg, s.help, s.env, def)
	}
}

// The kinds of value settings take. Each Set refuses text it cannot read, with a reason
// that names what it wants; the flag package and bindSettings add which setting.
type (
	textValue struct {
		p     *string
		check func(string) error // nil takes any text
		arg   string             // what printSettings calls the value
	}
	listValue  []string
	countValue uint64
	boolValue  struct {
		p      *bool
		negate bool // the field says the opposite of the setting (RATE_LIMITS, RateLimitsOff)
	}
	intValue struct {
		p        *int
		min, max int // max 0: no maximum
	}
	durationValue struct {
		p   *time.Duration
		max time.Duration // 0: no maximum
	}
)

func text(p *string) flag.Value { return &textValue{p: p, arg: "string"} }

// webURL takes empty, or an absolute http(s) URL with a host.
func webURL(p *string) flag.Value {
	return &textValue{p: p, arg: "URL", check: func(s string) error {
		if s == "" {
			return nil
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errors.New("want an absolute http or https URL such as https://example.com/path")
		}
		return nil
	}}
}

// stateKey takes empty, or the base64 of mcp.StateKeySize bytes.
func stateKey(p *string) flag.Value {
	return &textValue{p: p, arg: "base64", check: func(s string) error {
		if _, err := decodeStateKey(s); s != "" && err != nil {
			return err
		}
		return nil
	}}
}

// decodeStateKey reads MCP_STATE_KEY: base64 in the standard or URL alphabet, padded or
// not, of exactly mcp.StateKeySize bytes.
func decodeStateKey(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == mcp.StateKeySize {
			return k, nil
		}
	}
	return nil, fmt.Errorf("want the base64 of %d random bytes, such as the output of openssl rand -base64 %d", mcp.StateKeySize, mcp.StateKeySize)
}

// logLevel takes a level log/slog knows.
func logLevel(p *string) flag.Value {
	return &textValue{p: p, arg: "level", check: func(s string) error {
		var l slog.Level
		if err := l.UnmarshalText([]byte(s)); err != nil {
			return errors.New("want debug, info, warn or error")
		}
		return nil
	}}
}

func (v *textValue) Set(s string) error {
	if v.check != nil {
		if err := v.check(s); err != nil {
			return err
		}
	}
	*v.p = s
	return nil
}
func (v *textValue) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return *v.p
}

func (v *listValue) Set(s string) error { *v = splitList(s); return nil }
func (v *listValue) String() string {
	if v == nil {
		return ""
	}
	return strings.Join(*v, ",")
}

func (v *countValue) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return errors.New("want a whole number such as 60")
	}
	*v = countValue(n)
	return nil
}
func (v *countValue) String() string {
	if v == nil {
		return "0"
	}
	return strconv.FormatUint(uint64(*v), 10)
}

func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*v.p = b != v.negate
	return nil
}
func (v *boolValue) String() string {
	if v == nil || v.p == nil {
		return "false"
	}
	return strconv.FormatBool(*v.p != v.negate)
}

// IsBoolFlag lets -rate-limits stand for -rate-limits=true.
func (v *boolValue) IsBoolFlag() bool { return true }

func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < v.min || (v.max > 0 && n > v.max) {
		if v.max > 0 {
			return fmt.Errorf("want a whole number from %d to %d", v.min, v.max)
		}
		return fmt.Errorf("want a whole number of at least %d", v.min)
	}
	*v.p = n
	return nil
}
func (v *intValue) String() string {
	if v == nil || v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil || d < 0:
		return errors.New("want a duration such as 30s or 1m30s")
	case v.max > 0 && d > v.max:
		return fmt.Errorf("want at most %s", v.max)
	}
	*v.p = d
	return nil
}
func (v *durationValue) String() string {
	if v == nil || v.p == nil {
		return "0s"
	}
	return v.p.String()
}

// kind names what a flag takes in printSettings; a boolean flag takes nothing.
func (v *textValue) kind() string   { return v.arg }
func (*listValue) kind() string     { return "list" }
func (*countValue) kind() string    { return "count" }
func (*intValue) kind() string      { return "int" }
func (*durationValue) kind() string { return "duration" }

// readmeSettings is the README's settings table, made from settings.
func readmeSettings() string {
	var b strings.Builder
	b.WriteString("| variable | flag of `serve` | default | meaning |\n|---|---|---|---|\n")
	for _, s := range settings {
		def := s.defDoc
		switch {
		case def != "":
		case s.def == "":
			def = "empty"
		default:
			def = "`" + s.def + "`"
		}
		meaning := s.doc
		if meaning == "" {
			meaning = s.help
		}
		fmt.Fprintf(&b, "| `%s` | `-%s` | %s | %s |\n", s.env, s.flag, def, meaning)
	}
	return b.String()
}
