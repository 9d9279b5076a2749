package mcp_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/wellknown"
	"github.com/agencyos/workspaced/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// tokenPrefix marks the test's own bearer tokens, which stand for OAuth access tokens
// with chosen scopes.
const tokenPrefix = "tok_"

// env is the REST API and the MCP server over the package database, mounted as cmd mounts
// them and sharing one operation layer, authenticator and (optionally) limiter; agent keys
// go through the server's revocation-aware cache and test tokens map to principals.
type env struct {
	t      testing.TB
	store  *store.Store
	srv    *httptest.Server
	mcp    *mcp.Server
	mu     sync.Mutex
	tokens map[string]*auth.Principal
}

// envConfig is what a test may change.
type envConfig struct {
	limiter        workspace.Limiter
	enricher       workspace.Enricher
	allowedOrigins []string
	fixtures       bool // the conformance toolset (conformance.go)
}

// envOption adjusts the env before it is built.
type envOption func(*envConfig)

// testAPIKey is the REST routing key (/mcp needs none).
const testAPIKey = "pk_mcp_test"

// enrichAnswer is what the test enricher answers for every domain.
func enrichAnswer(domain string) *workspace.EnrichResult {
	return &workspace.EnrichResult{EnrichCompany: workspace.EnrichCompany{Domain: domain, Name: "Example",
		Website: "https://" + domain, Industry: "Software"}, CreditsSpent: 1, CreditsRemaining: 9}
}

// enricherFunc adapts a function to workspace.Enricher.
type enricherFunc func(ctx context.Context, p *auth.Principal, domain string) (*workspace.EnrichResult, error)

func (f enricherFunc) Enrich(ctx context.Context, p *auth.Principal, domain string) (*workspace.EnrichResult, error) {
	return f(ctx, p, domain)
}

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	s := storetest.New(t)
	ec := envConfig{enricher: enricherFunc(func(ctx context.Context, p *auth.Principal, domain string) (*workspace.EnrichResult, error) {
		return enrichAnswer(domain), nil
	})}
	for _, o := range opts {
		o(&ec)
	}
	e := &env{t: t, store: s, tokens: map[string]*auth.Principal{}}
	scopes := workspace.Scopes()
	keys := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		return auth.Resolved(s.AgentKeyIdentity(ctx, bearer, scopes))
	})
	tokens := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		if p, ok := e.tokens[bearer]; ok {
			return p, nil
		}
		return nil, apierr.Unauthorized("unknown test token")
	})
	auth := workspace.NewCache(workspace.Prefixed{store.PrefixAgentKey: keys, tokenPrefix: tokens}, 30*time.Second)

	mux := http.NewServeMux()
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	ops := workspace.NewOps(workspace.Config{Store: s, Enricher: ec.enricher, WebhookURLs: &webhooks.URLPolicy{}})
	api := restapi.New(restapi.Config{Ops: ops, Auth: auth, APIKey: testAPIKey, Limiter: ec.limiter, PublicURL: e.srv.URL})
	srv, err := mcp.New(mcp.Config{PublicURL: e.srv.URL, Auth: auth, Ops: ops, Limiter: ec.limiter,
		AllowedOrigins: ec.allowedOrigins, ConformanceFixtures: ec.fixtures})
	if err != nil {
		t.Fatal(err)
	}
	e.mcp = srv
	var metadata []wellknown.Document
	for _, d := range srv.MetadataDocuments() {
		metadata = append(metadata, wellknown.Document{Path: d.Path, Body: d.Body})
	}
	docs, err := wellknown.Handler(metadata...)
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/v1/", http.StripPrefix("/v1", api.Handler()))
	mux.Handle(mcp.Path, srv.Handler())
	mux.Handle(mcp.Path+"/", srv.Handler())
	mux.Handle(mcp.RootMetadataPath, docs)
	mux.Handle(mcp.RootMetadataPath+"/", docs)
	return e
}

