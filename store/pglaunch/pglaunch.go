// Package pglaunch starts a private PostgreSQL server from the binaries installed on the
// machine, so that workspaced runs with no DATABASE_URL (docs/decisions.md 9) and its
// tests run where no server is reachable.
//
// It drives initdb and pg_ctl itself with os/exec rather than through
// github.com/fergusstrange/embedded-postgres: that library builds its exec.Cmd values
// internally, so it cannot run PostgreSQL as an unprivileged account when this process is
// root (initdb, pg_ctl and postgres all refuse root, and our machines run as root); it also
// wipes its runtime folder, deletes the data folder when PG_VERSION differs from the
// configured version, and keeps a package-level mutex. Driving the two programs directly is
// a few dozen lines and needs no new dependency.
//
// Layout of a data folder:
//
//	dataDir/pglaunch.lock  flock held by the process whose Server runs the cluster
//	dataDir/postgres/      the cluster (PG_VERSION, postgresql.conf, pglaunch.conf, ...)
//	dataDir/postgres.initdb/  initdb's work, renamed to postgres/ when complete
//	dataDir/run/           the Unix socket folder, or /tmp/pglaunch-<hash> when too long
package pglaunch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Database is the database Start creates in a new cluster, and the one Server.DSN names.
const Database = "workspaced"

// superuser is the role initdb creates; -U makes it independent of who runs initdb.
const superuser = "postgres"

// maxSocketPath is the longest socket file path the kernel takes (sun_path holds 108 bytes
// with the terminating NUL); PostgreSQL's socket file is <dir>/.s.PGSQL.<port>.
const maxSocketPath = 107

// Server is a running private PostgreSQL started by Start. Stop it when done: it outlives
// this process otherwise (a later Start on the same folder stops such an orphan).
type Server struct {
	// DSN is a postgres:// URL for database "workspaced" as the superuser "postgres" over
	// TCP on 127.0.0.1, with trust authentication, for pgx or any libpq client.
	DSN string
	// Port is the TCP port the server listens on, chosen free at start.
	Port int
	// Version is the version of the server binaries, such as "15.19".
	Version string

	dataDir   string // the folder given to Start, absolute
	cluster   string // dataDir/postgres
	socketDir string
	bin       string
	acct      *account
	logw      io.Writer
	lock      *os.File // flock on dataDir/pglaunch.lock, released by Stop or by process exit

	mu      sync.Mutex
	stopped bool
	logDone <-chan struct{} // closed when the server's log pipe is drained
}

// Start initialises (the first time) or reuses the PostgreSQL cluster in dataDir, starts it
// on 127.0.0.1 at a free port with trust authentication, and creates database "workspaced"
// if it is missing. logw receives the output of initdb, pg_ctl and the server's log; it may
// be nil or io.Discard. When this process is root, PostgreSQL runs as an unprivileged user
// (see serverAccount) and the folders it needs are given to it.
//
// Only one Server at a time may use a data folder: Start fails at once while another
// process (or another Server in this one) holds it. A server left running by a process
// that died without Stop is stopped first, and a stale postmaster.pid is removed, so a
// killed run never blocks the next one. When Start fails it leaves no server running.
func Start(ctx context.Context, dataDir string, logw io.Writer) (_ *Server, err error) {
	if logw == nil {
		logw = io.Discard
	}
	bin, version, err := Binaries()
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("pglaunch: data folder %q: %w", dataDir, err)
	}
	// pg_ctl hands the data folder to /bin/sh inside double quotes.
	if strings.ContainsAny(root, "\"$`\\\n") {
		return nil, fmt.Errorf("pglaunch: data folder %q holds a character pg_ctl cannot pass to its shell (\" $ ` \\ or newline); choose another", root)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("pglaunch: %w", err)
	}
	lock, err := lockFolder(root)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lock.Close()
		}
	}()

	s := &Server{
		Version: version,
		dataDir: root,
		cluster: filepath.Join(root, "postgres"),
		bin:     bin,
		logw:    logw,
		lock:    lock,
	}
	if s.acct, err = serverAccount(s.cluster); err != nil {
		return nil, err
	}
	if err := s.prepareFolders(); err != nil {
		return nil, err
	}
	if err := s.clearStale(ctx); err != nil {
		return nil, err
	}
	if err := s.initCluster(ctx); err != nil {
		return nil, err
	}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	if err := s.ensureDatabase(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// Stop shuts the server down with pg_ctl's fast mode (open transactions roll back, data is
// checkpointed) and releases the data folder. Calling it again does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	defer s.lock.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := s.pgctl(ctx, s.logw, "stop", "-s", "-w", "-t", "90", "-m", "fast")
	s.waitLog(5 * time.Second)
	if filepath.Dir(s.socketDir) != s.dataDir {
		_ = os.Remove(s.socketDir) // the /tmp fallback; empty after a clean shutdown
	}
	if err != nil {
		return fmt.Errorf("pglaunch: stopping PostgreSQL in %s: %w", s.cluster, err)
	}
	return nil
}

