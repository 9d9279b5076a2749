package pglaunch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestBinaries(t *testing.T) {
	dir, version, err := Binaries()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pg_ctl", "initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("Binaries() dir %s: %v", dir, err)
		}
	}
	if majorVersion(version) == "" {
		t.Errorf("Binaries() version = %q, want a version number", version)
	}
}

func TestBinariesNotFound(t *testing.T) {
	_, _, err := findBinaries(t.TempDir(), []string{filepath.Join(t.TempDir(), "*", "bin")})
	if err == nil {
		t.Fatal("findBinaries found binaries in empty folders")
	}
	for _, want := range []string{"apt-get install postgresql", "DATABASE_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestVersions(t *testing.T) {
	for _, tc := range []struct{ version, wantMajor string }{
		{"15.19", "15"}, {"9.6.24", "9.6"}, {"17beta1", "17"}, {"16", "16"},
	} {
		if got := majorVersion(tc.version); got != tc.wantMajor {
			t.Errorf("majorVersion(%q) = %q, want %q", tc.version, got, tc.wantMajor)
		}
	}
	if compareVersions("9.6", "15") >= 0 || compareVersions("15.2", "15") <= 0 {
		t.Error("compareVersions orders 9.6 < 15 < 15.2 wrongly")
	}
	if got := versionInPath("/usr/pgsql-16/bin"); got != "16" {
		t.Errorf("versionInPath = %q, want 16", got)
	}
}

// start starts a server in dir and stops it when the test ends.
func start(t testing.TB, dir string) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	begin := time.Now()
	s, err := Start(ctx, dir, tlog{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Start took %v", time.Since(begin))
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func connect(t testing.TB, s *Server) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// tlog sends PostgreSQL's log to the test log.
type tlog struct{ t testing.TB }

func (l tlog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestStartStopReuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()

	s := start(t, dir)
	conn := connect(t, s)
	if _, err := conn.Exec(ctx, "create table notes (body text); insert into notes values ('kept')"); err != nil {
		t.Fatal(err)
	}
	var listen, sockets, db string
	if err := conn.QueryRow(ctx, "select current_setting('listen_addresses'), current_setting('unix_socket_directories'), current_database()").Scan(&listen, &sockets, &db); err != nil {
		t.Fatal(err)
	}
	if listen != "127.0.0.1" || db != Database || !strings.Contains(sockets, dir) {
		t.Errorf("listen_addresses %q, unix_socket_directories %q, database %q; want 127.0.0.1, a folder in %s, %s", listen, sockets, db, dir, Database)
	}
	if _, err := Start(ctx, dir, nil); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second Start on a running folder: err %v, want in use", err)
	}
	conn.Close(ctx)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := pgx.Connect(ctx, s.DSN); err == nil {
		t.Error("server still answers after Stop")
	}

	s2 := start(t, dir)
	var body string
	if err := connect(t, s2).QueryRow(ctx, "select body from notes").Scan(&body); err != nil || body != "kept" {
		t.Errorf("after restart: body %q, err %v; want the row kept", body, err)
	}
}

// TestAfterCrash covers the ways a run can end without Stop: Start is cut short (during
// initdb), the owning process dies (its lock goes, postgres goes on: an orphan), and
// postgres is killed (a stale postmaster.pid). Each time the next Start must work. The data
// folder's path is long enough that the socket must live in /tmp.
func TestAfterCrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), strings.Repeat("long-folder-name-", 6))

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if s, err := Start(short, dir, nil); err == nil {
		s.Stop()
		t.Log("Start finished within 300ms; nothing was cut short")
	}
	waitGone(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
		t.Error("a cancelled first Start left a cluster folder")
	}

	s := start(t, dir)
	if !strings.HasPrefix(s.socketDir, os.TempDir()+"/pglaunch-") {
		t.Errorf("socket folder %s, want one under %s for a %d-byte path", s.socketDir, os.TempDir(), len(dir))
	}
	if _, err := connect(t, s).Exec(ctx, "create table notes (body text); insert into notes values ('kept')"); err != nil {
		t.Fatal(err)
	}

	// The owner dies: only its lock goes.
	s.lock.Close()
	s.stopped = true
	s = start(t, dir)

	// postgres dies: postmaster.pid stays. Point it at a live process that is not postgres
	// (this test), as after a container restart.
	b, err := os.ReadFile(filepath.Join(s.cluster, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, s.cluster)
	s.lock.Close()
	s.stopped = true
	stale := strconv.Itoa(os.Getpid()) + string(b[strings.IndexByte(string(b), '\n'):])
	if err := os.WriteFile(filepath.Join(s.cluster, "postmaster.pid"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}

	s = start(t, dir)
	var body string
	if err := connect(t, s).QueryRow(ctx, "select body from notes").Scan(&body); err != nil || body != "kept" {
		t.Errorf("after crashes: body %q, err %v; want the row kept", body, err)
	}
}

// waitGone waits until no process runs in folder dir or below it: a killed postmaster's backends notice
// its death and exit, and postgres refuses to start while they hold its shared memory.
func waitGone(t testing.TB, dir string) {
	t.Helper()
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		procs, _ := filepath.Glob("/proc/[0-9]*/cwd")
		busy := false
		for _, p := range procs {
			if cwd, err := os.Readlink(p); err == nil && (cwd == want || strings.HasPrefix(cwd, want+"/")) {
				busy = true
			}
		}
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes still run in %s", dir)
		}
	}
}
