package oauth_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/oauth"
)

// hostileValues are the inputs an attacker sends: NUL, invalid UTF-8, control and
// direction characters, markup, path tricks, huge values, and look-alikes of real ones.
func hostileValues() []string {
	return []string{
		"", "\x00", "a\x00b", "\xff\xfe", "\xc3\x28", "caf\xe9", "\u202egnp.exe", "\r\nSet-Cookie: x=1", "\t \v",
		"<script>alert(1)</script>", "' OR 1=1 --", "../../../etc/passwd", "%00", "%ff", "%%%garbage",
		"http://127.0.0.1:1/x", "javascript:alert(1)", "svcdyn_" + strings.Repeat("A", 24), "svc_rt_\x00", "svc_ac_\xff",
		"https://example.com/client.json\x00", strings.Repeat("A", 100<<10), strings.Repeat("é", 5000), "-1", "1e309",
		"deals:read\x00", "deals:read deals:read", "*:*", "null", "[]", "{}",
	}
}

// openLimiter allows every sign-in, so the run reaches the password check each time.
type openLimiter struct{}

func (openLimiter) AllowSignIn(context.Context, netip.Addr, string) (bool, error) { return true, nil }
func (openLimiter) SignInFailed(context.Context, netip.Addr, string) error        { return nil }
func (openLimiter) AllowUnknownAccount(context.Context) (bool, error)             { return true, nil }
func (openLimiter) AllowResetMail(context.Context, string) (bool, error)          { return true, nil }

// hostileRun counts answers and fails the test on any 5xx.
type hostileRun struct {
	t        *testing.T
	total    int
	byStatus map[int]int
}

func (h *hostileRun) check(what string, res *http.Response, err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	h.total++
	h.byStatus[res.StatusCode]++
	if res.StatusCode >= 500 {
		h.t.Errorf("%s: %d %.120q", what, res.StatusCode, body)
	}
}

