package gctune

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestApply: with neither variable set the collector runs at Percent under MemoryLimit; a
// variable the operator set leaves the runtime's value alone.
func TestApply(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })

	Apply("100", "off")
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != 100 || l != math.MaxInt64 {
		t.Errorf("with GOGC and GOMEMLIMIT set: percent %d, limit %d; want them untouched", p, l)
	}
	Apply("", "")
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != Percent || l != MemoryLimit {
		t.Errorf("with neither set: percent %d, limit %d; want %d and %d", p, l, Percent, MemoryLimit)
	}
}
