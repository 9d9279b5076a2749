//go:build !race

package main

// raceDetector reports whether the tests run under the race detector (go test -race).
const raceDetector = false
