package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store/storetest"
)

// shellBlocks returns the fenced sh blocks of a page (README.md, docs/*.md), in order.
func shellBlocks(t *testing.T, page string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(raw), -1) {
		out = append(out, m[1])
	}
	return out
}

// docShell runs the user pages' shell blocks, each as printed, in one bash session per
// page: the variables one block sets are there for the next, as in a reader's terminal.
// Only what a reader replaces is replaced: the server's address for localhost:8080, and
// the values the page says to paste (pk_..., kagt_..., svc_at_...).
type docShell struct {
	t      *testing.T
	page   string
	blocks []string
	origin string
	values map[string]string // placeholder -> value
	env    []string
	state  string // file holding the session's variables between blocks (the docs use $STATE themselves)
}

func newDocShell(t *testing.T, page, origin string, values map[string]string, env ...string) *docShell {
	return &docShell{t: t, page: page, blocks: shellBlocks(t, page), origin: origin, values: values, env: env,
		state: filepath.Join(t.TempDir(), "state.sh")}
}

// run runs the page's block that starts with first, after set sets variables a reader
// copies from an earlier answer, and returns its standard output. The block must exit 0
// and print each of want.
func (d *docShell) run(first string, set map[string]string, want ...string) string {
	t := d.t
	t.Helper()
	var block string
	for _, b := range d.blocks {
		if strings.HasPrefix(b, first) {
			if block != "" {
				t.Fatalf("%s: two sh blocks start with %q", d.page, first)
			}
			block = b
		}
	}
	if block == "" {
		t.Fatalf("%s has no sh block starting with %q", d.page, first)
	}
	host := strings.TrimPrefix(d.origin, "http://")
	text := strings.NewReplacer("http://localhost:8080", d.origin, "http://127.0.0.1:8080", d.origin,
		"localhost:8080", host).Replace(block)
	for placeholder, v := range d.values {
		text = strings.ReplaceAll(text, placeholder, v)
	}
	var script strings.Builder
	script.WriteString("set -eo pipefail\n[ -f \"$DOCS_SESSION_FILE\" ] && source \"$DOCS_SESSION_FILE\"\n")
	for k, v := range set {
		script.WriteString(k + "=" + shellQuote(v) + "\n")
	}
	script.WriteString(text)
	script.WriteString("\n{ for v in $(compgen -v | grep -E '^[A-Z][A-Z_]*$|^(cursor|since|page)$'); do case $v in BASH*|SHELL*|PATH|HOME|PWD|OLDPWD|SHLVL|DOCS_SESSION_FILE|UID|EUID|PPID|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE|IFS|PS4|OPTIND|OPTERR|DIRSTACK|GROUPS|PIPESTATUS|COLUMNS|LINES|RANDOM|SECONDS|LINENO|SRANDOM|EPOCH*|HISTCMD|FUNCNAME|COMP*|_) ;; *) declare -p \"$v\" 2>/dev/null | sed 's/^declare -[a-zA-Z-]* /declare -g /' ;; esac; done; } > \"$DOCS_SESSION_FILE.new\"\nmv \"$DOCS_SESSION_FILE.new\" \"$DOCS_SESSION_FILE\"\n")
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "DOCS_SESSION_FILE="+d.state), d.env...)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if e, ok := err.(*exec.ExitError); ok {
			stderr = string(e.Stderr)
		}
		t.Fatalf("%s, the block starting %q: %v\n%s\nstdout: %.2000s\nstderr: %.2000s", d.page, first, err, text, out, stderr)
	}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("%s, the block starting %q printed no %q:\n%.3000s", d.page, first, w, out)
		}
	}
	return string(out)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestDocShellCommands runs the shell commands of README.md, docs/rest.md,
