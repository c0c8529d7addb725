// Package pyfind finds, for tests, a Python interpreter that imports the
// modules a reference script needs, or skips the test.
package pyfind

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

// With returns a Python interpreter that imports every module in modules
// (a comma-separated list, as Python's import statement takes it):
// $QRC_PYTHON when set, else python3 on the PATH, else Debian's
// /usr/bin/python3 (a pyenv shim on the PATH may lack Debian's numpy and
// scipy). The test is skipped when there is none. The answer for each
// list of modules is found once per process.
func With(t testing.TB, modules string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if found == nil {
		found = map[string]string{}
	}
	if py, ok := found[modules]; ok {
		if py == "" {
			t.Skipf("no python3 that imports %s (set QRC_PYTHON, or apt-get install python3-numpy python3-scipy)", modules)
		}
		return py
	}
	var candidates []string
	if env := os.Getenv("QRC_PYTHON"); env != "" {
		candidates = append(candidates, env)
	} else {
		if p, err := exec.LookPath("python3"); err == nil {
			candidates = append(candidates, p)
		}
		candidates = append(candidates, "/usr/bin/python3")
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import "+modules).Run() == nil {
			found[modules] = py
			return py
		}
	}
	found[modules] = ""
	t.Skipf("no python3 that imports %s (set QRC_PYTHON, or apt-get install python3-numpy python3-scipy)", modules)
	return ""
}

var (
	mu    sync.Mutex
	found map[string]string
)
