package restapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const testAPIKey = "pk_test_routing_key"

// testTokenPrefix marks the harness's own credentials: a token maps straight to a
// principal, so tests can give a member any role, grants and scopes.
const testTokenPrefix = "tst_"

// env is a running API over the package database, authenticating agent keys through the
// same revocation-aware cache the server uses, and test tokens through a map. Every
// exchange is validated against the API's own OpenAPI document.
type env struct {
	t      testing.TB
	store  *store.Store
	srv    *httptest.Server
	router routers.Router
	api    *restapi.API
	ops    *workspace.Ops // the domain the API adapts, as cmd builds it
	tokens sync.Map       // token -> *auth.Principal
}

// envConfig is what newEnv's options adjust: the API's Config and the domain's (a limiter,
// an enricher, webhook delivery).
type envConfig struct {
	restapi.Config
	opsConfig
}

type opsConfig = workspace.Config

// newEnv starts the API over a domain built as cmd builds it; opts adjust their Configs.
func newEnv(t testing.TB, opts ...func(*envConfig)) *env {
	t.Helper()
	s := storetest.New(t)
	e := &env{t: t, store: s}
	scopes := workspace.Scopes()
	keys := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		return auth.Resolved(s.AgentKeyIdentity(ctx, bearer, scopes))
	})
	tokens := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		if p, ok := e.tokens.Load(bearer); ok {
			return p.(*auth.Principal), nil
		}
		return nil, apierr.Unauthorized("unknown test token")
	})
	cache := workspace.NewCache(workspace.Prefixed{store.PrefixAgentKey: keys}, 30*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	go s.ListenRevocations(ctx, cache.Flush, cache.SetListening)
	cfg := envConfig{Config: restapi.Config{APIKey: testAPIKey,
		Auth: workspace.Prefixed{store.PrefixAgentKey: cache, testTokenPrefix: tokens}},
		opsConfig: opsConfig{Store: s, WebhookURLs: &webhooks.URLPolicy{}}}
	for _, o := range opts {
		o(&cfg)
	}
	e.ops = workspace.NewOps(cfg.opsConfig)
	cfg.Ops = e.ops
	e.api = restapi.New(cfg.Config)
	// Mounted as cmd/workspaced/serve.go mounts it: chi keeps /v1 in r.URL.Path and gives
	// the API the rest in its route context.
	mux := chi.NewRouter()
	mux.Mount("/v1", e.api.Handler())
	e.srv = httptest.NewServer(mux)
	t.Cleanup(func() { e.srv.Close(); cancel() })
	e.router = openAPIRouter(t, e.srv.URL+"/v1")
	return e
}

