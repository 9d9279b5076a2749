// Command workspaced serves the workspace REST API, the OAuth 2.0 provider and the MCP tool
// server from one process, and administers workspaces from the command line.
//
//	workspaced [serve]      start the server (no DATABASE_URL: a private PostgreSQL and a demo workspace)
//	workspaced migrate      apply the embedded migrations
//	workspaced admin ...    administer workspaces; every command prints one JSON object
//	workspaced healthcheck  exit 0 when the server configured by the same env is ready
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

// run dispatches a command line and returns the exit code: 0 ok, 1 failure, 2 bad input.
func run(ctx context.Context, args []string) int {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args)
	case "migrate":
		return migrate(ctx, args)
	case "admin":
		return admin(ctx, args, os.Stdout, os.Stderr)
	case "healthcheck":
		return healthcheck(ctx, args)
	case "help", "-h", "--help":
		fmt.Println("usage: workspaced [serve|migrate|admin <command>|healthcheck] [flags]; workspaced admin help lists the admin commands")
		return 0
	default:
		fmt.Fprintf(os.Stderr, "workspaced: unknown command %q (want serve, migrate or admin)\n", cmd)
		return 2
	}
}
