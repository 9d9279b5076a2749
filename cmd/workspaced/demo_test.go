package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// settingsHolding counts the service settings whose value contains secret.
func settingsHolding(t *testing.T, s *store.Store, secret string) int {
	t.Helper()
	var n int
	if err := storetest.Pool(t).QueryRow(context.Background(), `SELECT count(*) FROM service_settings WHERE strpos(value, $1) > 0`,
		secret).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The zero-config demo's admin password and agent key live in a 0600 file in DATA_DIR,
// never in service_settings; a restart reads the same ones back.
func TestDemoSecretsNotInDatabase(t *testing.T) {
	s := storetest.New(t)
	dir := t.TempDir()
	srv := &server{cfg: config{DataDir: dir}, store: s, log: slog.New(slog.DiscardHandler)}
	d, err := srv.demo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{d.AdminPassword, d.AgentKey} {
		if secret == "" || settingsHolding(t, s, secret) != 0 {
			t.Fatalf("a demo secret (%d characters) is stored in service_settings", len(secret))
		}
	}
	info, err := os.Stat(filepath.Join(dir, "demo.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v mode %v, want 0600", err, info)
	}
	again, err := srv.demo(t.Context())
	if err != nil || again != d {
		t.Fatalf("restart: %v %+v, want the same demo", err, again)
	}
}

// Plaintext demo credentials an earlier version stored are removed at start: moved to the
// credentials file on a zero-config start, dropped by a server with DATABASE_URL.
func TestStoredDemoSecretsRemovedAtStart(t *testing.T) {
	legacy := store.Demo{WorkspaceID: "00000000-0000-0000-0000-000000000001", AdminEmail: "admin@demo.example",
		AdminPassword: "legacy-admin-password", AgentKey: "kagt_legacyagentkey"}
	raw, _ := json.Marshal(legacy)
	for _, mode := range []struct {
		name, databaseURL string
		keepsFile         bool
	}{{"zero-config", "", true}, {"server", "postgres://elsewhere/db", false}} {
		t.Run(mode.name, func(t *testing.T) {
			s := storetest.New(t)
			if _, err := s.Setting(t.Context(), "demo", func() string { return string(raw) }); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			srv := &server{cfg: config{DataDir: dir, DatabaseURL: mode.databaseURL}, store: s, log: slog.New(slog.DiscardHandler)}
			if err := srv.forgetStoredDemo(t.Context()); err != nil {
				t.Fatal(err)
			}
			if settingsHolding(t, s, legacy.AdminPassword) != 0 || settingsHolding(t, s, legacy.AgentKey) != 0 {
				t.Fatal("the plaintext demo credentials are still in service_settings")
			}
			b, err := os.ReadFile(filepath.Join(dir, "demo.json"))
			if mode.keepsFile != (err == nil && strings.Contains(string(b), legacy.AgentKey)) {
				t.Fatalf("credentials file: %v %s (want it: %v)", err, b, mode.keepsFile)
			}
			if mode.keepsFile {
				if d, err := srv.demo(t.Context()); err != nil || d.AgentKey != legacy.AgentKey {
					t.Fatalf("a zero-config start after the move prints %+v, %v", d, err)
				}
			}
		})
	}
}

// Replicas starting together each run the start-up clean-up at once: none may fail it (it
// used to create the setting to read it and delete it after, so a replica whose insert
// waited for another's could find the row gone and stop with "no rows in result set").
func TestForgetStoredDemoConcurrently(t *testing.T) {
	s := storetest.New(t)
	srv := &server{cfg: config{DataDir: t.TempDir(), DatabaseURL: "postgres://elsewhere/db"}, store: s, log: slog.New(slog.DiscardHandler)}
	for range 30 {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() { errs <- srv.forgetStoredDemo(t.Context()) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("a concurrent start-up clean-up failed: %v", err)
			}
		}
	}
}