// openAPIRouter loads the served document with kin-openapi. kin-openapi v0.152 reads
// OpenAPI 3.1 and validates with JSON Schema 2020-12 semantics when the document says
// 3.1 (type arrays for null), so the document is loaded as served; only its relative
// server URL is replaced by the test server's address so routes resolve.
func openAPIRouter(t testing.TB, base string) routers.Router {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(restapi.OpenAPI())
	if err != nil {
		t.Fatalf("load openapi: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: base}}
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("openapi router: %v", err)
	}
	return r
}

// token registers a principal and returns a bearer credential for it.
func (e *env) token(p *auth.Principal) string {
	tok := testTokenPrefix + uuid.NewString()
	e.tokens.Store(tok, p)
	return tok
}

// response is a decoded exchange.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// data returns the body's data object.
func (r response) data() map[string]any { m, _ := r.Body["data"].(map[string]any); return m }

// list returns the body's data array as objects.
func (r response) list() []map[string]any {
	var out []map[string]any
	for _, v := range r.Body["data"].([]any) {
		out = append(out, v.(map[string]any))
	}
	return out
}

// do sends a request with the apikey header and bearer (both optional: "" omits).
func (e *env) do(method, path, bearer, apikey string, body string, headers ...string) response {
	e.t.Helper()
	return e.doT(e.t, method, path, bearer, apikey, body, headers...)
}

// doT is do reporting to t: it checks X-Request-Id on every response and that error
// bodies repeat it, and validates the exchange against the OpenAPI document: the response
// must match what the document declares for its status, and a request the document
// rejects must not succeed.
func (e *env) doT(t testing.TB, method, path, bearer, apikey string, body string, headers ...string) response {
	t.Helper()
	newReq := func() *http.Request {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, e.srv.URL+"/v1"+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		if apikey != "" {
			req.Header.Set("apikey", apikey)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		return req
	}
	res, err := http.DefaultClient.Do(newReq())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)

	id := res.Header.Get("X-Request-Id")
	if id == "" {
		t.Fatalf("%s %s: %d response without X-Request-Id", method, path, res.StatusCode)
	}
	if res.StatusCode >= 400 && out.Body["request_id"] != id {
		t.Fatalf("%s %s: error body request_id %v does not repeat X-Request-Id %q", method, path, out.Body["request_id"], id)
	}
	e.checkOpenAPI(t, newReq(), res, raw)
	return out
}

func (e *env) checkOpenAPI(t testing.TB, req *http.Request, res *http.Response, raw []byte) {
	t.Helper()
	route, params, err := e.router.FindRoute(req)
	if err != nil { // not in the document (DELETE, unknown resources): must be an error
		if res.StatusCode < 400 {
			t.Fatalf("%s %s answered %d but is not in the OpenAPI document", req.Method, req.URL.Path, res.StatusCode)
		}
		return
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil && res.StatusCode < 300 {
		t.Fatalf("%s %s: the server accepted (%d) a request the OpenAPI document rejects: %v", req.Method, req.URL, res.StatusCode, err)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	out.SetBodyBytes(raw)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Fatalf("%s %s: response %d does not match the OpenAPI document: %v\n%s", req.Method, req.URL, res.StatusCode, err, clipBody(raw))
	}
}

func clipBody(b []byte) string {
	if len(b) > 800 {
		return string(b[:800]) + "..."
	}
	return string(b)
}

// client sends requests as one bearer, reporting to one (sub)test.
type client struct {
	e     *env
	t     testing.TB
	token string
}

func (e *env) as(t testing.TB, p *auth.Principal) client {
	return client{e: e, t: t, token: e.token(p)}
}

func (c client) req(method, path string, body any) response {
	c.t.Helper()
	var s string
	switch b := body.(type) {
	case nil:
	case string:
		s = b
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		s = string(raw)
	}
	return c.e.doT(c.t, method, path, c.token, testAPIKey, s)
}

func (c client) get(path string) response { c.t.Helper(); return c.req("GET", path, nil) }
func (c client) post(path string, body any) response {
	c.t.Helper()
	return c.req("POST", path, body)
}
func (c client) patch(path string, body any) response {
	c.t.Helper()
	return c.req("PATCH", path, body)
}

// must asserts a status and returns the response.
func must(t testing.TB, r response, status int) response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("want %d, got %d %s", status, r.Status, clipBody(r.Raw))
	}
	return r
}

// wantError asserts the spec's error envelope with the given status and code.
func wantError(t testing.TB, r response, status int, code string) {
	t.Helper()
	if r.Status != status || r.Body["error"] != code {
		t.Fatalf("want %d %s, got %d %s", status, code, r.Status, clipBody(r.Raw))
	}
	id := r.Header.Get("X-Request-Id")
	if id == "" || r.Body["request_id"] != id {
		t.Fatalf("error body request_id %v does not repeat X-Request-Id %q", r.Body["request_id"], id)
	}
	if msg, _ := r.Body["message"].(string); msg == "" {
		t.Fatalf("error without a message: %s", r.Raw)
	}
}

// wantFieldError asserts a 422 naming field.
func wantFieldError(t testing.TB, r response, field string) {
	t.Helper()
	wantError(t, r, http.StatusUnprocessableEntity, "validation_error")
	fields, _ := r.Body["fields"].([]any)
	for _, f := range fields {
		if f.(map[string]any)["field"] == field {
			return
		}
	}
	t.Fatalf("422 does not name %s: %s", field, r.Raw)
}

// wantMessage asserts the error message mentions each of want.
func wantMessage(t testing.TB, r response, want ...string) {
	t.Helper()
	msg, _ := r.Body["message"].(string)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("message %q does not mention %q", msg, w)
		}
	}
}

// listAll walks every page of path (which has no query of its own, or ends in one) and
// returns the records.
func (c client) listAll(path string) []map[string]any {
	c.t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var out []map[string]any
	next := path + sep + "limit=200"
	for {
		r := must(c.t, c.get(next), http.StatusOK)
		out = append(out, r.list()...)
		cur, _ := r.Body["next_cursor"].(string)
		if cur == "" {
			return out
		}
		next = path + sep + "limit=200&cursor=" + cur
	}
}

func ids(recs []map[string]any) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		out[r["id"].(string)] = true
	}
	return out
}
