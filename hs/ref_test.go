package hs

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/internal/pyfind"
)

// reference is one problem of testdata/reference.json, written by
// ref/hs.py values from the numpy reference (never from qrc).
type reference struct {
	Name  string     `json:"name"`
	N     int        `json:"n"`
	X0    []float64  `json:"x0"`
	Start []float64  `json:"start"` // x0 projected onto the bounds
	Lb    []*float64 `json:"lb"`    // null: no bound
	Ub    []*float64 `json:"ub"`
	F     float64    `json:"f"` // at Start
	G     []float64  `json:"g"` // inequality rows g(Start) >= 0, in the model's order
	H     []float64  `json:"h"` // equality rows h(Start) = 0
	FStar float64    `json:"fstar"`
	XStar []float64  `json:"xstar"`
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
	byName := map[string]reference{}
	for _, r := range refs {
		byName[r.Name] = r
	}
	return byName
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
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestModelsMatchReference evaluates every model at its start and compares
// the start, the bounds, the objective and each constraint with the numpy
// reference (ref/hs.py), to 1e-12 relative: a transcription error in a
// model or in the reference shows as a mismatch (they were written
// separately from the published statements).
func TestModelsMatchReference(t *testing.T) {
	refs := readReference(t)
	for _, p := range readManifest(t) {
		if !p.Writable() {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			r, ok := refs[p.Name]
			if !ok {
				t.Fatalf("%s is not in testdata/reference.json", p.Name)
			}
			m, err := qrc.Load(p.Model("."))
			if err != nil {
				t.Fatal(err)
			}
			if m.NumVars() != r.N || p.N != r.N {
				t.Fatalf("n: model %d, manifest %d, reference %d", m.NumVars(), p.N, r.N)
			}
			x := m.Start()
			for i := range x {
				if x[i] != r.Start[i] {
					t.Errorf("start x%d: model %v, reference %v (published x0 %v)", i+1, x[i], r.Start[i], r.X0[i])
				}
			}
			lo, hi := bounds(m)
			for i := range lo {
				if !sameBound(lo[i], r.Lb[i], math.Inf(-1)) || !sameBound(hi[i], r.Ub[i], math.Inf(1)) {
					t.Errorf("bounds of x%d: model [%v, %v], reference [%v, %v]", i+1, lo[i], hi[i], deref(r.Lb[i], math.Inf(-1)), deref(r.Ub[i], math.Inf(1)))
				}
			}
			ev, err := m.Eval(x)
			if err != nil {
				t.Fatal(err)
			}
			if !close12(ev.Objective, r.F) {
				t.Errorf("f(x0): model %.17g, reference %.17g", ev.Objective, r.F)
			}
			if len(ev.Constraints) != len(r.G)+len(r.H) || len(r.G) != p.Ineq || len(r.H) != p.Eq {
				t.Fatalf("constraints: model %d, reference %d inequalities and %d equalities, manifest %d and %d",
					len(ev.Constraints), len(r.G), len(r.H), p.Ineq, p.Eq)
			}
			// qrc's value of an inequality is lhs - rhs for <= and rhs - lhs
			// for >=, so -g for the model's `g >= 0`; inequalities come first
			// in the models, then the equalities, lhs - rhs = h.
			for i, c := range ev.Constraints {
				want := 0.0
				if i < len(r.G) {
					want = -r.G[i]
				} else {
					want = r.H[i-len(r.G)]
				}
				if !close12(c.Value, want) {
					t.Errorf("constraint %d (%s) at x0: model %.17g, reference %.17g", i+1, c.Name, c.Value, want)
				}
			}
			if p.FStar != r.FStar {
				t.Errorf("f*: manifest %v, reference %v", p.FStar, r.FStar)
			}
			if len(p.XStar) != len(r.XStar) {
				t.Errorf("x*: manifest has %d values, reference %d", len(p.XStar), len(r.XStar))
			}
		})
	}
}

// bounds returns each scalar variable's box bounds (-Inf, +Inf where a
// side has none).
func bounds(m *qrc.Model) (lo, hi []float64) {
	lo, hi = make([]float64, m.NumVars()), make([]float64, m.NumVars())
	for i := range lo {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
	}
	for _, v := range m.Checked().Vars {
		if v.Domain == nil || v.Domain.Lo == nil {
			continue
		}
		copy(lo[v.Offset:], v.Domain.Lo)
		copy(hi[v.Offset:], v.Domain.Hi)
	}
	return lo, hi
}

func deref(p *float64, none float64) float64 {
	if p == nil {
		return none
	}
	return *p
}

func sameBound(v float64, ref *float64, none float64) bool { return v == deref(ref, none) }

