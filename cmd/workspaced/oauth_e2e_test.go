package main

import (
	"bytes"
	"context"
	"crypto/rand"
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
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/argon2"
	"golang.org/x/oauth2"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

const e2eAPIKey = "pk_e2e_routing_key"

// startServer runs the real routes() of the process over the test database.
func startServer(t *testing.T) (*httptest.Server, *store.Store) {
	t.Helper()
	return startServerWith(t, func(*config) {})
}

// startServerWith is startServer with edit applied to the configuration.
func startServerWith(t *testing.T, edit func(*config)) (*httptest.Server, *store.Store) {
	t.Helper()
	ts, s, _ := newTestServer(t, edit)
	return ts, s
}

// newTestServer is startServerWith that also returns the server it runs.
func newTestServer(t testing.TB, edit func(*config)) (*httptest.Server, *store.Store, *server) {
	t.Helper()
	s := storetest.New(t)
	ts := httptest.NewUnstartedServer(nil)
	cfg := config{PublicURL: "http://" + ts.Listener.Addr().String(), RefreshGrace: 30 * time.Second, OIDCName: "SSO"}
	edit(&cfg)
	srv := &server{cfg: cfg, log: slog.New(slog.DiscardHandler), store: s, apiKey: e2eAPIKey, reg: prometheus.NewRegistry()}
	srv.metrics = newHTTPMetrics(srv.reg)
	ctx, cancel := context.WithCancel(context.Background())
	handler, background, err := srv.routes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range background {
		go l.run(ctx)
	}
	ts.Config.Handler = handler
	ts.Start()
	t.Cleanup(func() { ts.Close(); cancel() })
	return ts, s, srv
}

// testMember adds a member with a password hashed cheaply (CheckPassword reads the
// argon2id parameters from the hash).
func testMember(t *testing.T, s *store.Store, role string, grants map[string]string) (email, password string) {
	t.Helper()
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, "E2E "+t.Name(), store.By{})
	if err != nil {
		t.Fatal(err)
	}
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	password = "e2e password 1"
	hash := fmt.Sprintf("$argon2id$v=19$m=64,t=1,p=1$%s$%s", base64.RawStdEncoding.EncodeToString(salt),
		base64.RawStdEncoding.EncodeToString(argon2.IDKey([]byte(password), salt, 1, 64, 1, 32)))
	email = fmt.Sprintf("e2e-%d@example.test", time.Now().UnixNano())
	if _, err := s.AddMember(ctx, store.Member{WorkspaceID: ws, Email: email, Role: role, Grants: grants, PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	return email, password
}

var hiddenInput = regexp.MustCompile(`name="(csrf|request|return)" value="([^"]*)"`)

func hiddenFields(page string) url.Values {
	v := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// signInAndApprove plays a browser through the service's pages at origin: it opens authURL,
// signs in as email, approves scopes (nil: the ones authURL asks for) on the consent page
// and returns where the service redirected it outside origin (the client's redirect URI,
// not followed), and the consent page.
func signInAndApprove(t *testing.T, origin, authURL, email, password string, scopes []string) (*url.URL, string) {
	t.Helper()
	if scopes == nil {
		asked, _ := url.Parse(authURL)
		scopes = strings.Fields(asked.Query().Get("scope"))
	}
	jar, _ := cookiejar.New(nil)
	var landed *url.URL
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if !strings.HasPrefix(req.URL.String(), origin+"/") {
			landed = req.URL // the client's redirect: stop here
			return http.ErrUseLastResponse
		}
		return nil
	}}
	page := func(res *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	login := page(browser.Get(authURL))
	if !strings.Contains(login, `id="login"`) {
		t.Fatalf("expected the login page: %s", login)
	}
	form := hiddenFields(login)
	form.Set("email", email)
	form.Set("password", password)
	consent := page(browser.PostForm(origin+"/oauth/login", form))
	if !strings.Contains(consent, `id="consent"`) {
		t.Fatalf("expected the consent page: %s", consent)
	}
	form = hiddenFields(consent)
	form.Set("action", "approve")
	form["scope"] = scopes
	page(browser.PostForm(origin+"/oauth/authorize", form))
	if landed == nil {
		t.Fatal("no redirect to the client")
	}
	return landed, consent
}

// TestOAuthEndToEnd is the whole flow through the process's real wiring, with
// golang.org/x/oauth2 as the client and a cookie-jar HTTP client as the browser: discovery,
// registration, sign-in, consent, exchange, /v1/me, refresh, /v1/me again, revocation.
// getMe calls GET /v1/me at base with access and returns the status and the body.
func getMe(t *testing.T, base, access string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/me", nil)
	req.Header.Set("apikey", e2eAPIKey)
	req.Header.Set("Authorization", "Bearer "+access)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func TestOAuthEndToEnd(t *testing.T) {
	ts, s := startServer(t)
	email, password := testMember(t, s, "member", map[string]string{"crm": "full"})
	ctx := context.Background()

	var meta struct {
		Issuer, AuthorizationEndpoint, TokenEndpoint, RevocationEndpoint, RegistrationEndpoint string
	}
	res, err := http.Get(ts.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	_ = json.NewDecoder(res.Body).Decode(&raw)
	res.Body.Close()
	meta.Issuer, _ = raw["issuer"].(string)
	meta.AuthorizationEndpoint, _ = raw["authorization_endpoint"].(string)
	meta.TokenEndpoint, _ = raw["token_endpoint"].(string)
	meta.RevocationEndpoint, _ = raw["revocation_endpoint"].(string)
	meta.RegistrationEndpoint, _ = raw["registration_endpoint"].(string)
	if meta.Issuer != ts.URL || !strings.HasSuffix(meta.TokenEndpoint, "/oauth/token?apikey="+e2eAPIKey) || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
		fmt.Sprint(raw["grant_types_supported"]) != "[authorization_code refresh_token]" {
		t.Fatalf("metadata: %v", raw)
	}

	redirect := "http://127.0.0.1/callback"
	body, _ := json.Marshal(map[string]any{"client_name": "E2E CLI", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	res, err = http.Post(meta.RegistrationEndpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string]any
	_ = json.NewDecoder(res.Body).Decode(&reg)
	res.Body.Close()
	clientID, _ := reg["client_id"].(string)
	if res.StatusCode != 201 || clientID == "" {
		t.Fatalf("register: %d %v", res.StatusCode, reg)
	}

	conf := &oauth2.Config{ClientID: clientID, RedirectURL: "http://127.0.0.1:49152/callback",
		Endpoint: oauth2.Endpoint{AuthURL: meta.AuthorizationEndpoint, TokenURL: meta.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams},
		Scopes:   []string{"deals:read", "deals:write", "people:read"}}
	verifier := oauth2.GenerateVerifier()
	state := "e2e-state"
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))

	landed, consent := signInAndApprove(t, ts.URL, authURL, email, password, []string{"deals:read", "people:read"}) // deals:write unticked
	if !strings.Contains(consent, "E2E CLI") {
		t.Fatalf("the consent page does not name the client: %s", consent)
	}
	if landed.Query().Get("state") != state || landed.Query().Get("iss") != ts.URL {
		t.Fatalf("redirect to the client: %v", landed)
	}

	tok, err := conf.Exchange(ctx, landed.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if tok.Extra("scope") != "deals:read people:read" || tok.TokenType != "Bearer" || time.Until(tok.Expiry) < 59*time.Minute {
		t.Fatalf("token: %+v scope %v", tok, tok.Extra("scope"))
	}
	me := func(access string) (int, map[string]any) { return getMe(t, ts.URL, access) }
	status, body1 := me(tok.AccessToken)
	if status != 200 {
		t.Fatalf("/v1/me: %d %v", status, body1)
	}
	data := body1["data"].(map[string]any)
	if fmt.Sprint(data["scopes"]) != "[deals:read people:read]" || data["user"].(map[string]any)["email"] != email {
		t.Fatalf("/v1/me: %v", data)
	}

	// x/oauth2 refreshes an expired token by itself.
	expired := &oauth2.Token{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: time.Now().Add(-time.Minute)}
	fresh, err := conf.TokenSource(ctx, expired).Token()
	if err != nil {
		t.Fatal(err)
	}
	if fresh.AccessToken == tok.AccessToken || fresh.RefreshToken == tok.RefreshToken {
		t.Fatal("refresh did not rotate")
	}
	if status, body := me(fresh.AccessToken); status != 200 {
		t.Fatalf("/v1/me with the refreshed token: %d %v", status, body)
	}

	// Revocation of the refresh token kills the family (both access tokens).
	res, err = http.PostForm(meta.RevocationEndpoint, url.Values{"token": {fresh.RefreshToken}, "client_id": {clientID}})
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", res, err)
	}
	res.Body.Close()
	deadline := time.Now().Add(3 * time.Second)
	for {
		s1, _ := me(fresh.AccessToken)
		s2, _ := me(tok.AccessToken)
		if s1 == 401 && s2 == 401 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after revocation: %d %d", s1, s2)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAdminCreateApp is `workspaced admin create-app`.
func TestAdminCreateApp(t *testing.T) {
	s := storetest.New(t)
	dsn := storetest.DSN(t)
	ws, err := s.CreateWorkspace(context.Background(), "CLI", store.By{})
	if err != nil {
		t.Fatal(err)
	}
	runAdmin := func(args ...string) (int, map[string]string, string) {
		var out, errOut bytes.Buffer
		code := admin(context.Background(), append(args, "--database-url", dsn), &out, &errOut)
		var m map[string]string
		_ = json.Unmarshal(out.Bytes(), &m)
		return code, m, errOut.String()
	}
	code, m, errOut := runAdmin("create-app", "--workspace", ws, "--name", "Sync", "--redirect-uri", "https://a.example/cb",
		"--redirect-uri", "http://localhost/cb", "--confidential")
	if code != 0 || !strings.HasPrefix(m["client_id"], "svcapp_") || !strings.HasPrefix(m["client_secret"], "svc_sk_") {
		t.Fatalf("confidential: %d %v %s", code, m, errOut)
	}
	code, m, errOut = runAdmin("create-app", "--workspace", ws, "--name", "Public", "--redirect-uri", "com.example.app:/cb")
	if _, has := m["client_secret"]; code != 0 || has || m["client_id"] == "" {
		t.Fatalf("public: %d %v %s", code, m, errOut)
	}
	for _, bad := range [][]string{
		{"create-app", "--workspace", ws, "--name", "X"},
		{"create-app", "--workspace", ws, "--name", "X", "--redirect-uri", "http://a.example/cb"},
		{"create-app", "--workspace", "nope", "--name", "X", "--redirect-uri", "https://a.example/cb"},
		{"create-app", "--workspace", ws, "--redirect-uri", "https://a.example/cb"},
		{"create-app", "--workspace", "00000000-0000-0000-0000-000000000000", "--name", "X", "--redirect-uri", "https://a.example/cb"},
	} {
		if code, _, errOut := runAdmin(bad...); code != 2 {
			t.Fatalf("%v: exit %d (%s), want 2", bad, code, errOut)
		}
	}
}
