package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
)

// demoFile holds the zero-config demo's credentials (admin password, agent key) in the data
// folder, readable by its owner only, so a restart prints the same ones. They are never
// kept in the database: anyone who can read service_settings (a backup, a replica) would
// otherwise hold a working admin password and agent key.
const demoFile = "demo.json"

// demo returns the zero-config demo workspace, seeding it when the data folder holds no
// credentials file yet.
func (srv *server) demo(ctx context.Context) (store.Demo, error) {
	var d store.Demo
	path := filepath.Join(srv.cfg.DataDir, demoFile)
	raw, err := os.ReadFile(path)
	if err == nil {
		if err := os.Chmod(path, 0o600); err != nil {
			return d, err
		}
		return d, json.Unmarshal(raw, &d)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return d, err
	}
	if d, err = srv.store.SeedDemo(ctx, oauth.HashPassword); err != nil {
		return d, err
	}
	return d, writeDemoFile(path, d)
}

// writeDemoFile writes the credentials file, mode 0600, whole or not at all.
func writeDemoFile(path string, d store.Demo) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// forgetStoredDemo removes the demo credentials earlier versions kept in plaintext in
// service_settings. A zero-config start moves them to the credentials file first (unless it
// has one), so it keeps printing them; a server with DATABASE_URL drops them.
func (srv *server) forgetStoredDemo(ctx context.Context) error {
	raw, err := srv.store.TakeSetting(ctx, "demo")
	if err != nil || raw == "" {
		return err
	}
	if srv.cfg.DatabaseURL == "" {
		path := filepath.Join(srv.cfg.DataDir, demoFile)
		var d store.Demo
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && json.Unmarshal([]byte(raw), &d) == nil {
			if err := writeDemoFile(path, d); err != nil {
				// Put them back for the next start rather than lose them.
				_, _ = srv.store.Setting(ctx, "demo", func() string { return raw })
				return err
			}
		}
	}
	srv.log.Warn("removed the demo credentials kept in plaintext in service_settings", "moved_to_data_dir", srv.cfg.DatabaseURL == "")
	return nil
}