// TestReferenceUpToDate regenerates testdata/reference.json from ref/hs.py
// and runs its own check (f(x*) against f*, x* feasible) when a Python
// with numpy is at hand: the stored values must be the reference's, to the
// 1e-12 relative to which TestModelsMatchReference compares the models
// with them. The files are compared as JSON values, never as text: numpy's
// last digits differ between versions and machines (hs070's f was
// 0.9818596139671963 with one numpy and ...962 with Debian's 1.24.2).
func TestReferenceUpToDate(t *testing.T) {
	py := pyfind.With(t, "numpy")
	out, err := exec.Command(py, filepath.Join("ref", "hs.py"), "values").Output()
	if err != nil {
		t.Fatalf("hs.py values: %v", err)
	}
	stored, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fresh, kept any
	if err := json.Unmarshal(out, &fresh); err != nil {
		t.Fatalf("hs.py values wrote no JSON: %v", err)
	}
	if err := json.Unmarshal(stored, &kept); err != nil {
		t.Fatal(err)
	}
	for _, d := range jsonDiffs("", fresh, kept, nil) {
		t.Errorf("testdata/reference.json is not what ref/hs.py writes (%s): run python3 hs/ref/hs.py values > hs/testdata/reference.json", d)
	}
	if out, err := exec.Command(py, filepath.Join("ref", "hs.py"), "check").CombinedOutput(); err != nil {
		t.Errorf("hs.py check: %v\n%s", err, out)
	}
}

// jsonDiffs appends to diffs where JSON values a (fresh) and b (stored)
// differ, at path: numbers beyond 1e-12 relative (close12), anything else
// when not equal.
func jsonDiffs(path string, a, b any, diffs []string) []string {
	if len(diffs) >= 10 {
		return diffs
	}
	switch av := a.(type) {
	case float64:
		if bv, ok := b.(float64); !ok || !close12(av, bv) {
			return append(diffs, fmt.Sprintf("%s: %v, stored %v", path, a, b))
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return append(diffs, fmt.Sprintf("%s: %d values, stored %v", path, len(av), b))
		}
		for i := range av {
			p := fmt.Sprintf("%s[%d]", path, i)
			if m, ok := av[i].(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					p = name
				}
			}
			diffs = jsonDiffs(p, av[i], bv[i], diffs)
		}
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return append(diffs, fmt.Sprintf("%s: an object, stored %v", path, b))
		}
		for _, k := range slices.Sorted(maps.Keys(av)) {
			if _, ok := bv[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: not stored", path, k))
				continue
			}
			diffs = jsonDiffs(path+"."+k, av[k], bv[k], diffs)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: stored, not written", path, k))
			}
		}
	default: // strings, booleans, null
		if a != b {
			return append(diffs, fmt.Sprintf("%s: %v, stored %v", path, a, b))
		}
	}
	return diffs
}

// jsonDiffs tells a last-digit difference (equal) from a wrong value, a
// missing field and a changed name (each a difference), naming the
// problem.
func TestJSONDiffs(t *testing.T) {
	parse := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	stored := parse(`[{"name": "hs070", "f": 0.9818596139671962, "g": [1809.7648, null], "n": 4}]`)
	for _, c := range []struct {
		fresh string
		want  string // "" for no difference
	}{
		{`[{"name": "hs070", "f": 0.9818596139671963, "g": [1809.7648, null], "n": 4}]`, ""},
		{`[{"name": "hs070", "f": 0.9818596139671963, "g": [1809.7647999999998, null], "n": 4}]`, ""},
		{`[{"name": "hs070", "f": 0.98185961397, "g": [1809.7648, null], "n": 4}]`, "hs070.f: 0.98185961397, stored 0.9818596139671962"},
		{`[{"name": "hs070", "f": 0.9818596139671962, "g": [1809.7648, 0], "n": 4}]`, "hs070.g[1]: 0, stored <nil>"},
		{`[{"name": "hs070", "f": 0.9818596139671962, "g": [1809.7648, null]}]`, "hs070.n: stored, not written"},
		{`[{"name": "hs071", "f": 0.9818596139671962, "g": [1809.7648, null], "n": 4}]`, "hs071.name: hs071, stored hs070"},
	} {
		d := jsonDiffs("", parse(c.fresh), stored, nil)
		if c.want == "" {
			if len(d) > 0 {
				t.Errorf("%s: differences %q", c.fresh, d)
			}
			continue
		}
		if len(d) != 1 || d[0] != c.want {
			t.Errorf("%s: differences %q, want [%q]", c.fresh, d, c.want)
		}
	}
}
