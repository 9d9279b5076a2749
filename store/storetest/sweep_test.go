package storetest

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestStale: which databases a sweep may drop.
func TestStale(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	alive := func(pid int) bool { return pid == 100 }
	marked := func(host string, pid string, created time.Time) string {
		return markPrefix + " host=" + host + " pid=" + pid + " created=" + created.Format(time.RFC3339)
	}
	for _, tc := range []struct {
		name     string
		comment  string
		modified time.Time
		want     bool
	}{
		{name: "its creator is running here", comment: marked("h", "100", now.Add(-48*time.Hour)), want: false},
		{name: "its creator is gone", comment: marked("h", "200", now.Add(-time.Second)), want: true},
		{name: "made on another host recently", comment: marked("other", "200", now.Add(-time.Hour)), want: false},
		{name: "made on another host long ago", comment: marked("other", "200", now.Add(-25*time.Hour)), want: true},
		{name: "marked but unreadable", comment: markPrefix + " host=h pid=x", want: false},
		{name: "unmarked and fresh", modified: now.Add(-10 * time.Minute), want: false},
		{name: "unmarked and old", modified: now.Add(-2 * time.Hour), want: true},
		{name: "unmarked, age unknown", want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stale(tc.comment, tc.modified, now, "h", alive); got != tc.want {
				t.Fatalf("stale(%q) = %v, want %v", tc.comment, got, tc.want)
			}
		})
	}
}

// TestSweep: a sweep drops the database of a test binary that is gone and keeps this
// binary's and a fresh unmarked one (another package's, mid-run).
func TestSweep(t *testing.T) {
	ctx := context.Background()
	admin, err := adminURL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) }) // after the drops below: cleanups run last first

	// A process that has exited: its pid names no process (until reused, which the
	// sweep then takes for alive: it keeps a database rather than drop a live one).
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	dead := markPrefix + " host=" + host + " pid=" + itoa(gone.Process.Pid) + " created=" + time.Now().UTC().Format(time.RFC3339)
	names := map[string]string{
		"ws_test_sweep_dead_" + itoa(os.Getpid()):  dead,
		"ws_test_sweep_alive_" + itoa(os.Getpid()): mark(time.Now()),
		"ws_test_sweep_fresh_" + itoa(os.Getpid()): "",
	}
	for name, comment := range names {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name) })
		if comment != "" {
			if _, err := conn.Exec(ctx, "COMMENT ON DATABASE "+name+" IS "+quote(comment)); err != nil {
				t.Fatal(err)
			}
		}
	}
	dropped := sweep(ctx, conn, time.Now())
	for name, comment := range names {
		want := comment == dead
		if got := slices.Contains(dropped, name); got != want {
			t.Errorf("%s dropped %v, want %v (dropped: %v)", name, got, want, dropped)
		}
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if exists == want {
			t.Errorf("%s exists %v after the sweep, want %v", name, exists, !want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
