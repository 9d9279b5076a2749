package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/ratelimit"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/wellknown"
	"github.com/agencyos/workspaced/workspace"
)

// Path is where the MCP endpoint is mounted (docs/decisions.md 1).
const Path = "/mcp"

// listingTTL is how long a client may reuse tools/list and server/discover: long enough
// to skip the listing on every turn, short enough that a deploy's new tools arrive within
// the hour.
const listingTTL = time.Hour

// Config is what the MCP server needs; cmd builds it.
type Config struct {
	// PublicURL is the origin clients reach, without a trailing slash; it is also the
	// authorization server's issuer. The MCP URL is PublicURL + "/mcp".
	PublicURL string
	// Auth resolves bearer credentials (access tokens and agent keys), the same
	// authenticator REST uses.
	Auth workspace.Authenticator
	// Ops is the operation layer REST shares; every tool call runs through it, so the two
	// transports share their gates, validation, row-level security, activity, credits and
	// rate limits.
	Ops *workspace.Ops
	// Limiter, when set, charges every tool call to the caller's budgets and every failed
	// authentication to the client's IP, exactly as REST does with the same limiter
	// (docs/decisions.md 5).
	Limiter workspace.Limiter
	// TrustedProxies are the proxy ranges whose X-Forwarded-For names the client IP.
	TrustedProxies []netip.Prefix
	// Logger receives causes of internal errors; nil discards.
	Logger *slog.Logger
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed besides loopback
	// ones while PublicURL is loopback (MCP_ALLOWED_ORIGINS).
	AllowedOrigins []string
	// StateKey seals the requestState of multi round-trip results, confirmations among
	// them (state.go): StateKeySize bytes, the same on every replica (MCP_STATE_KEY); nil
	// generates one, good for this process only.
	StateKey []byte
	// ConformanceFixtures adds the conformance toolset, the official MCP conformance
	// suite's fixtures (conformance.go); for tests only, refused unless PublicURL is
	// loopback (MCP_CONFORMANCE_FIXTURES).
	ConformanceFixtures bool
}

// instructions carry what every tool shares, so descriptions say only what differs.
var instructions = `Tools read and write one agency workspace (CRM, tasks, spaces, metrics, finance, HR, docs, automations, directory). ` +
	`Names are verb_resource: list_ (newest first), get_ (one record by id), create_, update_ (partial: ` +
	`only the fields sent change), detach_ (unlink a join record); nothing is ever deleted. ` +
	`Lists return {data, next_cursor}: while next_cursor is not null, call again with the same filters and cursor=next_cursor. ` +
	`Result text is compact (structured content has every value as written): a list a tab-separated table under a header of field names (null an empty cell), ` +
	`then "every row: field=value" for columns alike in every row, "empty:" for columns null in every row, and a next_cursor: line when there is more; ` +
	`a record field: value lines, nulls left out; times to the minute, long table cells cut with …, "not shown:" names fields left out. ` +
	`For what changed since a time, list with where [{field: updated_at, op: gte, value: an RFC 3339 time}] and sort updated_at (least recently updated first, ` +
	`each change once across the pages; a page never passes a write still in flight, so every committed change comes in some run); keep the last record's updated_at for next time. ` +
	`To find records, call search {q, types} ({type, id, title, snippet, score} across everything), or list with q (words or their beginnings, accents and case ignored, a typo forgiven in names; best match first), ` +
	`where [{field, op, value}] (op eq, ne, lt, lte, gt, gte, in with comma-separated values, prefix, contains with 3 letters or digits in a row for names and emails, case ignored, null with true or false), sort (a field, - first for descending); ` +
	`where [{field: id, op: in, value: "id,id"}] reads up to 100 records in one call; limit is ` + workspace.ListLimitRange() + `. Lists return a summary of each record (id, its main fields, updated_at); fields "name,value" returns those instead, get_ the whole record. ` +
	`A record has every column (any may be null); create_ and update_ return it, and create_'s input types its writable columns. ` +
	`tools/list names only the tools you may call (your scopes, the member's feature grants, the admin role); me shows your scopes and grants. ` +
	`This connection lists a chosen toolset; find_tools {query} searches every tool you may use ` +
	`(answering {name, description, inputSchema, needs_scope?}; needs_scope: this token lacks the scope, a call asks to authorize again for it) ` +
	`and call_tool {name, arguments} runs any of them. ` +
	`create_, detach_ and enrich_company take an optional idempotency_key: the same key with the same arguments within ` + workspace.IdempotencyWindow() + ` returns the first result ` +
	`without writing or charging again; with other arguments it fails with idempotency_conflict, and while the first call runs with idempotency_in_flight. ` +
	`detach_ and enrich_company ask the user first, through the client's form when it can show one; otherwise they fail with confirmation_required and do nothing: ` +
	`ask the user, and only if they agree call again with the same arguments and confirm set to the token given. ` +
	`Failures are tool errors whose text is JSON {error, message, request_id}; the message says what to change, and ` +
	`not_found also means hidden from you.`

