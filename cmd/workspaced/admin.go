package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"os/user"
	"slices"
	"strings"

	adminops "github.com/agencyos/workspaced/admin"
	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
)

// badInput is a usage error: exit 2, nothing written.
type badInput struct{ msg string }

func (b badInput) Error() string { return b.msg }

func bad(format string, args ...any) error { return badInput{fmt.Sprintf(format, args...)} }

// grants collects repeated --grant feature=level flags.
type grants map[string]string

func (g grants) String() string { return fmt.Sprint(map[string]string(g)) }
func (g grants) Set(s string) error {
	f, l, err := store.ParseGrant(s)
	if err != nil {
		return err
	}
	g[f] = l
	return nil
}

// adminCommand is one `workspaced admin` command: it declares its flags, then runs with the
// store and returns the JSON object to print.
type adminCommand struct {
	usage string
	flags func(fs *flag.FlagSet) func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error)
}

var adminCommands = map[string]adminCommand{
	"create-workspace": {"--name N", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		name := fs.String("name", "", "workspace name")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if strings.TrimSpace(*name) == "" {
				return nil, bad("--name is required")
			}
			id, err := s.CreateWorkspace(ctx, *name, operator())
			return map[string]string{"workspace_id": id}, err
		}
	}},
	"add-member": {"--workspace W --email E [--name N] [--role admin|member] [--grant crm=full]... [--password P] [--status active|invited|suspended]",
		func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
			ws, email, name := fs.String("workspace", "", "workspace id"), fs.String("email", "", "email"), fs.String("name", "", "display name")
			role, status, password := fs.String("role", "member", "admin or member"), fs.String("status", "active", "active, invited or suspended"), fs.String("password", "", "password for the login page")
			g := grants{}
			fs.Var(g, "grant", "feature=level, repeatable (features: "+strings.Join(store.Features, ", ")+"; levels: "+strings.Join(store.GrantLevels(), ", ")+")")
			return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
				if err := checkUUID("--workspace", *ws); err != nil {
					return nil, err
				}
				hash, err := hashIfSet(*password)
				if err != nil {
					return nil, err
				}
				id, err := ops.AddMember(ctx, store.Member{WorkspaceID: *ws, Email: *email, Name: *name, Role: *role,
					Status: *status, Grants: g, PasswordHash: hash, By: operator()})
				return map[string]string{"user_id": id}, err
			}
		}},
	"set-member": {"--user U [--role admin|member] [--grant crm=full]... [--status active|invited|suspended] [--password P]",
		func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
			user, role, status, password := fs.String("user", "", "user id"), fs.String("role", "", "admin or member"), fs.String("status", "", "active, invited or suspended"), fs.String("password", "", "new password")
			g := grants{}
			fs.Var(g, "grant", "feature=level, repeatable")
			return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
				if err := checkUUID("--user", *user); err != nil {
					return nil, err
				}
				hash, err := hashIfSet(*password)
				if err != nil {
					return nil, err
				}
				err = ops.SetMember(ctx, "", operator(), *user, adminops.Change{Role: *role, Status: *status, Grants: g, PasswordHash: hash})
				return map[string]string{"user_id": *user}, err
			}
		}},
	"create-agent": {"--workspace W --name N [--grant crm=full]...", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws, name := fs.String("workspace", "", "workspace id"), fs.String("name", "", "agent name")
		g := grants{}
		fs.Var(g, "grant", "feature=level, repeatable")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			if strings.TrimSpace(*name) == "" {
				return nil, bad("--name is required")
			}
			return ops.CreateAgent(ctx, *ws, *name, g, operator())
		}
	}},
	"reset-link": {"--workspace W --user U", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws, user := fs.String("workspace", "", "workspace id"), fs.String("user", "", "user id")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			return ops.ResetLink(ctx, *ws, *user, operator())
		}
	}},
	"resend-invite": {"--workspace W --user U", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws, user := fs.String("workspace", "", "workspace id"), fs.String("user", "", "user id of the invited member")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			if err := checkUUID("--user", *user); err != nil {
				return nil, err
			}
			return ops.ResendInvite(ctx, *ws, *user, operator())
		}
	}},
	"list-agents": {"--workspace W", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws := fs.String("workspace", "", "workspace id")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			rows, err := ops.Agents(ctx, *ws)
			out := make([]map[string]any, len(rows))
			for i, a := range rows {
				out[i] = map[string]any{"agent_id": a.AgentID, "user_id": a.UserID, "name": a.Name, "status": a.Status,
					"grants": a.Grants, "keys": a.Keys}
			}
			return map[string]any{"agents": out}, err
		}
	}},
	"create-agent-key": {"--workspace W --agent A", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws, agent := fs.String("workspace", "", "workspace id"), fs.String("agent", "", "agent id")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			return ops.CreateKey(ctx, *ws, *agent, operator())
		}
	}},
	"rotate-agent-key": {"--workspace W --key-id K", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws, id := fs.String("workspace", "", "workspace id"), fs.String("key-id", "", "agent key id")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			return ops.RotateKey(ctx, *ws, *id, operator())
		}
	}},
	"revoke-agent-key": {"--key-id K", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		id := fs.String("key-id", "", "agent key id")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--key-id", *id); err != nil {
				return nil, err
			}
			return map[string]bool{"revoked": true}, ops.RevokeKey(ctx, "", *id, operator())
		}
	}},
	"grant-credits": {"--workspace W --amount N", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws, amount := fs.String("workspace", "", "workspace id"), fs.Int64("amount", 0, "credits to add (positive)")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			if *amount <= 0 {
				return nil, bad("--amount must be a positive whole number")
			}
			balance, err := ops.GrantCredits(ctx, *ws, *amount, operator())
			return map[string]int64{"balance": balance}, err
		}
	}},
	"list-members": {"--workspace W", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		ws := fs.String("workspace", "", "workspace id")
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			if err := checkUUID("--workspace", *ws); err != nil {
				return nil, err
			}
			rows, err := ops.Members(ctx, *ws)
			out := make([]map[string]any, len(rows))
			for i, m := range rows {
				out[i] = map[string]any{"user_id": m.UserID, "email": m.Email, "name": m.Name, "role": m.Role,
					"status": m.Status, "grants": m.Grants, "last_sign_in": m.LastSignIn}
			}
			return map[string]any{"members": out}, err
		}
	}},
	"invite": {"--workspace W --email E [--name N] [--role admin|member] [--grant crm=full]...",
		func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
			ws, email, name, role := fs.String("workspace", "", "workspace id"), fs.String("email", "", "email"),
				fs.String("name", "", "display name"), fs.String("role", "member", "admin or member")
			g := grants{}
			fs.Var(g, "grant", "feature=level, repeatable")
			return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
				if err := checkUUID("--workspace", *ws); err != nil {
					return nil, err
				}
				return ops.Invite(ctx, adminops.Invite{WorkspaceID: *ws, Email: *email, Name: *name, Role: *role, Grants: g, By: operator()})
			}
		}},
	"create-app": createAppCommand,
	"seed-demo": {"", func(fs *flag.FlagSet) func(context.Context, *store.Store, *adminops.Ops) (any, error) {
		return func(ctx context.Context, s *store.Store, ops *adminops.Ops) (any, error) {
			return s.SeedDemo(ctx, oauth.HashPassword)
		}
	}},
}