// lockFolder takes an exclusive flock on dir/pglaunch.lock so that two processes never run
// the same cluster. The kernel drops it when the process dies, however it dies; the file is
// opened close-on-exec, so PostgreSQL never inherits it.
func lockFolder(dir string) (*os.File, error) {
	name := filepath.Join(dir, "pglaunch.lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pglaunch: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(name)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("pglaunch: data folder %s is in use by another process (pid %s); stop it or use another data folder",
				dir, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("pglaunch: locking %s: %w", name, err)
	}
	// The pid is only for the message above; a failure to write it changes nothing.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// prepareFolders creates the socket folder and gives it, the data folder itself and an
// existing cluster to the server's account.
func (s *Server) prepareFolders() error {
	if err := s.acct.reach(s.dataDir, s.logw); err != nil {
		return err
	}
	if err := s.acct.own(s.dataDir, false); err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	if _, err := os.Stat(s.cluster); err == nil {
		if err := s.acct.own(s.cluster, true); err != nil {
			return fmt.Errorf("pglaunch: %w", err)
		}
		// PostgreSQL refuses a data folder that others can read.
		if err := os.Chmod(s.cluster, 0o700); err != nil {
			return fmt.Errorf("pglaunch: %w", err)
		}
	}

	s.socketDir = filepath.Join(s.dataDir, "run")
	if len(s.socketDir)+len("/.s.PGSQL.65535") > maxSocketPath {
		sum := sha256.Sum256([]byte(s.dataDir))
		s.socketDir = filepath.Join(os.TempDir(), "pglaunch-"+hex.EncodeToString(sum[:8]))
	}
	if err := os.Mkdir(s.socketDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pglaunch: %w", err)
	}
	if err := s.acct.own(s.socketDir, false); err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	// In a shared /tmp the folder may have been made by someone else: use it only if it is
	// a real folder belonging to the server's account.
	fi, err := os.Lstat(s.socketDir)
	if err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	wantUID := uint32(os.Geteuid())
	if s.acct != nil {
		wantUID = s.acct.uid
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !fi.IsDir() || (ok && st.Uid != wantUID) {
		return fmt.Errorf("pglaunch: socket folder %s is not a folder owned by uid %d; remove it", s.socketDir, wantUID)
	}
	return nil
}

// clearStale deals with a postmaster.pid left by an earlier run. Since this process holds
// the folder's lock, whoever started that server is gone: a server still running there is
// an orphan and is stopped; otherwise the file is stale and removed, because its pid may
// now belong to an unrelated process (common in containers), which makes postgres refuse
// to start. A postmaster is recognised by its working directory, which is its data folder.
func (s *Server) clearStale(ctx context.Context) error {
	pidFile := filepath.Join(s.cluster, "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		return nil // no procfs: leave the check to postgres itself
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err == nil && pid > 0 && s.isPostmaster(pid) {
		fmt.Fprintf(s.logw, "pglaunch: stopping PostgreSQL (pid %d) left running in %s by an earlier process\n", pid, s.cluster)
		if err := s.pgctl(ctx, s.logw, "stop", "-s", "-w", "-t", "90", "-m", "fast"); err != nil {
			return fmt.Errorf("pglaunch: stopping PostgreSQL (pid %d) left running in %s: %w", pid, s.cluster, err)
		}
	} else {
		fmt.Fprintf(s.logw, "pglaunch: removing stale %s (pid %s is not a PostgreSQL server of this folder)\n", pidFile, strings.TrimSpace(first))
		if err := os.Remove(pidFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pglaunch: %w", err)
		}
	}
	// Socket lock files carry the same kind of pid; no server of ours runs now.
	entries, _ := os.ReadDir(s.socketDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".s.PGSQL.") {
			_ = os.Remove(filepath.Join(s.socketDir, e.Name()))
		}
	}
	return nil
}

// isPostmaster reports whether process pid runs with the cluster as its working directory.
func (s *Server) isPostmaster(pid int) bool {
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return false
	}
	want, err := filepath.EvalSymlinks(s.cluster)
	return err == nil && cwd == want
}

// initCluster runs initdb when the cluster folder holds no cluster yet, and otherwise checks
// that the cluster was made by the same major version as the binaries. It never deletes a
// cluster: a version mismatch is an error for a person to resolve (pg_upgrade, or another
// folder).
func (s *Server) initCluster(ctx context.Context) error {
	b, err := os.ReadFile(filepath.Join(s.cluster, "PG_VERSION"))
	if err == nil {
		if have, want := strings.TrimSpace(string(b)), majorVersion(s.Version); have != want {
			return fmt.Errorf("pglaunch: the cluster in %s was made by PostgreSQL %s, but the binaries in %s are version %s; "+
				"install PostgreSQL %s, upgrade the cluster with pg_upgrade, or use another data folder", s.cluster, have, s.bin, s.Version, have)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pglaunch: %w", err)
	}
	// initdb works in a folder of its own that becomes the cluster only when it succeeds, so a
	// run killed midway leaves nothing that looks like a cluster or blocks the next initdb.
	if err := syscall.Rmdir(s.cluster); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pglaunch: %s holds no cluster (no PG_VERSION) but is not empty; move it away: %w", s.cluster, err)
	}
	tmp := s.cluster + ".initdb"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	if err := s.acct.own(tmp, false); err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	var out bytes.Buffer
	// -A trust: the server listens on 127.0.0.1 and its own socket only (pglaunch.conf), and
	// initdb's pg_hba.conf trusts exactly those. C locale with UTF8: same on every machine.
	cmd := s.command(ctx, "initdb", "-D", tmp, "-U", superuser, "-A", "trust", "-E", "UTF8", "--locale=C")
	cmd.Stdout = io.MultiWriter(s.logw, &out)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("pglaunch: initdb in %s: %w\n%s", tmp, err, tail(out.Bytes()))
	}
	if err := os.Rename(tmp, s.cluster); err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	return nil
}

