package nonsmooth

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/qrc-lang/qrc/internal/pyfind"
)

// refPoint is one point of a problem in testdata/reference.json: x in the
// problem's own variable order, q in its model's layout, and f there, all
// written by ref/lv.py values from the numpy reference (never from qrc).
type refPoint struct {
	X []float64 `json:"x"`
	Q []float64 `json:"q"`
	F float64   `json:"f"`
	G []float64 `json:"g"` // each constraint's value in qrc's convention (a.x - b for <=, b - a.x for >=)
}

// reference is one problem (at one size, for the large set) of
// testdata/reference.json. Points[0] is the published start.
type reference struct {
	Name   string     `json:"name"`
	Set    string     `json:"set"`
	N      int        `json:"n"`
	FStar  *float64   `json:"fstar"` // null: the reference has no f* at this size
	Layout string     `json:"layout"`
	Points []refPoint `json:"points"`
}

func (r reference) id() string {
	if r.Set == Large {
		return r.Name + "/" + strconv.Itoa(r.N)
	}
	return r.Name
}

func readReference(t *testing.T) map[string]reference {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	byID := map[string]reference{}
	for _, r := range refs {
		byID[r.id()] = r
	}
	return byID
}

func readManifest(t *testing.T) []Problem {
	t.Helper()
	ps, err := ReadManifest("problems.tsv")
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// close12 reports whether a and b agree to 1e-12 relative (absolute for
// values below 1).
func close12(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestModelsMatchReference evaluates every model at its start and at the
// reference's two other points and compares f and each constraint with
// the numpy reference
// (ref/lv.py), to 1e-12 relative; the model's start must be the
// reference's (the published x0, in the model's layout) exactly, and f*
// and n must agree with the manifest. A transcription error in a model or
// in the reference shows as a mismatch: they were written separately from
// the published statements.
func TestModelsMatchReference(t *testing.T) {
	refs := readReference(t)
	for _, p := range readManifest(t) {
		if !p.Writable() {
			continue
		}
		t.Run(p.ID(), func(t *testing.T) {
			r, ok := refs[p.ID()]
			if !ok {
				t.Fatalf("%s is not in testdata/reference.json", p.ID())
			}
			if r.Set != p.Set || r.N != p.N {
				t.Fatalf("set and n: manifest %s, %d; reference %s, %d", p.Set, p.N, r.Set, r.N)
			}
			if r.FStar == nil || *r.FStar != p.FStar {
				t.Errorf("f*: manifest %v, reference %v", p.FStar, r.FStar)
			}
			m, err := p.Load(".")
			if err != nil {
				t.Fatal(err)
			}
			if m.NumVars() != p.N {
				t.Fatalf("n: model %d, manifest %d", m.NumVars(), p.N)
			}
			x0 := m.Start()
			for i := range x0 {
				if x0[i] != r.Points[0].Q[i] {
					t.Fatalf("start: model's element %d is %v, the reference's %v", i+1, x0[i], r.Points[0].Q[i])
				}
			}
			if len(r.Points) < 2 && p.N <= 200 {
				t.Errorf("the reference has only the start for %s", p.ID())
			}
			for k, pt := range r.Points {
				ev, err := m.Eval(pt.Q)
				if err != nil {
					t.Fatalf("point %d: %v", k, err)
				}
				if !close12(ev.Objective, pt.F) {
					t.Errorf("f at point %d (0: the start): model %.17g, reference %.17g", k, ev.Objective, pt.F)
				}
				if len(ev.Constraints) != len(pt.G) {
					t.Fatalf("constraints: model %d, reference %d", len(ev.Constraints), len(pt.G))
				}
				for i, c := range ev.Constraints {
					if !close12(c.Value, pt.G[i]) {
						t.Errorf("constraint %s at point %d: model %.17g, reference %.17g", c.Name, k, c.Value, pt.G[i])
					}
				}
			}
		})
	}
}

// TestReferenceUpToDate regenerates testdata/reference.json from
// ref/lv.py and runs its own check (f finite at every start, no start below
// f*) when a Python with numpy is at hand: the stored values must be the
// reference's, number for number (to 1e-15 relative, so that numpy's last
// bits on another machine do not matter).
func TestReferenceUpToDate(t *testing.T) {
	py := pyfind.With(t, "numpy")
	out, err := exec.Command(py, filepath.Join("ref", "lv.py"), "values").Output()
	if err != nil {
		t.Fatalf("lv.py values: %v", err)
	}
	var fresh []reference
	if err := json.Unmarshal(out, &fresh); err != nil {
		t.Fatal(err)
	}
	stored := readReference(t)
	if len(fresh) != len(stored) {
		t.Errorf("lv.py writes %d problems, testdata/reference.json holds %d: run python3 nonsmooth/ref/lv.py values > nonsmooth/testdata/reference.json", len(fresh), len(stored))
	}
	same := func(a, b float64) bool {
		return a == b || math.Abs(a-b) <= 1e-15*math.Max(math.Abs(a), math.Abs(b))
	}
	for _, r := range fresh {
		s, ok := stored[r.id()]
		if !ok || len(s.Points) != len(r.Points) {
			t.Errorf("%s: testdata/reference.json is not what lv.py writes", r.id())
			continue
		}
		for k := range r.Points {
			if !same(s.Points[k].F, r.Points[k].F) || len(s.Points[k].Q) != len(r.Points[k].Q) {
				t.Errorf("%s point %d: stored f %v, lv.py %v", r.id(), k, s.Points[k].F, r.Points[k].F)
				continue
			}
			for i := range r.Points[k].Q {
				if !same(s.Points[k].Q[i], r.Points[k].Q[i]) {
					t.Errorf("%s point %d: stored element %d %v, lv.py %v", r.id(), k, i+1, s.Points[k].Q[i], r.Points[k].Q[i])
					break
				}
			}
		}
	}
	if out, err := exec.Command(py, filepath.Join("ref", "lv.py"), "check").CombinedOutput(); err != nil {
		t.Errorf("lv.py check: %v\n%s", err, out)
	}
}
