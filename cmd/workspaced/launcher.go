package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/agencyos/workspaced/store/pglaunch"
)

// startPrivatePostgres starts (or reuses) the zero-config PostgreSQL under dataDir and
// returns its DSN and a stop func. While a server process holds the cluster, other
// commands (the admin CLI) connect to it through the DSN it left in dataDir/dsn.
func startPrivatePostgres(ctx context.Context, dataDir string, log *slog.Logger) (string, func(), error) {
	if _, _, err := pglaunch.Binaries(); err != nil {
		return "", nil, fmt.Errorf("no DATABASE_URL and no PostgreSQL server binaries to start a private one: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", nil, err
	}
	dsnFile := filepath.Join(dataDir, "dsn")
	pg, err := pglaunch.Start(ctx, dataDir, logWriter{log})
	if err != nil {
		if b, rerr := os.ReadFile(dsnFile); rerr == nil && strings.Contains(err.Error(), "in use") {
			return strings.TrimSpace(string(b)), func() {}, nil
		}
		return "", nil, err
	}
	if err := os.WriteFile(dsnFile, []byte(pg.DSN+"\n"), 0o600); err != nil {
		pg.Stop()
		return "", nil, err
	}
	log.Info("private PostgreSQL started", "data_dir", dataDir, "version", pg.Version, "port", pg.Port)
	return pg.DSN, func() {
		os.Remove(dsnFile)
		if err := pg.Stop(); err != nil {
			log.Error("stopping private PostgreSQL", "err", err)
		}
	}, nil
}

// logWriter sends PostgreSQL's own log lines to the debug log.
type logWriter struct{ log *slog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Debug("postgres", "line", strings.TrimSpace(string(p)))
	return len(p), nil
}
