package nonsmooth

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

// pythonWith returns a Python interpreter that imports every module in
// modules: $QRC_PYTHON when set, else python3 on the PATH, else Debian's
// /usr/bin/python3 (a pyenv shim on the PATH may lack Debian's numpy and
// scipy). The test is skipped when there is none.
func pythonWith(t *testing.T, modules string) string {
	t.Helper()
	pythonOnce.Do(func() { pythonFound = map[string]string{} })
	pythonMu.Lock()
	defer pythonMu.Unlock()
	if py, ok := pythonFound[modules]; ok {
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
			pythonFound[modules] = py
			return py
		}
	}
	pythonFound[modules] = ""
	t.Skipf("no python3 that imports %s (set QRC_PYTHON, or apt-get install python3-numpy python3-scipy)", modules)
	return ""
}

var (
	pythonOnce  sync.Once
	pythonMu    sync.Mutex
	pythonFound map[string]string
)