// Server is the MCP tool server.
type Server struct {
	cfg      Config
	resource string // the MCP URL, the RFC 9728 resource identifier of /mcp
	specs    map[string]toolSpec
	tools    []mcpgo.Tool // in catalogue order
	http     http.Handler
	log      *slog.Logger
	// loopback is PublicURL's host being loopback: browsers' Origin is then checked.
	loopback bool
	origins  map[string]bool // AllowedOrigins, normalised
	states   *sealer         // seals and opens requestState (state.go)
}

// New builds the server and its tools from workspace.Catalog().
func New(cfg Config) (*Server, error) {
	if cfg.Auth == nil || cfg.Ops == nil {
		return nil, errors.New("mcp: Config needs Auth and Ops")
	}
	origin, err := url.Parse(cfg.PublicURL)
	if err != nil || origin.Scheme == "" || origin.Host == "" {
		return nil, fmt.Errorf("mcp: PublicURL %q is not an absolute URL", cfg.PublicURL)
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	s := &Server{cfg: cfg, resource: cfg.PublicURL + Path, specs: map[string]toolSpec{}, log: cfg.Logger,
		loopback: loopbackHost(origin.Hostname()), origins: map[string]bool{}}
	if cfg.ConformanceFixtures && !s.loopback {
		return nil, fmt.Errorf("mcp: the conformance fixtures are for tests and need a loopback PublicURL, not %s", cfg.PublicURL)
	}
	if s.states, err = newSealer(cfg.StateKey); err != nil {
		return nil, err
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for _, o := range cfg.AllowedOrigins {
		n, err := normalOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("mcp: allowed origin: %w", err)
		}
		s.origins[n] = true
	}
	specs, err := buildTools(workspace.Catalog())
	if err != nil {
		return nil, err
	}
	specs = append(specs, s.searchTool(), s.findTool(), s.callTool(), s.importTool())
	if cfg.ConformanceFixtures {
		specs = append(specs, s.conformanceTools()...)
	}
	m := server.NewMCPServer("workspaced", "1.0.0", append([]server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		server.WithRecovery(),
		server.WithToolFilter(s.visibleTools),
		// The list changes only with a deploy or with the credential (its scopes, grants,
		// toolset header), so 2026-07-28 clients may reuse it for listingTTL; private, as
		// another credential sees other tools (docs/mcp.md).
		server.WithMethodCacheHints(mcpgo.MethodToolsList, listingTTL.Milliseconds(), mcpgo.CacheScopePrivate),
		server.WithMethodCacheHints(mcpgo.MethodServerDiscover, listingTTL.Milliseconds(), mcpgo.CacheScopePrivate),
	}, s.featureOptions()...)...) // prompts, resources, completions and the hooks: features.go
	for _, sp := range specs {
		s.specs[sp.tool.Name] = sp
		s.tools = append(s.tools, sp.tool)
		h := sp.run
		if h == nil {
			h = s.handler(sp)
		}
		m.AddTool(sp.tool, h)
	}
	s.addFeatures(m)
	if cfg.ConformanceFixtures {
		s.addConformance(m)
	}
	s.http = s.postOnly(ackFirst(s.rpcFaults(s.viewSessions(server.NewStreamableHTTPServer(m,
		// Stateless: no session is kept, so any process can answer any request and no
		// sticky sessions are needed behind a load balancer.
		server.WithStateLess(true),
		// Nothing is ever pushed to clients, so no standalone GET stream is offered (405).
		server.WithDisableStreaming(true),
		// 2025-06-18 (the first with MCP-Protocol-Version and structured tool output)
		// through the stateless 2026-07-28.
		server.WithStreamableHTTPProtocolVersions(mcpgo.ProtocolVersion20260728, mcpgo.ProtocolVersion20251125,
			mcpgo.ProtocolVersion20250618),
		// The DNS-rebinding guard refuses a non-localhost Host on a loopback connection,
		// which is exactly a reverse proxy on the same machine forwarding PUBLIC_URL's
		// host. It protects servers reached without credentials; ours requires a bearer
		// on every request, so it stays on only while PUBLIC_URL is itself loopback.
		server.WithDisableLocalhostProtection(!loopbackHost(origin.Hostname())),
		server.WithStreamableHTTPLogger(s.log),
	)))))
	return s, nil
}

