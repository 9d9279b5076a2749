package console_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"golang.org/x/crypto/argon2"

	"github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/console"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/imports"
	"github.com/agencyos/workspaced/internal/testclock"
	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/queue"
	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const testAPIKey = "pk_test_routing_key"

// env is the provider, the REST API and the console on one test server, wired as cmd
// wires them.
type env struct {
	t      testing.TB
	store  *store.Store
	srv    *httptest.Server
	clock  *testclock.Offset
	ops    *admin.Ops
	usage  *workspace.Usage
	hooks  *webhooks.Service     // delivery, not running until startDelivery
	river  *river.Client[pgx.Tx] // the import jobs, not running until startImports
	issuer string

	WorkspaceID string
	Admin       user
	Member      user
}

// user is a member who can sign in with a password.
type user struct {
	ID, Email, Password string
}

// cheapHash is an argon2id hash with tiny parameters, so tests sign in fast; the
// provider reads the parameters from the hash.
func cheapHash(password string) (string, error) {
	if len(password) < 8 {
		return "", fmt.Errorf("password: at least 8 characters")
	}
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, 1, 64, 1, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=64,t=1,p=1$%s$%s", argon2.Version,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

var userN atomic.Int64

// uniqueEmail is an address starting with local that no other test, nor this one run
// again in the same process (go test -count=2) or the same database, has used: emails are
// unique across workspaces (users_email).
func uniqueEmail(local string) string {
	return fmt.Sprintf("%s-%d-%d@example.test", local, time.Now().UnixNano(), userN.Add(1))
}

// addUser adds a member with a password to workspace ws.
func (e *env) addUser(ws, role, status string, grants map[string]string) user {
	e.t.Helper()
	u := user{Email: uniqueEmail(role), Password: "correct horse battery"}
	hash, _ := cheapHash(u.Password)
	id, err := e.store.AddMember(context.Background(), store.Member{WorkspaceID: ws, Email: u.Email, Name: "Test " + role,
		Role: role, Status: status, Grants: grants, PasswordHash: hash})
	if err != nil {
		e.t.Fatalf("add member: %v", err)
	}
	u.ID = id
	return u
}

// newEnv starts the server; configure may set a Mailer on the admin operations.
func newEnv(t testing.TB, configure ...func(*admin.Config)) *env {
	t.Helper()
	s := storetest.New(t)
	e := &env{t: t, store: s, clock: &testclock.Offset{}}
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, "Acme "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	e.WorkspaceID = ws
	e.Admin = e.addUser(ws, "admin", "active", nil)
	e.Member = e.addUser(ws, "member", "active", map[string]string{"crm": "full"})

	ts := httptest.NewUnstartedServer(nil)
	e.issuer = "http://" + ts.Listener.Addr().String()
	log := slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	scopes := workspace.Scopes()
	acfg := admin.Config{Store: s, PublicURL: e.issuer, ServiceName: "Acme Console", HashPassword: cheapHash, Now: e.clock.Now, Logger: log}
	for _, c := range configure {
		c(&acfg)
	}
	ocfg := oauth.Config{Store: s, Issuer: e.issuer, APIKey: testAPIKey, Scopes: scopes,
		GrantableScopes: workspace.GrantableScopes, Now: e.clock.Now, ServiceName: "Acme Console", Logger: log,
		ClientIP: testClientIP, DescribeScope: workspace.DescribeScope, ConnectedAppsURL: console.Path + "/account"} // as cmd wires them
	if acfg.Mailer != nil {
		ocfg.PasswordResetURL = console.Path + "/forgot" // as cmd does when SMTP_URL is set
	}
	provider, err := oauth.New(ctx, ocfg)
	if err != nil {
		t.Fatal(err)
	}
	keys := workspace.AuthenticatorFunc(func(ctx context.Context, bearer string) (*auth.Principal, error) {
		return auth.Resolved(s.AgentKeyIdentity(ctx, bearer, scopes))
	})
	cache := workspace.NewCache(workspace.Prefixed{store.PrefixAgentKey: keys, store.PrefixAccessToken: provider.Verifier()}, 30*time.Second)
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
	e.ops = admin.New(acfg)
	e.usage = workspace.NewUsage(s, log, nil)
	auth := e.usage.Counted(cache)
	// Webhook delivery runs, allowing loopback receivers (webhooks' tests' loopbackPolicy).
	hookURLs := webhooks.URLPolicy{LoopbackHTTP: true}
	hooks, err := webhooks.New(webhooks.Config{Store: s, URLs: hookURLs, Poll: 20 * time.Millisecond, Timeout: 2 * time.Second,
		Logger: log, Columns: workspace.ColumnsOf})
	if err != nil {
		t.Fatal(err)
	}
	e.hooks = hooks
	ops := workspace.NewOps(workspace.Config{Store: s, WebhookURLs: &hookURLs, Webhooks: hooks})
	api := restapi.New(restapi.Config{Ops: ops, Auth: auth, APIKey: testAPIKey, PublicURL: e.issuer})
	importer := imports.New(imports.Config{Store: s, Status: httpx.Status})
	importer.UseOps(ops)
	workers := river.NewWorkers()
	e.river, err = river.NewClient(queue.Driver(s), &river.Config{Queues: importer.Register(workers), Workers: workers,
		FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	importer.Use(e.river)
	api.ServeImports(importer)
	c, err := console.New(console.Config{Sessions: provider, Admin: e.ops, Workspaces: s, ServiceName: "Acme Console",
		DescribeScope: workspace.DescribeScope, Records: ops, Imports: importer, PublicURL: e.issuer, Logger: log}) // as cmd wires it
	if err != nil {
		t.Fatal(err)
	}
	tools, err := mcp.New(mcp.Config{PublicURL: e.issuer, Auth: auth, Ops: ops, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(mcp.Path, tools.Handler())
	mux.Handle("/v1/", http.StripPrefix("/v1", api.Handler()))
	mux.Handle("/oauth/", http.StripPrefix("/oauth", provider.Handler()))
	mux.Handle("/console/", c.Handler())
	mux.Handle("/console", c.Handler())
	ts.Config.Handler = mux
	ts.Start()
	e.srv = ts
	t.Cleanup(func() { ts.Close(); cancel() })
	return e
}

// startDelivery runs webhook delivery until the test ends.
func (e *env) startDelivery() {
	e.t.Helper()
	if err := e.hooks.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = e.hooks.Stop(context.Background()) })
}

// startImports runs the import jobs until the test ends.
func (e *env) startImports() {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if err := e.river.Start(ctx); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		cancel()
		stop, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = e.river.Stop(stop)
	})
}

// clientIPHeader names, in these tests only, the client address a request stands for, so
// one test can ask from many addresses (cmd reads it from TRUSTED_PROXIES' headers).
const clientIPHeader = "X-Test-Client-IP"

func testClientIP(r *http.Request) netip.Addr {
	if a, err := netip.ParseAddr(r.Header.Get(clientIPHeader)); err == nil {
		return a
	}
	ap, _ := netip.ParseAddrPort(r.RemoteAddr)
	return ap.Addr()
}

// testLog sends warnings and errors to the test log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// page is an HTTP answer with its body.
type page struct {
	Status   int
	Location string
	Body     string
}

// agent is an HTTP user agent with cookies that does not follow redirects.
type agent struct {
	t testing.TB
	e *env
	c *http.Client
}

func (e *env) agent() *agent {
	jar, _ := cookiejar.New(nil)
	return &agent{t: e.t, e: e, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (a *agent) do(req *http.Request) page {
	a.t.Helper()
	res, err := a.c.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return page{Status: res.StatusCode, Location: res.Header.Get("Location"), Body: string(b)}
}

func (a *agent) get(path string) page {
	a.t.Helper()
	req, _ := http.NewRequest("GET", a.e.srv.URL+path, nil)
	return a.do(req)
}

// post sends a form; headers are pairs.
func (a *agent) post(path string, form url.Values, headers ...string) page {
	a.t.Helper()
	req, _ := http.NewRequest("POST", a.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return a.do(req)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the CSRF token of a page's forms.
func csrf(t testing.TB, p page) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no csrf token on the page (status %d): %.300s", p.Status, p.Body)
	}
	return html.UnescapeString(m[1])
}

// signIn signs the agent in with the password form and returns it.
func (a *agent) signIn(u user) *agent {
	a.t.Helper()
	login := a.get("/oauth/login?return=/console")
	res := a.post("/oauth/login", url.Values{"csrf": {csrf(a.t, login)}, "return": {"/console"}, "email": {u.Email},
		"password": {u.Password}})
	if res.Status != http.StatusSeeOther || res.Location != "/console" {
		a.t.Fatalf("sign-in as %s: %d %s %.300s", u.Email, res.Status, res.Location, res.Body)
	}
	return a
}

// form posts a console form with the token of the page at from.
func (a *agent) form(from, path string, form url.Values) page {
	a.t.Helper()
	form.Set("csrf", csrf(a.t, a.get(from)))
	return a.post(path, form)
}

// count runs a counting query on the package database.
func (e *env) count(sql string, args ...any) int {
	e.t.Helper()
	var n int
	if err := storetest.Pool(e.t).QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// newBrowser starts headless Chromium with its own profile (tooltest.Chromium, which the
// MCP views test shares) and returns a context for it.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	return tooltest.Chromium(t, 120*time.Second)
}

// run runs chromedp actions, failing the test with what on error.
func run(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %s: %v", what, err)
	}
}

// browserSignIn signs in through the sign-in page the console sends the browser to.
func browserSignIn(t testing.TB, ctx context.Context, base string, u user) {
	t.Helper()
	run(t, ctx, "sign in as "+u.Email,
		chromedp.Navigate(base+"/console"),
		chromedp.WaitVisible(chromedp.CSS("#login")),
		chromedp.SendKeys(chromedp.CSS("#email"), u.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), u.Password),
		chromedp.Click(chromedp.CSS("#sign-in")),
		chromedp.WaitVisible(chromedp.CSS("#whoami")),
	)
}
