package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Test databases are named ws_test_<random> and carry a comment naming their creator, so
// the databases of test binaries that died before Main could drop them (killed by a
// timeout or a signal, crashed) can be told from those of binaries still running.
const (
	dbPrefix   = "ws_test_"
	markPrefix = "workspaced test binary"
	// unmarkedAge is the age after which a test database without a mark (made before
	// marks existed) is stale; foreignAge the same for one made on another host, whose
	// processes this one cannot see.
	unmarkedAge = time.Hour
	foreignAge  = 24 * time.Hour
)

// mark is the comment of a database made by this process.
func mark(now time.Time) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s host=%s pid=%d created=%s", markPrefix, host, os.Getpid(), now.UTC().Format(time.RFC3339))
}

// stale reports whether the database a comment describes outlived its creator: made on
// this host by a process that is gone, made elsewhere more than foreignAge ago, or
// unmarked and more than unmarkedAge old (modified is when its files were made, or the
// zero time when the server would not say).
func stale(comment string, modified, now time.Time, host string, alive func(pid int) bool) bool {
	if !strings.HasPrefix(comment, markPrefix) {
		return !modified.IsZero() && now.Sub(modified) > unmarkedAge
	}
	fields := map[string]string{}
	for _, f := range strings.Fields(strings.TrimPrefix(comment, markPrefix)) {
		k, v, _ := strings.Cut(f, "=")
		fields[k] = v
	}
	created, err := time.Parse(time.RFC3339, fields["created"])
	if err != nil {
		return false
	}
	if fields["host"] != host {
		return now.Sub(created) > foreignAge
	}
	pid, err := strconv.Atoi(fields["pid"])
	return err == nil && !alive(pid)
}

// processAlive reports whether a process with pid exists on this host (signal 0 checks
// without signalling; EPERM means it exists but is someone else's).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// sweep drops the stale test databases of the server conn is connected to, and returns
// their names. Databases of running binaries, on this host or another, are left alone, so
// packages testing in parallel never lose theirs; errors only leave a database for the
// next sweep.
func sweep(ctx context.Context, conn *pgx.Conn, now time.Time) []string {
	host, _ := os.Hostname()
	rows, err := conn.Query(ctx, `SELECT datname, coalesce(shobj_description(oid, 'pg_database'), '')
		FROM pg_database WHERE datname LIKE 'ws\_test\_%'`)
	if err != nil {
		return nil
	}
	type db struct{ name, comment string }
	dbs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (db, error) {
		var d db
		err := row.Scan(&d.name, &d.comment)
		return d, err
	})
	if err != nil {
		return nil
	}
	var dropped []string
	for _, d := range dbs {
		var modified time.Time
		if !strings.HasPrefix(d.comment, markPrefix) {
			// When its files were made; needs superuser (or pg_read_server_files), else
			// unmarked databases stay.
			_ = conn.QueryRow(ctx, `SELECT (pg_stat_file('base/' || oid || '/PG_VERSION')).modification
				FROM pg_database WHERE datname = $1`, d.name).Scan(&modified)
		}
		if !stale(d.comment, modified, now, host, processAlive) {
			continue
		}
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{d.name}.Sanitize()+" WITH (FORCE)"); err == nil {
			dropped = append(dropped, d.name)
		}
	}
	return dropped
}
