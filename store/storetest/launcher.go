package storetest

import (
	"context"
	"os"

	"github.com/agencyos/workspaced/store/pglaunch"
)

// launched is the private server of this test binary, when one was needed.
var (
	launched    *pglaunch.Server
	launchedDir string
)

// startLauncher starts a private PostgreSQL in a folder of this test binary's own, so
// packages running in parallel never share one.
func startLauncher(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "workspaced-test-pg-")
	if err != nil {
		return "", err
	}
	s, err := pglaunch.Start(ctx, dir, nil)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	launched, launchedDir = s, dir
	return s.DSN, nil
}

func stopLauncher() {
	if launched != nil {
		launched.Stop()
		os.RemoveAll(launchedDir)
	}
}
