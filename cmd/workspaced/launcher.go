package main

import (
	"context"
	"errors"
	"log/slog"
)

// startPrivatePostgres starts the zero-config PostgreSQL under dataDir.
func startPrivatePostgres(ctx context.Context, dataDir string, log *slog.Logger) (string, func(), error) {
	return "", nil, errors.New("set DATABASE_URL (the private PostgreSQL launcher is not wired yet)")
}