// postOnly answers every method but POST with 405, Allow: POST and the service's error
// envelope, before mcp-go: stateless and pushing nothing, the endpoint offers no event
// stream on GET and no session to DELETE (mcp-go would answer those 405 in plain text,
// HEAD 200 and other methods 404). CORS preflights are answered before (cors).
func (s *Server) postOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		httpx.WriteError(w, r, s.log, &apierr.Error{Code: apierr.CodeMethodNotAllowed, Allow: []string{http.MethodPost},
			Message: r.Method + " " + r.URL.Path + " is not supported; allowed: POST (JSON-RPC messages; the server pushes nothing, so there is no event stream to GET)"})
	})
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// Tools returns every tool the server offers: me, the catalogue's in catalogue order,
// find_tools and call_tool.
func (s *Server) Tools() []mcpgo.Tool { return append([]mcpgo.Tool(nil), s.tools...) }

// Handler serves the MCP endpoint and its views; mount it at Path and under Path + "/"
// (ResourcePaths). It checks browsers' Origin while PublicURL is loopback, answers CORS
// preflights, refuses bodies over 1 MiB, reads the toolset selection, demands a bearer
// credential (401 with an RFC 9728 challenge otherwise) and needs no apikey. A plain
// tools/call is answered directly (direct.go), anything else by mcp-go.
func (s *Server) Handler() http.Handler {
	transport := s.checkState(s.http) // confirm.go
	if s.cfg.ConformanceFixtures {
		transport = s.checkFixtureCapability(transport)
	}
	return s.guard(s.callDirect(transport))
}

// guard puts the checks every MCP request passes in front of transport.
func (s *Server) guard(transport http.Handler) http.Handler {
	return httpx.RequestID(s.checkOrigin(cors(limitBody(s.admit(s.inspect(transport))))))
}

