//go:build !race

package autodiff

// raceEnabled reports whether the tests run under the race detector, whose
// runtime allocates now and then on its own.
const raceEnabled = false
