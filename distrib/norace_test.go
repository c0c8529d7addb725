//go:build !race

package distrib

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
