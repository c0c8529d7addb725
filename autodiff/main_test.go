package autodiff

import (
	"os"
	"testing"

	"github.com/qrc-lang/qrc/internal/shareddata"
)

// The tests run in parallel (t.Parallel) but for those that set
// GOMAXPROCS, count allocations or collect garbage: those run first, alone,
// as the test runner runs every test without t.Parallel before the others.
// No test changes how the package compiles or evaluates other tests'
// programs: each compiles with its own Options (testOptions).
func TestMain(m *testing.M) { os.Exit(shareddata.Main(m)) }
