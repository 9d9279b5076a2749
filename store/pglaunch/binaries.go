package pglaunch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Binaries finds the PostgreSQL server binaries: a directory holding pg_ctl, initdb and
// postgres. It looks first at the pg_ctl on PATH (following symlinks, since pg_ctl finds
// postgres beside its real path), so a person can choose a build by putting it first on
// PATH; then at the Debian and Ubuntu layout /usr/lib/postgresql/*/bin and the PGDG RPM
// layout /usr/pgsql-*/bin, taking the highest version. version is what `postgres --version`
// reports, such as "15.19".
//
// The error, when nothing is found, says what to install or to set DATABASE_URL, because
// it is the first thing a person sees when `go run ./cmd/workspaced` cannot start a
// private database.
func Binaries() (dir string, version string, err error) {
	return findBinaries(os.Getenv("PATH"), []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin"})
}

// findBinaries is Binaries with the search places as arguments, so tests can make it fail.
func findBinaries(path string, globs []string) (string, string, error) {
	var candidates []string
	if p, err := lookPath(path, "pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			candidates = append(candidates, filepath.Dir(real))
		}
	}
	for _, g := range globs {
		matches, _ := filepath.Glob(g) // the patterns are constant and valid
		// Highest version first: the version is the path element holding a digit.
		slices.SortStableFunc(matches, func(a, b string) int {
			return compareVersions(versionInPath(b), versionInPath(a))
		})
		candidates = append(candidates, matches...)
	}

	var problems []string
	for _, dir := range candidates {
		if !hasServerBinaries(dir) {
			continue
		}
		v, err := serverVersion(dir)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		return dir, v, nil
	}
	msg := "pglaunch: no PostgreSQL server binaries (pg_ctl, initdb and postgres in one folder) " +
		"found on PATH or under " + strings.Join(globs, " or ") +
		"; install them (Debian or Ubuntu: apt-get install postgresql) " +
		"or set DATABASE_URL to use a PostgreSQL server you already run"
	if len(problems) > 0 {
		msg += " (" + strings.Join(problems, "; ") + ")"
	}
	return "", "", errors.New(msg)
}

// lookPath is exec.LookPath over an explicit PATH value.
func lookPath(path, name string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// hasServerBinaries reports whether dir holds the three programs Start runs.
func hasServerBinaries(dir string) bool {
	for _, name := range []string{"pg_ctl", "initdb", "postgres"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// serverVersion runs `postgres --version` (allowed as root) and returns the version number
// from "postgres (PostgreSQL) 15.19 (Debian 15.19-0+deb12u1)".
func serverVersion(dir string) (string, error) {
	out, err := exec.Command(filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", filepath.Join(dir, "postgres"), err)
	}
	for _, f := range strings.Fields(string(out)) {
		if f[0] >= '0' && f[0] <= '9' {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s --version printed no version: %q", filepath.Join(dir, "postgres"), out)
}

// majorVersion is the part of a version that names an on-disk format, as PG_VERSION holds
// it: "15" for 15.19, "9.6" for 9.6.24.
func majorVersion(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if n, err := strconv.Atoi(parts[0]); err == nil && n < 10 && len(parts) > 1 {
		return parts[0] + "." + parts[1]
	}
	// "16beta1" and the like: keep the leading digits.
	if i := strings.IndexFunc(parts[0], func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		return parts[0][:i]
	}
	return parts[0]
}

// versionInPath returns the first path element that starts with a digit or holds one
// after "pgsql-": "15" in /usr/lib/postgresql/15/bin, "16" in /usr/pgsql-16/bin.
func versionInPath(p string) string {
	for _, e := range strings.Split(p, string(filepath.Separator)) {
		e = strings.TrimPrefix(e, "pgsql-")
		if e != "" && e[0] >= '0' && e[0] <= '9' {
			return e
		}
	}
	return ""
}

// compareVersions compares dotted numeric versions ("9.6" < "15" < "15.2").
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}
