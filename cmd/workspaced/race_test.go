//go:build race

package main

// raceDetector reports whether the tests run under the race detector (go test -race), whose
// instrumentation makes latencies meaningless for timing judgements.
const raceDetector = true
