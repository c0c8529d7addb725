package hs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/internal/pyfind"
)

// slsqpResult is one problem of ref/slsqp.py's output.
type slsqpResult struct {
	Name          string   `json:"name"`
	F             *float64 `json:"f"`
	Infeasibility *float64 `json:"infeasibility"`
	Success       bool     `json:"success"`
	Iterations    int      `json:"iterations"`
	Message       string   `json:"message"`
	Seconds       float64  `json:"seconds"`
}

// TestTable prints the table of docs/testsuite.md: every problem of the
// manifest with a model, qrc with its default settings (TimeLimit each,
// one at a time so that the times are comparable) beside SciPy's SLSQP
// from the same start (ref/slsqp.py), each scored by the suite's rule, and
// the totals. It runs only with QRC_HS_TABLE=1, and needs a python3 with
// numpy and scipy:
//
//	QRC_HS_TABLE=1 go test ./hs -run TestTable -v
//
// QRC_HS_TABLE_OUT=FILE also writes the table to FILE.
func TestTable(t *testing.T) {
	if os.Getenv("QRC_HS_TABLE") != "1" {
		t.Skip("set QRC_HS_TABLE=1 to print the table of qrc beside SLSQP")
	}
	py := pyfind.With(t, "numpy, scipy")
	problems := readManifest(t)
	var names []string
	for _, p := range problems {
		if p.Writable() {
			names = append(names, p.Name)
		}
	}
	cmd := exec.Command(py, append([]string{filepath.Join("ref", "slsqp.py")}, names...)...)
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
	fmt.Fprintln(&b, "| problem | n | m | f* | qrc status | qrc f | qrc infeasibility | qrc time (s) | qrc | SLSQP f | SLSQP infeasibility | SLSQP |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	// the counts, without (0) and with (1) equality constraints
	var run, qrcOK, slsqpOK, both [2]int
	for _, p := range problems {
		if !p.Writable() {
			continue
		}
		s, ok := slsqp[p.Name]
		if !ok {
			t.Fatalf("slsqp.py gave no result for %s", p.Name)
		}
		k := 0
		if p.Eq > 0 {
			k = 1
		}
		var qrcCells string
		o, err := Solve(context.Background(), p.Model("."), p.FStar, TimeLimit)
		switch {
		case err != nil:
			// a refusal (e.g. an equality in a model the analysis
			// cannot show differentiable) counts as a failure
			t.Logf("%s: %v", p.Name, err)
			qrcCells = "| refused | | | | ✗ |"
		default:
			qrcCells = fmt.Sprintf("| %s | %.8g | %.2g | %.3f | %s |", o.Status, o.Objective, o.Infeasibility, o.Seconds, mark(o.Success))
			if o.Success {
				qrcOK[k]++
			}
		}
		run[k]++
		if err == nil && o.Success && s.Success {
			both[k]++
		}
		if s.Success {
			slsqpOK[k]++
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %.10g %s %s | %s | %s |\n", p.Name, p.N, p.Ineq+p.Eq, p.FStar, qrcCells,
			optional(s.F, "%.8g"), optional(s.Infeasibility, "%.2g"), mark(s.Success))
	}
	for k, what := range []string{"without", "with"} {
		fmt.Fprintf(&b, "\nOf the %d problems %s equality constraints: qrc solves %d, SLSQP %d, both %d.\n", run[k], what, qrcOK[k], slsqpOK[k], both[k])
	}
	var w io.Writer = os.Stdout
	fmt.Fprint(w, b.String())
	if path := os.Getenv("QRC_HS_TABLE_OUT"); path != "" {
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

func optional(v *float64, format string) string {
	if v == nil {
		return "NaN"
	}
	return fmt.Sprintf(format, *v)
}