// token returns a bearer standing for an access token of p.
func (e *env) token(p *auth.Principal) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	tok := tokenPrefix + hex.EncodeToString(b[:])
	e.mu.Lock()
	e.tokens[tok] = p
	e.mu.Unlock()
	return tok
}

// client connects mcp-go's own Streamable HTTP client with bearer and headers (name,
// value pairs); version "" lets it negotiate (the stateless 2026-07-28 core), an older one
// forces the initialize handshake.
func (e *env) client(t testing.TB, bearer, version string, headers ...string) *client.Client {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + bearer}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	c, err := client.NewStreamableHttpClient(e.srv.URL+mcp.Path, transport.WithHTTPHeaders(h))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcpgo.Implementation{Name: "workspaced-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// toolNames lists the names of tools/list.
func toolNames(t testing.TB, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// call calls a tool and returns its result.
func call(t testing.TB, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// wantOK asserts a successful result with structured content and, as text, a compact
// rendering of it (every top-level text value shown, a time to the minute, the workspace
// named as not shown; not the same JSON again), and returns the structured content.
func wantOK(t testing.TB, res *mcpgo.CallToolResult) map[string]any {
	t.Helper()
	text := resultText(t, res)
	if res.IsError {
		t.Fatalf("tool error: %s", text)
	}
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		raw, _ = json.Marshal(res.StructuredContent)
	}
	var structured map[string]any
	if err := json.Unmarshal(raw, &structured); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	if json.Valid([]byte(text)) || strings.TrimSpace(text) == "" {
		t.Fatalf("text is not a compact rendering of the structured content: %s", text)
	}
	for k, v := range structured {
		s, ok := v.(string)
		if !ok || s == "" || strings.ContainsAny(s, "\t\n\"") {
			continue
		}
		want := k + ": " + s
		if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
			want = k + ": " + s[:16] // a time is shown to the minute
		}
		if k == "workspace_id" {
			want = "not shown: workspace_id" // the caller's own
		}
		if !strings.Contains(text, want) {
			t.Fatalf("text does not show %s in %s", want, text)
		}
	}
	return structured
}

// wantToolError asserts a tool error carrying the REST code and a request id.
func wantToolError(t testing.TB, res *mcpgo.CallToolResult, code string) map[string]any {
	t.Helper()
	text := resultText(t, res)
	if !res.IsError {
		t.Fatalf("want tool error %s, got success %s", code, text)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(text), &body); err != nil {
		t.Fatalf("tool error text is not JSON: %s", text)
	}
	if body["error"] != code {
		t.Fatalf("want error %s, got %s", code, text)
	}
	if msg, _ := body["message"].(string); msg == "" {
		t.Fatalf("tool error without a message: %s", text)
	}
	if id, _ := body["request_id"].(string); id == "" {
		t.Fatalf("tool error without a request_id: %s", text)
	}
	return body
}

func resultText(t testing.TB, res *mcpgo.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content item, got %d", len(res.Content))
	}
	tc, ok := mcpgo.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// post sends a raw HTTP request to the server and returns status, headers and body.
func (e *env) post(t testing.TB, method, path, body string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, raw
}

// rest calls the REST API with bearer and returns the status and the decoded body.
func (e *env) rest(t testing.TB, method, path, bearer, body string) (int, map[string]any) {
	t.Helper()
	headers := []string{"apikey", testAPIKey, "Authorization", "Bearer " + bearer}
	if body != "" {
		headers = append(headers, "Content-Type", "application/json")
	}
	status, _, raw := e.post(t, method, "/v1"+path, body, headers...)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d %s", method, path, status, raw)
	}
	return status, out
}

// mustCreate creates a record over REST and returns its data.
func (e *env) mustCreate(t testing.TB, bearer, resource, body string) map[string]any {
	t.Helper()
	status, out := e.rest(t, "POST", "/"+resource, bearer, body)
	if status != http.StatusCreated {
		t.Fatalf("POST /%s %s: %d %v", resource, body, status, out)
	}
	return out["data"].(map[string]any)
}
