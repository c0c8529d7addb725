//go:build !race

package python

// raceEnabled reports whether the tests run under the race detector (CI
// runs go test -race too): the Python tests, whose qrc is built without
// it, then skip; they run once, in the plain go test.
const raceEnabled = false