// start writes pglaunch.conf with a free port and starts the server with pg_ctl, trying
// another port if one was taken between choosing and binding it.
func (s *Server) start(ctx context.Context) error {
	if err := s.includeConf(); err != nil {
		return err
	}
	var err error
	for range 3 {
		var port int
		if port, err = freePort(); err != nil {
			return err
		}
		if err = s.writeConf(port); err != nil {
			return err
		}
		if err = s.startOnce(ctx); err == nil {
			s.Port = port
			s.DSN = fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, port, Database)
			return nil
		}
		if ctx.Err() != nil || !portTaken(port) {
			break
		}
	}
	return err
}

// startOnce runs pg_ctl start and waits for the server to accept connections. The server's
// stdout and stderr are a pipe copied to logw for as long as it runs. On failure it makes
// sure no server is left running.
func (s *Server) startOnce(ctx context.Context) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	var out tailWriter
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.Close()
		_, _ = io.Copy(io.MultiWriter(s.logw, &out), r)
	}()
	s.logDone = done

	cmd := s.command(ctx, "pg_ctl", "start", "-D", s.cluster, "-s", "-w", "-t", "60")
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Run()
	w.Close() // postgres holds its own copy
	if err == nil {
		return nil
	}
	// pg_ctl may have given up (timeout, cancelled context) while postgres goes on.
	stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = s.pgctl(stopCtx, io.Discard, "stop", "-s", "-w", "-t", "30", "-m", "immediate")
	s.waitLog(2 * time.Second)
	return fmt.Errorf("pglaunch: starting PostgreSQL in %s: %w\n%s", s.cluster, err, out.String())
}