// docs/zero-to-crm.md, docs/webhooks.md and docs/oauth.md as printed, against the server's real wiring on the
// demo workspace, with the admin CLI built as the README says. docs/architecture.md lists
// which commands other tests run and which none can.
func TestDocShellCommands(t *testing.T) {
	tooltest.Require(t, "bash, curl, jq and openssl, the docs' commands' tools")
	for _, tool := range []string{"bash", "curl", "jq", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the docs' commands need %s: %v", tool, err)
		}
	}
	ts, s := startServer(t)
	ctx := context.Background()
	demo, err := s.SeedDemo(ctx, oauth.HashPassword)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t) // README.md: go build -o workspaced ./cmd/workspaced
	path := "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	values := map[string]string{"pk_...": e2eAPIKey, "kagt_...": demo.AgentKey}
	env := []string{path, "DATABASE_URL=" + storetest.DSN(t), "APIKEY=" + e2eAPIKey, "AGENT_KEY=" + demo.AgentKey,
		"KEY=" + demo.AgentKey, "WORKSPACE_ID=" + demo.WorkspaceID}

	t.Run("README.md", func(t *testing.T) {
		sh := newDocShell(t, "README.md", ts.URL, values, env...)
		sh.run(`curl -s -H "apikey: $APIKEY" -H "Authorization: Bearer $AGENT_KEY"`, nil, `"name":"Northwind website relaunch"`)
		sh.run(`H=(-H "apikey: $APIKEY" -H "Authorization: Bearer $KEY")`, nil,
			`"id":"`+demo.WorkspaceID+`"`, `"next_cursor":"`, `"name":"Globex"`, `"industry":"Energy"`)
	})

	t.Run("docs/rest.md", func(t *testing.T) {
		token := adminToken(t, ts.URL, demo.AdminEmail, demo.AdminPassword, "tasks:read")
		sh := newDocShell(t, "docs/rest.md", ts.URL, map[string]string{"pk_...": e2eAPIKey, "kagt_...": demo.AgentKey,
			`"Authorization: Bearer svc_at_..."`: `"Authorization: Bearer ` + token + `"`}, env...)
		sh.run("BASE=http://localhost:8080/v1", nil)
		sh.run("PIPELINE_ID=$(curl", nil, `{"data":[{"id":"`)
		if n := strings.Count(sh.run(`cursor=""`, nil), "\n"); n != 30 {
			t.Errorf("the paging loop printed %d deals, want the demo's 30", n)
		}
		sh.run("DEAL_ID=$(curl", nil, `"confidence":0.8`)
		sh.run(`curl -s -H "Authorization: Bearer svc_at_..."`, nil, `{"data":[{"id":"`)
		sh.run("PERSON_ID=$(curl", nil, `"detached":true`)
		sh.run(`curl -s "${H[@]}" -H 'Content-Type: application/json' -X POST "$BASE/deal_tasks"`, nil,
			`"error":"validation_error"`, `"field":"deal_id"`)
		sh.run("KEY=$(openssl rand -hex 16)", nil, "HTTP/1.1 201 Created", "Idempotent-Replayed: true")
		sh.run("ETAG=$(curl", nil, "HTTP/1.1 304 Not Modified")
		sh.run(`curl -s "${H[@]}" -H 'Content-Type: application/json' -H "If-Match: $ETAG"`, nil,
			`"confidence":0.9`, `"error":"precondition_failed"`)
		sh.run("since=2026-11-21T09:00:00Z", nil, `"name":"Northwind website relaunch"`)
		sh.run("# The biggest open deal", nil, `"name":"Northwind website relaunch"`, `"outcome":"won"`)
		sh.run("# Text search", nil, `"name":"Globex`)
	})

	t.Run("docs/zero-to-crm.md", func(t *testing.T) {
		// Run from the repository's root, as the page says: the sample file is there.
		sample, err := filepath.Abs(filepath.Join("..", "..", "docs", "samples", "contacts.csv"))
		if err != nil {
			t.Fatal(err)
		}
		values := map[string]string{"pk_...": e2eAPIKey, "@docs/samples/contacts.csv": "@" + sample}
		sh := newDocShell(t, "docs/zero-to-crm.md", ts.URL, values, env...)
		sh.run("APIKEY=pk_...", nil, `{"workspace":"Acme Agency","member":"Assistant"}`)
		// The admin's access token the page asks for (docs/oauth.md's flow, played here).
		values["svc_at_..."] = adminToken(t, ts.URL, "you@acme.example", "a long passphrase of your own",
			"directory:read directory:write people:read people:write")
		sh.run("ADMIN=(", nil, `{"key":"lead_source","type":"select"}`, `{"key":"budget","type":"number"}`)
		sh.run("MAPPING=", nil, `{"status":201,"name":"Quinn Moreau","custom_fields":{"budget":27500,"lead_source":"outbound"}}`,
			`{"status":"completed","rows_read":300,"rows_created":300,"rows_updated":0,"rows_failed":0}`)
		out := sh.run("ask() {", nil, "every row: company=Northwind", "Tara Haddad\tStark Textiles\t{\"budget\":100000}", "every row: company=Initech")
		if strings.Contains(out, `"error"`) {
			t.Errorf("a tool call of docs/zero-to-crm.md failed:\n%s", out)
		}
	})

	t.Run("docs/webhooks.md", func(t *testing.T) {
		token := adminToken(t, ts.URL, demo.AdminEmail, demo.AdminPassword, "webhooks:read webhooks:write")
		// The reader's own endpoint: here a receiver on loopback, which a loopback
		// PUBLIC_URL allows (hooks.example.com does not resolve).
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
		t.Cleanup(receiver.Close)
		sh := newDocShell(t, "docs/webhooks.md", ts.URL, map[string]string{"pk_...": e2eAPIKey, "svc_at_...": token,
			"https://hooks.example.com/workspaced": receiver.URL + "/workspaced"}, env...)
		sh.run("APIKEY=pk_...", nil, `"secret":"whsec_`, `"events":["deals.*","tasks.updated"]`)
	})

	t.Run("docs/oauth.md", func(t *testing.T) {
		sh := newDocShell(t, "docs/oauth.md", ts.URL, values, env...)
		sh.run("export WS=http://localhost:8080", nil)
		sh.run("curl -s $WS/.well-known/oauth-authorization-server | jq .", nil, `"issuer": "`+ts.URL+`"`)
		var reg struct {
			ClientID string `json:"client_id"`
		}
		if err := json.Unmarshal([]byte(sh.run("curl -s $WS/oauth/register", nil, `"client_name":"My CLI"`)), &reg); err != nil || reg.ClientID == "" {
			t.Fatalf("registration: %v %+v", err, reg)
		}
		sh.run("workspaced admin create-app --workspace $WORKSPACE_ID", nil, `"client_id":"svcapp_`, `"client_secret":"svc_sk_`)
		authURL := strings.TrimSpace(sh.run("VERIFIER=$(openssl rand", map[string]string{"CLIENT_ID": reg.ClientID}))
		// The member's part, in a browser: sign in and approve; the browser comes back to
		// the redirect URI with the code.
		landed, _ := signInAndApprove(t, ts.URL, authURL, demo.AdminEmail, demo.AdminPassword, nil)
		if landed.Query().Get("iss") != ts.URL || landed.Query().Get("code") == "" {
			t.Fatalf("the redirect: %s", landed)
		}
		var tok struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		}
		out := sh.run(`curl -s "$WS/oauth/token" -H "apikey: $APIKEY" \`+"\n  -d grant_type=authorization_code",
			map[string]string{"CODE": landed.Query().Get("code")}, `"scope":"deals:read people:read"`)
		if err := json.Unmarshal([]byte(out), &tok); err != nil || tok.AccessToken == "" {
			t.Fatalf("the exchange: %v %s", err, out)
		}
		sh.run("curl -s $WS/v1/me", map[string]string{"ACCESS_TOKEN": tok.AccessToken}, `"email":"`+demo.AdminEmail+`"`)
		out = sh.run(`curl -s "$WS/oauth/token" -H "apikey: $APIKEY" \`+"\n  -d grant_type=refresh_token",
			map[string]string{"REFRESH_TOKEN": tok.RefreshToken}, `"refresh_token":"svc_rt_`)
		if err := json.Unmarshal([]byte(out), &tok); err != nil || tok.RefreshToken == "" {
			t.Fatalf("the refresh: %v %s", err, out)
		}
		if got := sh.run("curl -s -o /dev/null -w '%{http_code}\\n' \"$WS/oauth/revoke\"", map[string]string{"REFRESH_TOKEN": tok.RefreshToken}); got != "200\n" {
			t.Fatalf("revoke printed %q, want 200", got)
		}
		if code, _ := getMe(t, ts.URL, tok.AccessToken); code != http.StatusUnauthorized {
			t.Fatalf("/v1/me with the revoked authorization's access token: %d", code)
		}
	})
}

