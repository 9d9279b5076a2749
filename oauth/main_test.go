package oauth_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/internal/testclock"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/wellknown"
	"github.com/agencyos/workspaced/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const testAPIKey = "pk_test_routing_key"

// env is the provider and the REST API on one test server, over the package database,
// wired as cmd wires them (the verifier behind the revocation-aware cache).
type env struct {
	t      testing.TB
	store  *store.Store
	srv    *httptest.Server
	oauth  *oauth.Server
	clock  *testclock.Offset
	issuer string

	WorkspaceID string
	Admin       user
	Member      user
}

// user is a member who can sign in with a password.
type user struct {
	ID, Email, Password string
}

// cheapHash is an argon2id hash with tiny parameters, so tests sign in fast; CheckPassword
// reads the parameters from the hash.
func cheapHash(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, 1, 64, 1, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=64,t=1,p=1$%s$%s", argon2.Version,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

var userSeq sync.Mutex
var userN int

// addUser adds a member with a password to the env's workspace.
func (e *env) addUser(role, status string, grants map[string]string) user {
	e.t.Helper()
	userSeq.Lock()
	userN++
	n := userN
	userSeq.Unlock()
	u := user{Email: fmt.Sprintf("%s-%d-%d@example.test", role, time.Now().UnixNano(), n), Password: "correct horse battery"}
	id, err := e.store.AddMember(context.Background(), store.Member{WorkspaceID: e.WorkspaceID, Email: u.Email, Name: "Test " + role,
		Role: role, Status: status, Grants: grants, PasswordHash: cheapHash(u.Password)})
	if err != nil {
		e.t.Fatalf("add member: %v", err)
	}
	u.ID = id
	return u
}

func newEnv(t testing.TB, configure ...func(*oauth.Config)) *env {
	t.Helper()
	s := storetest.New(t)
	e := &env{t: t, store: s, clock: &testclock.Offset{}}
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, "Acme "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	e.WorkspaceID = ws
	e.Admin = e.addUser("admin", "active", nil)
	e.Member = e.addUser("member", "active", map[string]string{"crm": "full"})

	ts := httptest.NewUnstartedServer(nil)
	e.issuer = "http://" + ts.Listener.Addr().String()
	scopes := workspace.Scopes()
	cfg := oauth.Config{Store: s, Issuer: e.issuer, APIKey: testAPIKey, Scopes: scopes,
		GrantableScopes: workspace.GrantableScopes, DescribeScope: workspace.DescribeScope, Now: e.clock.Now, RefreshGrace: 30 * time.Second,
		Logger: slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	for _, c := range configure {
		c(&cfg)
	}
	if e.oauth, err = oauth.New(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	keys := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		return auth.Resolved(s.AgentKeyIdentity(ctx, bearer, scopes))
	})
	cache := workspace.NewCache(workspace.Prefixed{store.PrefixAgentKey: keys, store.PrefixAccessToken: e.oauth.Verifier()}, 30*time.Second)
	lctx, cancel := context.WithCancel(ctx)
	listening := make(chan struct{})
	var once sync.Once
	go s.ListenRevocations(lctx, cache.Flush, func(on bool) {
		cache.SetListening(on)
		if on {
			once.Do(func() { close(listening) })
		}
	})
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		t.Fatal("revocation listener did not start")
	}
	api := restapi.New(restapi.Config{Ops: workspace.NewOps(workspace.Config{Store: s}), Auth: cache, APIKey: testAPIKey, PublicURL: e.issuer})
	wk, err := wellknown.Handler(wellknown.NewAuthorizationServer(wellknown.ASConfig{Issuer: e.issuer, APIKey: testAPIKey, Scopes: scopes,
		GrantTypes: oauth.GrantTypes()}))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", http.StripPrefix("/v1", api.Handler()))
	mux.Handle("/oauth/", http.StripPrefix("/oauth", e.oauth.Handler()))
	mux.Handle("/.well-known/", wk)
	ts.Config.Handler = mux
	ts.Start()
	e.srv = ts
	t.Cleanup(func() { ts.Close(); cancel() })
	return e
}

