package python

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/qrc-lang/qrc/internal/shareddata"
)

func TestMain(m *testing.M) { os.Exit(shareddata.Main(m)) }

// python returns a Python interpreter that has numpy, pandas and pytest:
// $QRC_PYTHON, python3 on PATH or /usr/bin/python3 (Debian's), the first
// that imports them; "" when none does.
func python() string {
	var cands []string
	if p := os.Getenv("QRC_PYTHON"); p != "" {
		cands = append(cands, p)
	}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	for _, p := range cands {
		if err := exec.Command(p, "-c", "import numpy, pandas, pytest").Run(); err == nil {
			return p
		}
	}
	return ""
}

var pytestSummary = regexp.MustCompile(`(?m)^=* ?(\d+ (passed|failed|skipped|error).*?) in [0-9.]+s`)

// TestPytest runs the Python package's tests (python/tests) with a qrc
// built from this tree, and fails when one fails. It skips when no Python
// with numpy, pandas and pytest is found (.ci/run installs Debian's).
func TestPytest(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector: the Python tests run in the plain go test")
	}
	py := python()
	if py == "" {
		t.Skip("no python3 with numpy, pandas and pytest (Debian: apt-get install python3-numpy python3-pandas python3-pytest)")
	}
	// the tests on the real Adult skip without it; say so in the summary
	if _, err := os.Stat(shareddata.Path("adult.csv")); err != nil {
		t.Run("adult", func(t *testing.T) { shareddata.Require(t, "adult.csv") })
	}
	bin := filepath.Join(t.TempDir(), "qrc")
	build := exec.Command("go", "build", "-o", bin, "./cmd/qrc")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/qrc: %v\n%s", err, out)
	}
	cmd := exec.Command(py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "QRC_BINARY="+bin, "PYTHONPATH=python", "PYTHONDONTWRITEBYTECODE=1",
		"QRC_SHARED_DATA="+filepath.Dir(shareddata.Path("adult.csv")))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		t.Fatalf("%s -m pytest python/tests: %v\n%s", py, err, out.String())
	}
	if m := pytestSummary.FindStringSubmatch(out.String()); m != nil {
		t.Logf("pytest (%s): %s", py, m[1])
	} else {
		t.Fatalf("no pytest summary in its output:\n%s", out.String())
	}
}
