// Package longtest gates the long test suites (the Hock–Schittkowski
// problems, the slowest end-to-end solves) behind an environment
// variable, so that the README's test command, go test ./..., stays under
// ten minutes on an idle 2-core machine and passes on a busy one; .ci/run
// sets QRC_LONG=1 and runs them.
package longtest

import (
	"os"
	"testing"
)

// Env is the variable that asks for the long suites: QRC_LONG=1.
const Env = "QRC_LONG"

// Enabled reports whether the long suites run (QRC_LONG=1).
func Enabled() bool { return os.Getenv(Env) == "1" }

// Require skips t unless the long suites run, saying what it is and how
// long it takes.
func Require(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("%s; QRC_LONG=1 runs it (.ci/run does)", what)
	}
}
