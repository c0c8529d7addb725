package nonsmooth

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/qrc-lang/qrc/internal/pyfind"
)

// LPOptima are the optima of examples/control.qrc and
// examples/newsvendor.qrc that cmd/qrc's TestEpigraphLinearPrograms
// asserts: HiGHS's, from ref/lp.py on this machine (SciPy 1.10.1).
var LPOptima = map[string]float64{
	"control":    1.3793103448275867,
	"newsvendor": -457.97871142482734,
}

// The optima still agree with HiGHS on the independent transcription of
// ref/lp.py (to 1e-9 relative: another SciPy may round otherwise), when
// SciPy is at hand.
func TestLPReference(t *testing.T) {
	py := pyfind.With(t, "numpy, scipy")
	out, err := exec.Command(py, filepath.Join("ref", "lp.py")).Output()
	if err != nil {
		t.Fatalf("ref/lp.py: %v", err)
	}
	var got map[string]float64
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("ref/lp.py printed %q: %v", out, err)
	}
	for name, want := range LPOptima {
		if v, ok := got[name]; !ok || math.Abs(v-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: HiGHS gives %v, the tests assert %v", name, v, want)
		}
	}
}
