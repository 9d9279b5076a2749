package storetest

import (
	"context"
	"errors"
)

// startLauncher starts a private PostgreSQL for machines without a server.
func startLauncher(ctx context.Context) (string, error) {
	return "", errors.New("private PostgreSQL launcher not wired yet")
}

func stopLauncher() {}