// response is a decoded exchange.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

func (r response) str(key string) string { s, _ := r.Body[key].(string); return s }

func decode(t testing.TB, res *http.Response, err error) response {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// post sends a form (or JSON when form is a string) to an /oauth endpoint with the apikey
// header; headers are pairs.
func (e *env) post(path string, form url.Values, headers ...string) response {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("apikey", testAPIKey)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	res, err := noRedirect.Do(req)
	return decode(e.t, res, err)
}

func (e *env) postJSON(path string, body any, headers ...string) response {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(string(raw)))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := noRedirect.Do(req)
	return decode(e.t, res, err)
}

// me calls GET /v1/me with a bearer.
func (e *env) me(bearer string) response {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/me", nil)
	req.Header.Set("apikey", testAPIKey)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	return decode(e.t, res, err)
}

// register registers a public client dynamically and returns its id.
func (e *env) register(redirects ...string) string {
	e.t.Helper()
	r := e.postJSON("/oauth/register", map[string]any{"client_name": "Test App", "redirect_uris": redirects,
		"token_endpoint_auth_method": "none"})
	if r.Status != 201 {
		e.t.Fatalf("register: %d %s", r.Status, r.Raw)
	}
	return r.str("client_id")
}

// pkce returns a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return pkceFrom(base64.RawURLEncoding.EncodeToString(b))
}

func pkceFrom(verifier string) (string, string) {
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func storeMember(status string) store.Member { return store.Member{Status: status} }

func storeMemberGrants(g map[string]string) store.Member { return store.Member{Grants: g} }

// browser is a user agent with cookies that does not follow redirects, so each hop is seen.
type browser struct {
	t    testing.TB
	e    *env
	c    *http.Client
	last response
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (b *browser) get(u string) response {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = b.e.srv.URL + u
	}
	res, err := b.c.Get(u)
	b.last = decode(b.t, res, err)
	return b.last
}

func (b *browser) postForm(u string, form url.Values) response {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = b.e.srv.URL + u
	}
	res, err := b.c.PostForm(u, form)
	b.last = decode(b.t, res, err)
	return b.last
}

var hiddenRe = regexp.MustCompile(`name="([a-z_]+)" value="([^"]*)"`)

// hidden returns the hidden inputs of the last page.
func (b *browser) hidden() url.Values {
	v := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(b.last.Raw, -1) {
		if m[1] == "csrf" || m[1] == "request" || m[1] == "return" || m[1] == "client_id" {
			v.Set(m[1], html.UnescapeString(m[2]))
		}
	}
	return v
}

// login signs the browser in from the login page it was sent to and returns the response
// of following the sign-in's redirect once.
func (b *browser) login(u user) response {
	b.t.Helper()
	if b.last.Status != http.StatusFound || !strings.HasPrefix(b.last.Header.Get("Location"), "/oauth/login") {
		b.t.Fatalf("expected a redirect to the login page, got %d %s %s", b.last.Status, b.last.Header.Get("Location"), b.last.Raw)
	}
	b.get(b.last.Header.Get("Location"))
	form := b.hidden()
	form.Set("email", u.Email)
	form.Set("password", u.Password)
	r := b.postForm("/oauth/login", form)
	if r.Status != http.StatusSeeOther {
		b.t.Fatalf("login: %d %s", r.Status, r.Raw)
	}
	return b.get(r.Header.Get("Location"))
}

// authURL builds an authorization request.
func (e *env) authURL(clientID, redirect, challenge, scope, state string, extra ...string) string {
	q := url.Values{"client_id": {clientID}, "redirect_uri": {redirect}, "response_type": {"code"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state}}
	if scope != "" {
		q.Set("scope", scope)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			q.Del(extra[i])
		} else {
			q.Set(extra[i], extra[i+1])
		}
	}
	return "/oauth/authorize?" + q.Encode()
}

