package nonsmooth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/internal/pyfind"
	"github.com/qrc-lang/qrc/solve"
)

// slsqpResult is one problem of ref/slsqp.py's output.
type slsqpResult struct {
	Name       string   `json:"name"`
	F          *float64 `json:"f"`
	Success    bool     `json:"success"`
	Iterations int      `json:"iterations"`
	Message    string   `json:"message"`
	Seconds    float64  `json:"seconds"`
}

// TestTable prints the table of docs/testsuite.md: every problem of the
// manifest with a model, qrc with its default settings and a TimeLimit of
// 30 s (one problem at a time, so that the times compare) beside SciPy's
// SLSQP on the epigraph form from the same start (ref/slsqp.py), each
// scored by the suite's rule, and the counts per set. It runs only with
// QRC_NONSMOOTH_TABLE=1 and needs a python3 with numpy and scipy:
//
//	QRC_NONSMOOTH_TABLE=1 go test ./nonsmooth -run TestTable -v -timeout 3h
//
// QRC_NONSMOOTH_TABLE_OUT=FILE also writes the table to FILE;
// QRC_NONSMOOTH_SETS=minimax,general limits it to those sets.
func TestTable(t *testing.T) {
	if os.Getenv("QRC_NONSMOOTH_TABLE") != "1" {
		t.Skip("set QRC_NONSMOOTH_TABLE=1 to print the table of qrc beside SLSQP")
	}
	py := pyfind.With(t, "numpy, scipy")
	sets := map[string]bool{Minimax: true, General: true, Large: true}
	if s := os.Getenv("QRC_NONSMOOTH_SETS"); s != "" {
		sets = map[string]bool{}
		for _, name := range strings.Split(s, ",") {
			sets[name] = true
		}
	}
	var problems []Problem
	var ids []string
	for _, p := range readManifest(t) {
		if p.Writable() && sets[p.Set] {
			problems = append(problems, p)
			ids = append(ids, p.ID())
		}
	}
	cmd := exec.Command(py, append([]string{filepath.Join("ref", "slsqp.py")}, ids...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("slsqp.py: %v", err)
	}
	var results []slsqpResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatal(err)
	}
	slsqp := map[string]slsqpResult{}
	for _, r := range results {
		slsqp[r.Name] = r
	}

	var b strings.Builder
	fmt.Fprintln(&b, "| problem | set | n | f* | qrc status | qrc f | qrc time (s) | qrc | SLSQP f | SLSQP time (s) | SLSQP |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|")
	run, qrcOK, slsqpOK, both := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for _, p := range problems {
		s, ok := slsqp[p.ID()]
		if !ok {
			t.Fatalf("slsqp.py gave no result for %s", p.ID())
		}
		o, err := Solve(context.Background(), p, ".", solve.Settings{TimeLimit: TimeLimit})
		var qrcCells string
		if err != nil {
			t.Logf("%s: %v", p.ID(), err)
			qrcCells = "| error | | | no |"
		} else {
			qrcCells = fmt.Sprintf("| %s | %.8g | %.2f | %s |", o.Status, o.Objective, o.Seconds, mark(o.Success))
			t.Logf("%s: %s f = %.10g (f* %.10g) %d outer %.2fs %s", p.ID(), o.Status, o.Objective, p.FStar, o.Outer, o.Seconds, mark(o.Success))
		}
		run[p.Set]++
		if err == nil && o.Success {
			qrcOK[p.Set]++
			if s.Success {
				both[p.Set]++
			}
		}
		if s.Success {
			slsqpOK[p.Set]++
		}
		sCells := fmt.Sprintf(" – | %.2f | %s |", s.Seconds, mark(s.Success))
		if s.F != nil {
			sCells = fmt.Sprintf(" %.8g | %.2f | %s |", *s.F, s.Seconds, mark(s.Success))
		}
		if strings.HasPrefix(s.Message, "not run") {
			sCells = " | | not run |"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.8g %s%s\n", p.Name, p.Set, p.N, p.FStar, qrcCells, sCells)
	}
	fmt.Fprintln(&b)
	for _, set := range []string{Minimax, General, Lincon, Large} {
		if run[set] > 0 {
			fmt.Fprintf(&b, "- %s: of %d problems qrc solves %d, SLSQP %d, both %d.\n", set, run[set], qrcOK[set], slsqpOK[set], both[set])
		}
	}
	fmt.Print(b.String())
	if path := os.Getenv("QRC_NONSMOOTH_TABLE_OUT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func mark(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