// includeConf makes postgresql.conf include pglaunch.conf, once.
func (s *Server) includeConf() error {
	name := filepath.Join(s.cluster, "postgresql.conf")
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	const line = "include_if_exists = 'pglaunch.conf'\t# written by pglaunch: port and addresses\n"
	if bytes.Contains(b, []byte(line)) {
		return nil
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	if _, err := f.WriteString("\n" + line); err != nil {
		f.Close()
		return fmt.Errorf("pglaunch: %w", err)
	}
	return f.Close()
}

// writeConf writes the settings that change with each start. They live in a file of their
// own, rather than in pg_ctl -o, because pg_ctl passes -o through /bin/sh.
func (s *Server) writeConf(port int) error {
	quote := func(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }
	conf := fmt.Sprintf("# Written by pglaunch at every start; changes here are lost.\n"+
		"listen_addresses = '127.0.0.1'\n"+
		"port = %d\n"+
		"unix_socket_directories = %s\n"+
		"unix_socket_permissions = 0700\n",
		port, quote(`"`+s.socketDir+`"`))
	name := filepath.Join(s.cluster, "pglaunch.conf")
	if err := os.WriteFile(name, []byte(conf), 0o600); err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	return s.acct.own(name, false)
}

// ensureDatabase creates database "workspaced" when it is missing.
func (s *Server) ensureDatabase(ctx context.Context) error {
	dsn := fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", superuser, s.Port)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("pglaunch: connecting to the new server: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "select exists (select from pg_database where datname = $1)", Database).Scan(&exists); err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "create database "+pgx.Identifier{Database}.Sanitize()); err != nil {
		return fmt.Errorf("pglaunch: creating database %s: %w", Database, err)
	}
	return nil
}

// command builds an exec.Cmd for one of the server programs, run as the server's account,
// with the PG* variables of this process removed so that PGDATA, PGPORT and the like in a
// person's shell cannot redirect it.
func (s *Server) command(ctx context.Context, program string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, program), args...)
	cmd.SysProcAttr = s.acct.credential()
	cmd.Dir = s.dataDir // this process's own may be closed to the server's account
	cmd.WaitDelay = 5 * time.Second
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	return cmd
}

// pgctl runs pg_ctl on the cluster with its output to w.
func (s *Server) pgctl(ctx context.Context, w io.Writer, args ...string) error {
	var out bytes.Buffer
	cmd := s.command(ctx, "pg_ctl", append(args, "-D", s.cluster)...)
	cmd.Stdout = io.MultiWriter(w, &out)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("%w: %s", err, msg)
		}
		return err
	}
	return nil
}

// waitLog waits, at most d, for the server's log pipe to be drained to logw.
func (s *Server) waitLog(d time.Duration) {
	if s.logDone == nil {
		return
	}
	select {
	case <-s.logDone:
	case <-time.After(d):
	}
}

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pglaunch: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// portTaken reports whether something now listens on 127.0.0.1:port.
func portTaken(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return true
	}
	l.Close()
	return false
}

// tailWriter keeps the last 4 KiB written to it, for error messages.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-4096:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(tail(t.buf))
}

// tail returns the last 4 KiB of b, trimmed.
func tail(b []byte) []byte {
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return bytes.TrimSpace(b)
}