// approve answers the consent page on screen with the given scopes ticked (nil: the
// defaults as shown) and returns the redirect to the client.
func (b *browser) approve(scopes []string) *url.URL {
	b.t.Helper()
	if b.last.Status != 200 || !strings.Contains(b.last.Raw, `id="consent"`) {
		b.t.Fatalf("expected the consent page, got %d %s", b.last.Status, b.last.Raw)
	}
	form := b.hidden()
	form.Set("action", "approve")
	if scopes == nil {
		for _, m := range regexp.MustCompile(`name="scope" value="([^"]+)" id="[^"]+" checked`).FindAllStringSubmatch(b.last.Raw, -1) {
			form.Add("scope", m[1])
		}
	} else {
		form["scope"] = scopes
	}
	r := b.postForm("/oauth/authorize", form)
	if r.Status != http.StatusSeeOther {
		b.t.Fatalf("consent: %d %s", r.Status, r.Raw)
	}
	u, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		b.t.Fatal(err)
	}
	return u
}

// flow runs a whole authorization for client as u and returns the code and the verifier.
func (e *env) flow(b *browser, u user, clientID, redirect, scope string, ticked []string) (code, verifier string) {
	e.t.Helper()
	verifier, challenge := pkce()
	r := b.get(e.authURL(clientID, redirect, challenge, scope, "st-1"))
	if r.Status == http.StatusFound && strings.HasPrefix(r.Header.Get("Location"), "/oauth/login") {
		r = b.login(u)
	}
	var loc *url.URL
	if r.Status == http.StatusFound {
		loc, _ = url.Parse(r.Header.Get("Location"))
	} else {
		loc = b.approve(ticked)
	}
	code = loc.Query().Get("code")
	if code == "" {
		e.t.Fatalf("no code in %s", loc)
	}
	return code, verifier
}

// tokens is a token response.
type tokens struct {
	Access, Refresh, Scope string
}

func (e *env) exchange(clientID, code, verifier, redirect string) tokens {
	e.t.Helper()
	r := e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
		"client_id": {clientID}, "redirect_uri": {redirect}})
	if r.Status != 200 {
		e.t.Fatalf("exchange: %d %s", r.Status, r.Raw)
	}
	return tokens{r.str("access_token"), r.str("refresh_token"), r.str("scope")}
}

func (e *env) refresh(clientID, refresh string, extra ...string) response {
	e.t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}
	for i := 0; i+1 < len(extra); i += 2 {
		form.Set(extra[i], extra[i+1])
	}
	return e.post("/oauth/token", form)
}

// wantOAuthError asserts an OAuth error body.
func wantOAuthError(t testing.TB, r response, status int, code string) {
	t.Helper()
	if r.Status != status || r.str("error") != code {
		t.Fatalf("want %d %s, got %d %s", status, code, r.Status, r.Raw)
	}
	if r.str("error_description") == "" {
		t.Fatalf("error without error_description: %s", r.Raw)
	}
}

// tokensFor runs a flow and exchange for a fresh public client.
func (e *env) tokensFor(u user, scope string) (clientID string, tk tokens) {
	e.t.Helper()
	redirect := "https://app.example.com/callback"
	clientID = e.register(redirect)
	code, verifier := e.flow(e.browser(), u, clientID, redirect, scope, nil)
	return clientID, e.exchange(clientID, code, verifier, redirect)
}

// testLog sends the provider's warnings and errors to the test log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

var continueRe = regexp.MustCompile(`<a href="([^"]*)" id="continue"`)

// pageLink returns the link an error page offers back to the client.
func pageLink(t testing.TB, r response) *url.URL {
	t.Helper()
	m := continueRe.FindStringSubmatch(r.Raw)
	if m == nil {
		t.Fatalf("no link to the client on the page: %d %s", r.Status, r.Raw)
	}
	u, err := url.Parse(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return u
}