// adminToken signs email in through the authorization code flow of a client registered for
// the purpose and returns an access token with scope.
func adminToken(t *testing.T, origin, email, password, scope string) string {
	t.Helper()
	redirect := "http://127.0.0.1/callback"
	body := `{"client_name": "Docs", "redirect_uris": ["` + redirect + `"], "token_endpoint_auth_method": "none"}`
	res, err := http.Post(origin+"/oauth/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	_ = json.NewDecoder(res.Body).Decode(&reg)
	res.Body.Close()
	verifier := strings.Repeat("v", 64)
	authURL := origin + "/oauth/authorize?" + url.Values{"response_type": {"code"}, "client_id": {reg.ClientID},
		"redirect_uri": {redirect}, "scope": {scope}, "state": {"s"}, "code_challenge": {pkceS256(verifier)},
		"code_challenge_method": {"S256"}}.Encode()
	landed, _ := signInAndApprove(t, origin, authURL, email, password, nil)
	res, err = http.PostForm(origin+"/oauth/token?apikey="+e2eAPIKey, url.Values{"grant_type": {"authorization_code"},
		"code": {landed.Query().Get("code")}, "code_verifier": {verifier}, "client_id": {reg.ClientID}, "redirect_uri": {redirect}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token for %s: %d %v", email, res.StatusCode, err)
	}
	return tok.AccessToken
}

// pkceS256 is RFC 7636 section 4.2's S256 challenge of verifier.
func pkceS256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