// admit selects the request's view, then authenticates it, and hands both on in one copy
// of the request: the view is read from the path and selection headers, where a path
// that names no view is 404 and an unknown toolset 400, as a JSON-RPC error naming the
// valid toolsets (never silently fewer tools), before any credential is looked at.
func (s *Server) admit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := parseView(r)
		if err == nil && v.fixtures() && !s.cfg.ConformanceFixtures {
			err = unknownToolset(toolsetConformance)
		}
		if err != nil {
			e := store.AsError(err)
			writeRPCErrorID(w, httpx.Status(e), mcpgo.INVALID_PARAMS, requestID(r), e.Message)
			return
		}
		p, ok := s.authenticate(w, r)
		if !ok {
			return
		}
		if fence, ok := s.fence(p.Credential.Resource); ok {
			v = v.within(fence)
		}
		ctx := httpx.WithPrincipal(r.Context(), p.WithVia(store.ViaMCP))
		next.ServeHTTP(w, r.WithContext(withView(ctx, v)))
	})
}

// limitBody refuses request bodies over workspace.MaxBody, as REST does: a declared length
// at once (413), a longer chunked body once that much has been read (mcp-go then answers
// its parse error), so no oversized body is ever held in memory.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > workspace.MaxBody {
			writeRPCError(w, http.StatusRequestEntityTooLarge, mcpgo.INVALID_REQUEST, "the request body exceeds 1 MiB")
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, workspace.MaxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// checkOrigin is the MCP transport's DNS-rebinding guard (MCP specification, Streamable
// HTTP, "Security Warning"): while PublicURL is loopback, a browser request whose Origin is
// neither loopback nor in AllowedOrigins is refused with 403, so a page on another site
// that resolves its name to 127.0.0.1 cannot drive a local server. Requests without Origin
// (every non-browser client) pass; a public deployment relies on bearer credentials and
// CORS instead.
func (s *Server) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := r.Header.Get("Origin")
		if !s.loopback || o == "" {
			next.ServeHTTP(w, r)
			return
		}
		n, err := normalOrigin(o)
		if err == nil {
			u, _ := url.Parse(n)
			if loopbackHost(u.Hostname()) || s.origins[n] {
				next.ServeHTTP(w, r)
				return
			}
		}
		httpx.WriteError(w, r, s.log, apierr.Errorf(apierr.CodeForbidden,
			"origin %q may not call this local server; add it to MCP_ALLOWED_ORIGINS to allow it", o))
	})
}

// normalOrigin lowercases scheme and host of an origin and refuses anything else.
func normalOrigin(o string) (string, error) {
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", fmt.Errorf("%q is not an origin (scheme://host[:port])", o)
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// writeRPCError answers a request the transport never dispatched with a JSON-RPC error.
func writeRPCError(w http.ResponseWriter, status, code int, message string) {
	writeRPCErrorID(w, status, code, nil, message)
}

// writeRPCErrorID is writeRPCError answering the request's id (null when nil).
func writeRPCErrorID(w http.ResponseWriter, status, code int, id json.RawMessage, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// requestID reads the id of the JSON-RPC request in r's body (within the 1 MiB limitBody
// sets), so an error answered before the transport reads it answers the request it is
// about; nil where there is none (a notification, a batch, a body that is not JSON, an
// id that is neither a string nor a number).
func requestID(r *http.Request) json.RawMessage {
	if r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil
	}
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &env) != nil || len(env.ID) == 0 {
		return nil
	}
	if c := env.ID[0]; c != '"' && c != '-' && (c < '0' || c > '9') {
		return nil
	}
	return env.ID
}

// authenticate resolves the bearer credential (docs/decisions.md 3 step 1, 8); without
// one it answers (401, or the failure's status) and reports false.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*auth.Principal, bool) {
	bearer := httpx.BearerToken(r)
	if bearer == "" {
		s.challenge(w, r, "", "send Authorization: Bearer <access token or agent key>; "+
			"OAuth clients discover the authorization server through the resource_metadata URL")
		return nil, false
	}
	p, err := s.cfg.Auth.Authenticate(r.Context(), bearer)
	if err != nil {
		if e := store.AsError(err); e.Code != apierr.CodeUnauthorized {
			httpx.WriteError(w, r, s.log, e)
			return nil, false
		}
		s.challenge(w, r, "invalid_token", store.AsError(err).Message)
		return nil, false
	}
	// RFC 8707 and MCP authorization: a token bound to another resource (the REST
	// API, another MCP view) must not be accepted here.
	if p.Credential.Resource != "" && !s.accepts(p.Credential.Resource, s.pathOf(r)) {
		s.challenge(w, r, "invalid_token", fmt.Sprintf("this token was issued for %s; authorize again with resource=%s",
			p.Credential.Resource, s.resourceOf(r)))
		return nil, false
	}
	return p, true
}

