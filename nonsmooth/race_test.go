//go:build race

package nonsmooth

// raceEnabled reports whether the tests run under the race detector, which
// makes the suite's solves several times slower (CI runs go test -race too).
const raceEnabled = true