// TestHostileInputOAuth sends generated hostile values in every parameter of every OAuth
// endpoint, signed out and signed in (member and admin, with valid CSRF tokens so forms get
// past the first check): no answer may be a 5xx.
func TestHostileInputOAuth(t *testing.T) {
	e := newEnv(t, func(c *oauth.Config) {
		c.RegisterLimiter = oauth.NewMemoryLimiter(1_000_000, time.Hour, nil)
		c.LoginLimiter = openLimiter{}
	})
	h := &hostileRun{t: t, byStatus: map[int]int{}}
	loopback := "http://127.0.0.1/callback"
	client := e.register(loopback)
	_, challenge := pkce()
	base := url.Values{"client_id": {client}, "redirect_uri": {loopback}, "response_type": {"code"}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "scope": {"deals:read"}, "state": {"s"}, "resource": {e.issuer + "/mcp"}}

	signedIn := func(u user) *browser {
		b := e.browser()
		b.get(e.authURL(client, loopback, challenge, "deals:read", "s"))
		b.login(u)
		return b
	}
	anonymous := e.browser()
	anonymous.get("/oauth/login")
	member, admin := signedIn(e.Member), signedIn(e.Admin)
	csrf := func(b *browser, page string) string {
		b.get(page)
		return b.hidden().Get("csrf")
	}

	send := func(b *browser, method, path, contentType, body string, headers ...string) {
		req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("apikey", testAPIKey)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := b.c.Do(req)
		h.check(method+" "+path[:min(len(path), 120)]+" "+body[:min(len(body), 120)], res, err)
	}
	form := func(b *browser, path string, v url.Values) {
		send(b, "POST", path, "application/x-www-form-urlencoded", v.Encode())
	}
	with := func(v url.Values, k, val string) url.Values {
		out := url.Values{}
		for kk, vv := range v {
			out[kk] = append([]string(nil), vv...)
		}
		out.Set(k, val)
		return out
	}

	for _, bad := range hostileValues() {
		// The authorization endpoint, each parameter in turn, signed out and signed in.
		for k := range base {
			q := with(base, k, bad).Encode()
			for _, b := range []*browser{anonymous, member} {
				send(b, "GET", "/oauth/authorize?"+q, "", "")
			}
			mc := csrf(member, "/oauth/apps")
			form(member, "/oauth/authorize", url.Values{"csrf": {mc}, "request": {q}, "action": {"approve"}, "scope": {"deals:read"}})
		}
		mc := csrf(member, "/oauth/apps")
		form(member, "/oauth/authorize", url.Values{"csrf": {mc}, "request": {bad}, "action": {"approve"}})
		form(member, "/oauth/authorize", url.Values{"csrf": {mc}, "request": {base.Encode()}, "action": {bad}, "scope": {bad}})
		form(member, "/oauth/authorize", url.Values{"csrf": {bad}, "request": {base.Encode()}, "action": {"approve"}})

		// Sign-in and sign-out.
		send(anonymous, "GET", "/oauth/login?return="+url.QueryEscape(bad), "", "")
		ac := csrf(anonymous, "/oauth/login")
		for _, f := range []string{"email", "password", "return", "csrf"} {
			v := url.Values{"csrf": {ac}, "email": {e.Member.Email}, "password": {"wrong password"}, "return": {"/oauth/apps"}}
			form(anonymous, "/oauth/login", with(v, f, bad))
		}
		form(anonymous, "/oauth/logout", url.Values{"csrf": {bad}})
		send(anonymous, "GET", "/oauth/upstream/start?return="+url.QueryEscape(bad), "", "")
		send(anonymous, "GET", "/oauth/upstream/callback?state="+url.QueryEscape(bad)+"&code="+url.QueryEscape(bad), "", "")

		// Token and revocation endpoints, form and JSON, every field and Basic credentials.
		tokenForms := []url.Values{
			{"grant_type": {"authorization_code"}, "code": {"svc_ac_x"}, "code_verifier": {"v"}, "client_id": {client}, "redirect_uri": {loopback}},
			{"grant_type": {"refresh_token"}, "refresh_token": {"svc_rt_x"}, "client_id": {client}, "scope": {"deals:read"}, "resource": {e.issuer}},
		}
		for _, tf := range tokenForms {
			for k := range tf {
				form(anonymous, "/oauth/token", with(tf, k, bad))
			}
			form(anonymous, "/oauth/token", with(tf, "client_secret", bad))
		}
		basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(bad) + ":" + url.QueryEscape(bad)))
		send(anonymous, "POST", "/oauth/token", "application/x-www-form-urlencoded", tokenForms[1].Encode(), "Authorization", "Basic "+basic)
		if !strings.ContainsFunc(bad, func(r rune) bool { return r < ' ' || r == 0x7f }) { // no client sends those in a header
			send(anonymous, "POST", "/oauth/token", "application/x-www-form-urlencoded", tokenForms[1].Encode(), "Authorization", "Basic "+bad)
		}
		for _, f := range []string{"token", "token_type_hint", "client_id"} {
			form(anonymous, "/oauth/revoke", with(url.Values{"token": {"svc_rt_x"}, "client_id": {client}}, f, bad))
		}
		js := jsonString(bad)
		send(anonymous, "POST", "/oauth/token", "application/json", `{"grant_type":"refresh_token","client_id":`+js+`,"refresh_token":`+js+`}`)

		// Registration: each member a hostile string, inside and outside lists.
		for _, f := range []string{"client_name", "token_endpoint_auth_method", "scope", "logo_uri", "client_uri"} {
			send(anonymous, "POST", "/oauth/register", "application/json", `{"redirect_uris":["`+loopback+`"],"`+f+`":`+js+`}`)
		}
		for _, f := range []string{"redirect_uris", "grant_types", "response_types"} {
			send(anonymous, "POST", "/oauth/register", "application/json", `{"redirect_uris":["`+loopback+`"],"`+f+`":[`+js+`]}`)
		}

		// Connected apps and admin apps, with the page's own CSRF token.
		form(member, "/oauth/apps/revoke", url.Values{"csrf": {csrf(member, "/oauth/apps")}, "client_id": {bad}})
		adm := csrf(admin, "/oauth/admin/apps")
		app := url.Values{"csrf": {adm}, "name": {"App"}, "redirect_uris": {"https://app.example/cb"}, "logo_uri": {""}, "client_uri": {""}}
		for _, f := range []string{"name", "redirect_uris", "logo_uri", "client_uri", "confidential"} {
			form(admin, "/oauth/admin/apps", with(app, f, bad))
		}
		form(admin, "/oauth/admin/apps/rotate", url.Values{"csrf": {adm}, "client_id": {bad}})
		form(admin, "/oauth/admin/apps/disable", url.Values{"csrf": {adm}, "client_id": {bad}})
	}

	// Bodies that are not what the endpoint reads: wrong types, deep, huge, broken.
	bodies := []string{"", "null", "[]", "0", `"x"`, "{", `{"redirect_uris":"x"}`, `{"redirect_uris":[1,2]}`,
		`{"redirect_uris":[null]}`, `{"redirect_uris":[{}]}`, `{"client_name":123}`, `{"client_name":{"a":1}}`,
		`{"scope":["deals:read"]}`, `{"redirect_uris":["` + loopback + `"],"client_name":"a\u0000b"}`,
		`{"redirect_uris":["` + loopback + `"],"client_name":"\ud800"}`, "{\"client_name\":\"\xff\xfe\"}",
		strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), `{"a":` + strings.Repeat(`{"a":`, 10_000) + "1" + strings.Repeat("}", 10_001),
		`{"client_name":"` + strings.Repeat("A", 600<<10) + `"}`, `{"redirect_uris":["` + loopback + `"]} trailing`,
		`{"grant_type":1,"client_id":true}`, `{"grant_type":["refresh_token"],"refresh_token":{"x":1}}`}
	for _, body := range bodies {
		for _, path := range []string{"/oauth/register", "/oauth/token", "/oauth/revoke"} {
			send(anonymous, "POST", path, "application/json", body)
			send(anonymous, "POST", path, "application/x-www-form-urlencoded", body)
		}
	}
	// Query strings that do not parse, and repeated parameters.
	for _, raw := range []string{"%%%garbage", "client_id=%ff%fe", "client_id=%00", "client_id=a&client_id=b",
		"redirect_uri=a&redirect_uri=b&client_id=" + client, base.Encode() + "&scope=x", base.Encode() + "&resource=a&resource=b",
		"client_id=" + client + "&redirect_uri=" + url.QueryEscape(loopback) + "&%zz=1"} {
		for _, b := range []*browser{anonymous, member} {
			send(b, "GET", "/oauth/authorize?"+raw, "", "")
		}
		send(anonymous, "GET", "/oauth/login?"+raw, "", "")
		send(anonymous, "POST", "/oauth/token?"+raw, "application/x-www-form-urlencoded", raw)
	}
	t.Logf("%d hostile requests, answers by status: %v", h.total, h.byStatus)
}

// jsonString writes s as a JSON string the way an attacker would: NUL as \u0000, invalid
// UTF-8 bytes raw.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteString(`\` + string(c))
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
