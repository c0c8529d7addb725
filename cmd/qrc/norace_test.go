//go:build !race

package main_test

// raceEnabled reports whether the tests run under the race detector (CI
// runs go test -race too): the heavy end-to-end solves skip then.
const raceEnabled = false
