package store

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// DemoFile is the file in the zero-config data folder that holds the demo's credentials
// (admin password, agent key), readable by its owner only, so a restart prints the same
// ones. They are never kept in the database: anyone who can read service_settings (a
// backup, a replica) would otherwise hold a working admin password and agent key.
const DemoFile = "demo.json"

// LoadDemo returns the zero-config demo workspace of the data folder dir, seeding it
// (SeedDemo) when dir holds no credentials file yet.
func (s *Store) LoadDemo(ctx context.Context, dir string, hashPassword func(string) (string, error)) (Demo, error) {
	var d Demo
	path := filepath.Join(dir, DemoFile)
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
	if d, err = s.SeedDemo(ctx, hashPassword); err != nil {
		return d, err
	}
	return d, writeDemoFile(path, d)
}

// writeDemoFile writes the credentials file, mode 0600, whole or not at all.
func writeDemoFile(path string, d Demo) error {
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

// ForgetStoredDemo removes the demo credentials earlier versions kept in plaintext in
// service_settings, and reports whether there were any. A zero-config start (dir is its
// data folder) moves them to the credentials file first, unless it has one, so it keeps
// printing them; a server on its own database (dir "") drops them.
func (s *Store) ForgetStoredDemo(ctx context.Context, dir string) (bool, error) {
	raw, err := s.TakeSetting(ctx, "demo")
	if err != nil || raw == "" {
		return false, err
	}
	if dir != "" {
		path := filepath.Join(dir, DemoFile)
		var d Demo
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && json.Unmarshal([]byte(raw), &d) == nil {
			if err := writeDemoFile(path, d); err != nil {
				// Put them back for the next start rather than lose them.
				_, _ = s.Setting(ctx, "demo", func() string { return raw })
				return false, err
			}
		}
	}
	return true, nil
}