// challenge answers 401 with the spec's envelope and an RFC 6750 section 3 challenge that
// points to the RFC 9728 metadata (MCP authorization, "Protected Resource Metadata
// Discovery"). errCode is "" when no credential was presented (RFC 6750 section 3.1).
func (s *Server) challenge(w http.ResponseWriter, r *http.Request, errCode, message string) {
	if err := s.limitFailure(r, w.Header()); err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	v := fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, s.cfg.PublicURL+metadataPath(s.pathOf(r)),
		strings.Join(challengeScopes(readonlyPath(s.pathOf(r))), " "))
	if errCode != "" {
		v += fmt.Sprintf(`, error=%q, error_description=%q`, errCode, headerSafe(message))
	}
	w.Header().Set("WWW-Authenticate", v)
	httpx.WriteError(w, r, s.log, apierr.Unauthorized("%s", message))
}

// limitFailure charges a failed authentication to the client's IP, in the bucket REST
// charges, so token guessing is throttled across both (docs/decisions.md 5); it returns
// workspace.LimitError's answer: rate_limited once that budget is spent.
func (s *Server) limitFailure(r *http.Request, h http.Header) error {
	if s.cfg.Limiter == nil {
		return nil
	}
	d, err := s.cfg.Limiter.TakeIP(r.Context(), ratelimit.BucketAuthFail, ratelimit.ClientIP(r, s.cfg.TrustedProxies))
	if err != nil {
		return nil // a closed limiter fails open here as in REST; the 401 still stands
	}
	d.SetHeaders(h)
	return workspace.LimitError(d)
}

// headerSafe keeps a description within RFC 6750's quoted-string character set.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return ' '
		}
		return r
	}, s)
}

// challengeScopes are the scopes a person would normally grant an MCP client: the
// catalogue without enrich:write, which spends credits and is opt-in (docs/decisions.md 8); on
// a read-only view, its read scopes only.
func challengeScopes(readonly bool) []string {
	var out []string
	for _, sc := range viewScopes(readonly) {
		if sc != "enrich:write" {
			out = append(out, sc)
		}
	}
	return out
}

// viewScopes are the scopes a view's calls can use: every scope, or on a read-only view
// the read scopes, which is all it advertises (its RFC 9728 document, its challenge).
func viewScopes(readonly bool) []string {
	if !readonly {
		return workspace.Scopes()
	}
	var out []string
	for _, sc := range workspace.Scopes() {
		if strings.HasSuffix(sc, ":read") {
			out = append(out, sc)
		}
	}
	return out
}

// accepts reports whether a token bound to resource (RFC 8707) may call the MCP path: one
// bound to the origin (which names the whole service) anywhere, one bound to an MCP path
// on that path and the paths under it only. /mcp/readonly is under /mcp; /mcp is not
// under /mcp/readonly, so a token bound to a read-only view cannot write through /mcp.
func (s *Server) accepts(resource, path string) bool {
	n, err := wellknown.NormalResource(resource)
	if err != nil {
		return false
	}
	origin, _ := wellknown.NormalResource(s.cfg.PublicURL)
	here, err := wellknown.NormalResource(s.cfg.PublicURL + path)
	if err != nil {
		return false
	}
	base, _ := wellknown.NormalResource(s.resource)
	return n == origin || (strings.HasPrefix(n, base) && (here == n || strings.HasPrefix(here, n+"/")))
}

