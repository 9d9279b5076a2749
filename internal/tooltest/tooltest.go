// Package tooltest gates the tests that run real third-party tools installed beside the
// Go toolchain (Node packages under */testdata/*/node_modules, headless Chromium). A fresh
// clone with PostgreSQL and Redis passes go test ./... with those tests skipped, saying
// so; .ci/test installs the tools and sets EnvVar, and then a missing tool fails its test.
package tooltest

import (
	"os"
	"testing"
)

// EnvVar enables the tool tests; .ci/test always sets it to 1.
const EnvVar = "WORKSPACED_TOOL_TESTS"

// Require skips tb, naming what it needs and how to run it, unless EnvVar is set. When it
// is set Require returns, and the test fails (never skips) if the tool is missing.
func Require(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv(EnvVar) == "" {
		tb.Skipf("needs %s, which .ci/test installs: run bash .ci/test, or set %s=1 once they are installed", what, EnvVar)
	}
}
