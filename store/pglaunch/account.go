package pglaunch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// account is the unprivileged user PostgreSQL runs as when this process is root: initdb,
// pg_ctl and postgres all refuse to run as root. A nil *account means "as this process".
type account struct {
	name     string
	uid, gid uint32
}

// credential is what exec.Cmd needs to run a program as a; nil for nil.
func (a *account) credential() *syscall.SysProcAttr {
	if a == nil {
		return nil
	}
	// Groups empty: the server gets its primary group only, not root's supplementary ones.
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: []uint32{}}}
}

// serverAccount chooses who runs PostgreSQL. Not root: this process's user (nil). Root: the
// owner of an existing cluster when that is not root (so a folder made by a person's own
// account keeps working under sudo), else the "postgres" system user that Debian's package
// creates, else "nobody".
func serverAccount(cluster string) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if fi, err := os.Stat(filepath.Join(cluster, "PG_VERSION")); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
			name := strconv.FormatUint(uint64(st.Uid), 10)
			if u, err := user.LookupId(name); err == nil {
				name = u.Username
			}
			return &account{name: name, uid: st.Uid, gid: st.Gid}, nil
		}
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &account{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
	}
	return nil, errors.New("pglaunch: running as root, and PostgreSQL refuses to run as root, " +
		"but there is no \"postgres\" or \"nobody\" user to run it as; create one " +
		"(Debian: apt-get install postgresql creates \"postgres\") or set DATABASE_URL")
}

// own makes dir belong to a (a no-op for nil), recursively when recurse is set and the
// top does not already belong to a.
func (a *account) own(dir string, recurse bool) error {
	if a == nil {
		return nil
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && st.Uid == a.uid && st.Gid == a.gid {
		return nil
	}
	if !recurse {
		return os.Lchown(dir, int(a.uid), int(a.gid))
	}
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(a.uid), int(a.gid))
	})
}

// reach lets a traverse every folder above dir by adding search permission (x, never r)
// for a's class where a could not pass: postgres needs to chdir into its data folder, and
// t.TempDir or a folder under /root is 0700 root. Each change is written to logw, since it
// changes a folder that is not ours.
func (a *account) reach(dir string, logw io.Writer) error {
	if a == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		var bit fs.FileMode = 0o001
		switch {
		case st.Uid == a.uid:
			bit = 0o100
		case st.Gid == a.gid:
			bit = 0o010
		}
		if fi.Mode().Perm()&bit == 0 {
			mode := fi.Mode().Perm() | bit
			if err := os.Chmod(p, mode); err != nil {
				return fmt.Errorf("pglaunch: PostgreSQL runs as %s and cannot reach %s: %w", a.name, p, err)
			}
			fmt.Fprintf(logw, "pglaunch: made %s searchable (mode %o) so that PostgreSQL, running as %s, can reach %s\n", p, mode, a.name, dir)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