// fence is the view a token bound to an MCP path (RFC 8707) gets; false for an unbound
// token or one bound to the origin (the whole service), which select their view freely.
// accepts has already checked the resource is this server's.
func (s *Server) fence(resource string) (view, bool) {
	if resource == "" {
		return view{}, false
	}
	n, err1 := wellknown.NormalResource(resource)
	origin, err2 := wellknown.NormalResource(s.cfg.PublicURL)
	if err1 != nil || err2 != nil || n == origin {
		return view{}, false
	}
	v, err := fenceOf(strings.TrimPrefix(n, origin))
	if err != nil { // unreachable after accepts; fence to nothing rather than everything
		return view{sets: map[string]bool{}, readonly: true}, true
	}
	return v, true
}

// pathOf is the request's MCP path without a trailing slash: /mcp, /mcp/x/hr ...
func (s *Server) pathOf(r *http.Request) string {
	if p := strings.TrimRight(r.URL.Path, "/"); strings.HasPrefix(p, Path) {
		return p
	}
	return Path
}

// resourceOf is the RFC 9728 resource identifier of the path r used.
func (s *Server) resourceOf(r *http.Request) string { return s.cfg.PublicURL + s.pathOf(r) }

// cors lets browser-based MCP clients call /mcp (docs/decisions.md 8). Credentials travel in the
// Authorization header, never in cookies, so any origin may call; a preflight allows POST
// and OPTIONS, as postOnly answers.
var cors = httpx.CORS{Methods: []string{"POST", "OPTIONS"},
	AllowHeaders: []string{"Authorization", "Content-Type", "MCP-Protocol-Version", "Mcp-Session-Id",
		"Mcp-Method", "Mcp-Name", "Last-Event-ID", "X-Request-Id", HeaderToolsets, HeaderReadonly},
	ExposeHeaders: []string{"WWW-Authenticate", "Mcp-Session-Id", "X-Request-Id"}}.Handler

// visibleTools keeps the tools the request's view selects and the caller can use: its
// scopes, feature grants and role (docs/decisions.md 8; docs/mcp.md "Toolsets"). mcp-go also
// runs tool filters on tools/call, passing only the called tool (server.ToolFilterFunc);
// that one is let through so the operation layer, the gate REST uses, refuses it with
// insufficient_scope or insufficient_permission: a tool error a model can act on, where the
// filter would answer a bare "tool not found". A tool outside a bound token's fence is
// not let through: it answers exactly as a tool that does not exist.
func (s *Server) visibleTools(ctx context.Context, tools []mcpgo.Tool) []mcpgo.Tool {
	v := viewFrom(ctx)
	if len(tools) == 1 {
		if !v.reaches(s.specs[tools[0].Name]) {
			return nil // outside a bound token's view: mcp-go answers as for an unknown tool
		}
		return tools
	}
	p := httpx.PrincipalFrom(ctx)
	if p == nil {
		return nil
	}
	out := tools[:0:0]
	for _, t := range tools {
		if sp := s.specs[t.Name]; v.shows(sp) && canUse(p, sp) {
			out = append(out, t)
		}
	}
	names := make([]string, len(out))
	for i, t := range out {
		names[i] = t.Name
	}
	if s.custom(names...) { // the workspace's own fields: customtools.go
		defs := s.customDefs(ctx)
		for i := range out {
			out[i] = s.withCustom(out[i], defs)
		}
	}
	return out
}

// RouteClass is the class a request to the MCP endpoint counts against before
// authentication (cmd's guard: the database circuit breaker refuses it while open): a
// write, since every MCP request is a POST whether its tool reads or writes, except a
// CORS preflight, which needs no database. Each tool call's operation takes its own
// class's place after authentication (workspace/capacity.go).
func RouteClass(r *http.Request) workspace.Class {
	if r.Method == http.MethodOptions {
		return ""
	}
	return workspace.ClassWrite
}
