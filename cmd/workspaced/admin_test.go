package main

import (
	"bytes"
	"context"
	"encoding/json"
	osuser "os/user"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/internal/smtptest"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// cli runs `workspaced admin args...` against the package database.
func cli(t *testing.T, args ...string) (code int, out map[string]any, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	args = append(args, "--database-url", storetest.DSN(t))
	code = admin(context.Background(), args, &o, &e)
	if code == 0 {
		if err := json.Unmarshal(o.Bytes(), &out); err != nil {
			t.Fatalf("stdout is not one JSON object: %q", o.String())
		}
		if strings.Count(strings.TrimSpace(o.String()), "\n") != 0 {
			t.Fatalf("stdout has more than one line: %q", o.String())
		}
	} else if o.Len() != 0 {
		t.Fatalf("failed command printed to stdout: %q", o.String())
	}
	return code, out, e.String()
}

func mustCLI(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, stderr := cli(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return out
}

func count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := storetest.Pool(t).QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAdminCommands(t *testing.T) {
	ws := mustCLI(t, "create-workspace", "--name", "Acme Agency")["workspace_id"].(string)
	user := mustCLI(t, "add-member", "--workspace", ws, "--email", "ana@"+ws+".test", "--name", "Ana",
		"--role", "member", "--grant", "crm=full", "--grant", "hr=read", "--password", "correct horse")["user_id"].(string)
	if n := count(t, `SELECT count(*) FROM users WHERE id = $1 AND grants = '{"crm": "full", "hr": "read"}' AND role = 'member'`, user); n != 1 {
		t.Fatalf("member not stored with its grants")
	}
	if n := count(t, `SELECT count(*) FROM user_passwords WHERE user_id = $1 AND hash LIKE '$argon2id$%'`, user); n != 1 {
		t.Fatalf("password not stored as an argon2id hash")
	}
	if reset := mustCLI(t, "reset-link", "--workspace", ws, "--user", user); reset["user_id"] != user {
		t.Fatalf("reset-link: %v", reset)
	} else if link, _ := reset["link"].(string); !strings.Contains(link, "/console/reset?token=wsl_") {
		t.Fatalf("reset-link: %v", reset)
	}
	mustCLI(t, "set-member", "--user", user, "--role", "admin", "--grant", "hr=full", "--status", "suspended")
	if n := count(t, `SELECT count(*) FROM users WHERE id = $1 AND role = 'admin' AND status = 'suspended' AND grants->>'hr' = 'full' AND grants->>'crm' = 'full'`, user); n != 1 {
		t.Fatalf("set-member did not apply")
	}
	agent := mustCLI(t, "create-agent", "--workspace", ws, "--name", "Scout", "--grant", "crm=read")
	key, _ := agent["key"].(string)
	if !strings.HasPrefix(key, "kagt_") || agent["agent_id"] == "" || agent["user_id"] == "" || agent["key_id"] == "" {
		t.Fatalf("create-agent: %v", agent)
	}
	p, err := auth.Resolved(storetest.New(t).AgentKeyIdentity(context.Background(), key, workspace.Scopes()))
	if err != nil || p.WorkspaceID != ws || p.Grant("crm") != "read" {
		t.Fatalf("issued key does not resolve: %v %+v", err, p)
	}
	second := mustCLI(t, "create-agent-key", "--workspace", ws, "--agent", agent["agent_id"].(string))
	rotated := mustCLI(t, "rotate-agent-key", "--workspace", ws, "--key-id", second["key_id"].(string))
	if k, _ := rotated["key"].(string); !strings.HasPrefix(k, "kagt_") || rotated["agent_id"] != agent["agent_id"] {
		t.Fatalf("rotate-agent-key: %v", rotated)
	}
	agents, _ := mustCLI(t, "list-agents", "--workspace", ws)["agents"].([]any)
	if len(agents) != 1 || len(agents[0].(map[string]any)["keys"].([]any)) != 3 {
		t.Fatalf("list-agents: want one agent with 3 keys (first, rotated-out, rotated-in): %v", agents)
	}
	if out := mustCLI(t, "revoke-agent-key", "--key-id", agent["key_id"].(string)); out["revoked"] != true {
		t.Fatalf("revoke: %v", out)
	}
	if _, err := storetest.New(t).AgentKeyIdentity(context.Background(), key, nil); err == nil {
		t.Fatal("revoked key still resolves")
	}
	if out := mustCLI(t, "grant-credits", "--workspace", ws, "--amount", "25"); out["balance"] != 25.0 {
		t.Fatalf("grant-credits: %v", out)
	}
	if out := mustCLI(t, "grant-credits", "--workspace", ws, "--amount", "5"); out["balance"] != 30.0 {
		t.Fatalf("grant-credits adds: %v", out)
	}
	// invite and list-members run the console's operations (admin.Ops).
	inv := mustCLI(t, "invite", "--workspace", ws, "--email", "bo@"+ws+".test", "--grant", "crm=read")
	if link, _ := inv["link"].(string); !strings.Contains(link, "/console/invite?token=wsl_") || inv["emailed"] != false {
		t.Fatalf("invite: %v", inv)
	}
	list := mustCLI(t, "list-members", "--workspace", ws)
	members, _ := list["members"].([]any)
	var statuses []string
	for _, m := range members {
		statuses = append(statuses, m.(map[string]any)["email"].(string)+"="+m.(map[string]any)["status"].(string))
	}
	if got, want := strings.Join(statuses, " "), "ana@"+ws+".test=suspended bo@"+ws+".test=invited"; got != want {
		t.Fatalf("list-members: %s, want %s", got, want)
	}
	app := mustCLI(t, "create-app", "--workspace", ws, "--name", "Sync", "--redirect-uri", "https://sync.example/cb")
	// Every change is in the audit log as the CLI's: no member, the operating system's
	// user, via cli (docs/console.md, "Audit log"), from the workspace's creation on.
	who := "unknown"
	if u, err := osuser.Current(); err == nil && u.Username != "" {
		who = u.Username
	}
	if got, want := cliRecords(t, ws), strings.Join([]string{
		"created workspaces " + ws, "created users " + user, "created member_links " + user, "updated users " + user,
		"created agents " + agent["agent_id"].(string), "created agent_keys " + agent["key_id"].(string),
		"created agent_keys " + second["key_id"].(string), "created agent_keys " + rotated["key_id"].(string),
		"updated agent_keys " + second["key_id"].(string), "updated agent_keys " + agent["key_id"].(string),
		"created credits ", "created credits ", "created users " + inv["user_id"].(string),
		"created member_links " + inv["user_id"].(string), "created oauth_clients "}, "\n"); got != want {
		t.Fatalf("the CLI's audit records:\n%s\nwant:\n%s", got, want)
	}
	if n := count(t, `SELECT count(*) FROM activity WHERE workspace_id = $1 AND (via <> 'cli' OR actor_id IS NOT NULL
		OR credential <> 'cli:' || $2)`, ws, who); n != 0 {
		t.Fatalf("%d records not made by the CLI's operator %s", n, who)
	}
	// The app's record names it (its id is no uuid, so it is no entity_id); the workspace's
	// names the workspace.
	if n := count(t, `SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'oauth_clients'
		AND changes = jsonb_build_object('client_id', $2::text, 'name', 'Sync', 'redirect_uris', '["https://sync.example/cb"]'::jsonb,
			'confidential', false)`, ws, app["client_id"]); n != 1 {
		t.Fatalf("create-app's record: %d", n)
	}
	if n := count(t, `SELECT count(*) FROM activity WHERE workspace_id = $1 AND entity_type = 'workspaces'
		AND changes = '{"name": "Acme Agency"}'`, ws); n != 1 {
		t.Fatalf("create-workspace's record: %d", n)
	}
	demo := mustCLI(t, "seed-demo")
	for _, k := range []string{"workspace_id", "admin_email", "admin_password", "agent_key", "agent_key_id"} {
		if s, _ := demo[k].(string); s == "" {
			t.Fatalf("seed-demo lacks %s: %v", k, demo)
		}
	}
}

func TestAdminBadInput(t *testing.T) {
	ws := mustCLI(t, "create-workspace", "--name", "Bad Input Agency")["workspace_id"].(string)
	// Counted per workspace and name so tests running beside this one do not disturb it.
	users := count(t, `SELECT count(*) FROM users WHERE workspace_id = $1`, ws)
	workspaces := count(t, `SELECT count(*) FROM workspaces WHERE name IN ('x', '  ')`)
	cases := [][]string{
		{},
		{"no-such-command"},
		{"create-workspace"},
		{"create-workspace", "--name", "  "},
		{"create-workspace", "--name", "x", "extra"},
		{"create-workspace", "--bogus-flag"},
		{"add-member", "--workspace", ws},
		{"add-member", "--workspace", "not-a-uuid", "--email", "a@b.test"},
		{"add-member", "--workspace", ws, "--email", "a@b.test", "--role", "owner"},
		{"add-member", "--workspace", ws, "--email", "a@b.test", "--grant", "crm=admin"},
		{"add-member", "--workspace", ws, "--email", "a@b.test", "--grant", "payroll=full"},
		{"add-member", "--workspace", ws, "--email", "a@b.test", "--status", "gone"},
		{"add-member", "--workspace", ws, "--email", "a@b.test", "--password", "short"},
		{"add-member", "--workspace", "00000000-0000-0000-0000-000000000000", "--email", "ghost@b.test"},
		{"set-member", "--user", "00000000-0000-0000-0000-000000000000", "--role", "admin"},
		{"set-member", "--user", "nope"},
		{"create-agent", "--workspace", ws},
		{"invite", "--workspace", ws, "--email", "not an email"},
		{"invite", "--workspace", ws, "--email", "c@b.test", "--role", "owner"},
		{"list-members", "--workspace", "nope"},
		{"create-agent-key", "--workspace", ws, "--agent", "00000000-0000-0000-0000-000000000000"},
		{"rotate-agent-key", "--workspace", ws, "--key-id", "nope"},
		{"reset-link", "--workspace", ws, "--user", "00000000-0000-0000-0000-000000000000"},
		{"revoke-agent-key", "--key-id", "00000000-0000-0000-0000-000000000000"},
		{"grant-credits", "--workspace", ws, "--amount", "0"},
		{"grant-credits", "--workspace", ws, "--amount", "-5"},
		{"grant-credits", "--workspace", ws, "--amount", "lots"},
		{"create-app", "--workspace", ws, "--name", "X", "--redirect-uri", "http://a.example/cb"},
		{"create-app", "--workspace", ws, "--name", "X", "--redirect-uri", "https://a.example/cb", "--logo-uri", "http://a.example/l.png"},
		{"create-app", "--workspace", ws, "--name", "X", "--redirect-uri", "x-apple.systempreferences:/com.apple.preference.security"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, stderr := cli(t, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if strings.TrimSpace(stderr) == "" {
				t.Fatal("no message on stderr")
			}
		})
	}
	// Duplicate emails are bad input too.
	dup := mustCLI(t, "add-member", "--workspace", ws, "--email", "dup@"+ws+".test")["user_id"].(string)
	users++
	if code, _, _ := cli(t, "add-member", "--workspace", ws, "--email", "DUP@"+ws+".test"); code != 2 {
		t.Fatalf("duplicate email: exit %d", code)
	}
	if got := count(t, `SELECT count(*) FROM users WHERE workspace_id = $1`, ws); got != users {
		t.Fatalf("bad input wrote users: %d, want %d", got, users)
	}
	if got := count(t, `SELECT count(*) FROM workspaces WHERE name IN ('x', '  ')`); got != workspaces {
		t.Fatalf("bad input wrote workspaces: %d, want %d", got, workspaces)
	}
	// Refused commands leave no audit record; the workspace and the one member added leave one each.
	if got := cliRecords(t, ws); got != "created workspaces "+ws+"\ncreated users "+dup {
		t.Fatalf("bad input wrote audit records: %q", got)
	}
}

// cliRecords lists a workspace's audit records (action, resource, record id), oldest
// first; those of one transaction (same time) in order of resource and action.
func cliRecords(t *testing.T, ws string) string {
	t.Helper()
	rows, err := storetest.Pool(t).Query(context.Background(), `SELECT action || ' ' || entity_type || ' ' || coalesce(entity_id::text, '')
		FROM activity WHERE workspace_id = $1 ORDER BY created_at, entity_type DESC, action`, ws)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestAdminListsCommandsInOneOrder: `workspaced admin` with no command lists every command
// once, in alphabetical order, the same on every run (a map's order changes between runs).
func TestAdminListsCommandsInOneOrder(t *testing.T) {
	var first string
	for range 20 {
		var stdout, stderr bytes.Buffer
		if code := admin(context.Background(), nil, &stdout, &stderr); code != 2 || stdout.Len() != 0 {
			t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, stdout.String())
		}
		if first == "" {
			first = stderr.String()
		} else if stderr.String() != first {
			t.Fatalf("the listing changed between runs:\n%s\nthen\n%s", first, stderr.String())
		}
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(first), "\n")[1:] {
		names = append(names, strings.Fields(line)[0])
	}
	if !sort.StringsAreSorted(names) || len(names) != len(adminCommands) {
		t.Fatalf("listed %v, want all %d commands in alphabetical order", names, len(adminCommands))
	}
	for _, want := range []string{"add-member", "create-app", "create-workspace", "grant-credits", "seed-demo"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not listed: %v", want, names)
		}
	}
}

// TestAdminInviteMailsAndResends: the admin CLI reads PUBLIC_URL and SMTP_URL as serve
// does, says on stderr where its links point and how they go out, mails an invitation that
// names the workspace and who invites through a real SMTP server, re-sends one to an
// address invited before (invite again, or resend-invite), and refuses a reset link for
// an invited member with a message that points to re-sending.
func TestAdminInviteMailsAndResends(t *testing.T) {
	mailbox := smtptest.Start(t)
	t.Setenv("PUBLIC_URL", "https://crm.example.com")
	t.Setenv("SMTP_URL", mailbox.URL("accounts@cli.test"))
	ws := mustCLI(t, "create-workspace", "--name", "Mail Agency")["workspace_id"].(string)
	email := "new@" + ws + ".test"

	code, first, stderr := cli(t, "invite", "--workspace", ws, "--email", email, "--grant", "crm=read")
	if code != 0 {
		t.Fatalf("invite: exit %d: %s", code, stderr)
	}
	if want := "links point at https://crm.example.com (PUBLIC_URL); links are emailed through SMTP_URL smtp://" + mailbox.Addr; !strings.Contains(stderr, want) {
		t.Fatalf("stderr %q does not say %q", stderr, want)
	}
	link, _ := first["link"].(string)
	if !strings.HasPrefix(link, "https://crm.example.com/console/invite?token=wsl_") || first["emailed"] != true || first["resent"] != nil {
		t.Fatalf("invite: %v", first)
	}
	msg := mailbox.Wait(t, email, 10*time.Second)
	if subject := msg.Msg.Header.Get("Subject"); subject != "An administrator invites you to Mail Agency on workspaced" {
		t.Fatalf("subject %q", subject)
	}
	if msg.From != "accounts@cli.test" || !strings.Contains(msg.Body, `An administrator of "Mail Agency" invited you to join the workspace "Mail Agency"`) ||
		!strings.Contains(msg.Body, link) {
		t.Fatalf("invitation from %s:\n%s", msg.From, msg.Body)
	}

	// The same address again (in other case) is re-sent, not refused: a new link, mailed.
	again := mustCLI(t, "invite", "--workspace", ws, "--email", strings.ToUpper(email))
	if again["resent"] != true || again["emailed"] != true || again["user_id"] != first["user_id"] || again["link"] == link {
		t.Fatalf("invite again: %v", again)
	}
	user := first["user_id"].(string)
	resent := mustCLI(t, "resend-invite", "--workspace", ws, "--user", user)
	if resent["resent"] != true || resent["emailed"] != true || resent["user_id"] != user {
		t.Fatalf("resend-invite: %v", resent)
	}
	got := mailbox.To(email)
	if len(got) != 3 || !strings.Contains(got[1].Body, again["link"].(string)) || !strings.Contains(got[2].Body, resent["link"].(string)) {
		t.Fatalf("%d mails to %s, want 3 with the new links", len(got), email)
	}
	if n := count(t, `SELECT count(*) FROM users WHERE workspace_id = $1 AND lower(email) = $2`, ws, email); n != 1 {
		t.Fatalf("%d users for the address, want 1", n)
	}
	if n := count(t, `SELECT count(*) FROM member_links WHERE user_id = $1 AND purpose = 'invite'`, user); n != 3 {
		t.Fatalf("%d invitation links, want 3", n)
	}

	// A reset link is for a member who has joined: for an invited one the answer says so.
	code, _, stderr = cli(t, "reset-link", "--workspace", ws, "--user", user)
	if code != 2 || !strings.Contains(stderr, email+" was invited and has not joined yet") || !strings.Contains(stderr, "re-send the invitation") {
		t.Fatalf("reset-link for an invited member: exit %d: %s", code, stderr)
	}
	joined := mustCLI(t, "add-member", "--workspace", ws, "--email", "joined@"+ws+".test")["user_id"].(string)
	other := mustCLI(t, "create-workspace", "--name", "Other Agency")["workspace_id"].(string)
	for _, args := range [][]string{
		{"resend-invite", "--workspace", ws, "--user", joined},                                 // has joined
		{"resend-invite", "--workspace", other, "--user", user},                                // another workspace's
		{"resend-invite", "--workspace", ws, "--user", "00000000-0000-0000-0000-000000000000"}, // no one
		{"resend-invite", "--workspace", ws, "--user", "nope"},
		{"resend-invite", "--workspace", ws},
	} {
		if code, _, stderr := cli(t, args...); code != 2 || !strings.HasPrefix(stderr, "workspaced admin: links point at") {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
	if len(mailbox.To(email)) != 3 || len(mailbox.To("joined@"+ws+".test")) != 0 {
		t.Fatal("a refused resend sent mail")
	}

	// Without the settings, the CLI derives PUBLIC_URL from LISTEN_ADDR as serve does, and
	// says it does not mail.
	t.Setenv("PUBLIC_URL", "")
	t.Setenv("SMTP_URL", "")
	t.Setenv("LISTEN_ADDR", "127.0.0.1:9099")
	code, out, stderr := cli(t, "resend-invite", "--workspace", ws, "--user", user)
	if code != 0 || !strings.HasPrefix(out["link"].(string), "http://127.0.0.1:9099/console/invite?token=wsl_") || out["emailed"] != false ||
		!strings.Contains(stderr, "links point at http://127.0.0.1:9099 (from LISTEN_ADDR: PUBLIC_URL is not set); links are not emailed (SMTP_URL is not set)") {
		t.Fatalf("without SMTP_URL: exit %d %v: %s", code, out, stderr)
	}
	if len(mailbox.To(email)) != 3 {
		t.Fatal("mailed without SMTP_URL")
	}
}