// operator is who the CLI's changes are recorded as in the audit log (docs/console.md,
// "Audit log"): via cli, no member (the CLI runs with the database's own credentials and
// signs no one in), and credential cli:<operating-system user>, the login an operator
// would look for, as sudo's log names it.
func operator() store.By {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	return store.By{Credential: "cli:" + name, Via: store.ViaCLI}
}

func checkUUID(flagName, v string) error {
	if len(v) != 36 || strings.Count(v, "-") != 4 {
		return bad("%s must be a uuid", flagName)
	}
	return nil
}

func hashIfSet(password string) (string, error) {
	if password == "" {
		return "", nil
	}
	h, err := oauth.HashPassword(password)
	if err != nil {
		return "", bad("--password: %v", err)
	}
	return h, nil
}

// admin runs `workspaced admin <command> [flags]`.
func admin(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || adminCommands[args[0]].flags == nil {
		fmt.Fprintln(stderr, "usage: workspaced admin <command> [flags]; commands:")
		for _, name := range slices.Sorted(maps.Keys(adminCommands)) { // a map's own order changes every run
			fmt.Fprintln(stderr, "  "+strings.TrimSpace(name+" "+adminCommands[name].usage))
		}
		return 2
	}
	name, cmd := args[0], adminCommands[args[0]]
	fs := flag.NewFlagSet("admin "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	do := cmd.flags(fs)
	cfgFlags := flag.NewFlagSet("config", flag.ContinueOnError)
	cfgFlags.SetOutput(io.Discard)
	cfg, err := parseConfig(cfgFlags, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	fs.StringVar(&cfg.DatabaseURL, "database-url", cfg.DatabaseURL, "PostgreSQL URL (default $DATABASE_URL)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "admin %s: unexpected argument %q\n", name, fs.Arg(0))
		return 2
	}
	s, closeDB, err := openDatabase(ctx, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer closeDB()
	ops, err := newAdminOps(cfg, s, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintln(stderr, linksAndMail(cfg))
	out, err := do(ctx, s, ops)
	if err != nil {
		var b badInput
		var e *apierr.Error
		switch {
		case errors.As(err, &b):
			fmt.Fprintf(stderr, "admin %s: %s\n", name, b.msg)
			return 2
		case errors.As(err, &e) && httpx.Status(e) < 500:
			fmt.Fprintf(stderr, "admin %s: %s\n", name, e.Message)
			return 2
		}
		fmt.Fprintf(stderr, "admin %s: %v\n", name, err)
		return 1
	}
	_ = json.NewEncoder(stdout).Encode(out)
	return 0
}

// linksAndMail is the line the admin CLI writes on stderr before a command: the origin its
// links point at and whether it mails them, from the settings serve reads (settings.go),
// so an operator sees at once when the CLI's environment is not the server's.
func linksAndMail(cfg config) string {
	mail := "links are not emailed (SMTP_URL is not set)"
	if cfg.SMTPURL != "" {
		mail = "links are emailed through SMTP_URL"
		if u, err := url.Parse(cfg.SMTPURL); err == nil {
			mail += " " + u.Redacted() // the password stays out of the terminal
		}
	}
	from := "PUBLIC_URL"
	if cfg.PublicURLDerived {
		from = "from LISTEN_ADDR: PUBLIC_URL is not set"
	}
	return "workspaced admin: links point at " + cfg.PublicURL + " (" + from + "); " + mail
}
