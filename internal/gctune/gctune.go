// Package gctune is the service's garbage-collector setting (docs/operations.md, "Memory
// and the garbage collector"): cmd applies it once at startup.
package gctune

import "runtime/debug"

// The setting: the live heap is small, so Go's default (GOGC=100) collects often enough to
// cost about a tenth of a GET's server CPU; Percent collects less often, and MemoryLimit
// keeps a burst of sign-ins (argon2id holds 64 MiB a check) from growing the heap several
// times over. The measurements: docs/operations.md, "Memory and the garbage collector",
// and docs/performance.md, "Against a floor (load run)".
const (
	Percent     = 200
	MemoryLimit = 160 << 20 // bytes, a soft limit
)

// Apply runs the collector at Percent with a soft limit of MemoryLimit, each unless the
// operator set its variable: gogc and gomemlimit are the values of GOGC and GOMEMLIMIT,
// which the runtime has already read itself.
func Apply(gogc, gomemlimit string) {
	if gogc == "" {
		debug.SetGCPercent(Percent)
	}
	if gomemlimit == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
