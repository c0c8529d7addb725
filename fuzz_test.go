package qrc_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/solve"
)

// FuzzParseSolve feeds arbitrary model text through the library: Parse,
// then Solve under a 20 ms time limit and a context deadline. Whatever the
// input, nothing panics; Parse gives a model or an *Error; a report has a
// known status and a point of the model's size, and a successful one is
// feasible within its eps. Data paths resolve in an empty directory.
func FuzzParseSolve(f *testing.F) {
	for _, src := range []string{
		"var x in box(-1, 1)\nminimize x^2\n",
		"var x[3] in box(-2, 2) = 0\nminimize sum(j in 1..3) x[j]\nsubject to\n    c: x[1] >= 1\n",
		"var x[2] in ball(1)\nfunc h(u) = max(u, 0)\nminimize norm1(x - 0.5)\nsubject to\n    c[k in 1..2]: h(x[k]) <= 0.25\n",
		"param r = 2\nvar w[2, 3] in ball(r, rows)\nminimize norm2(w[1]) - norm2(w[2])\nsubject to\n    a: sum(i in 1..2) sum(j in 1..3 where i != j) w[i, j] >= 0.1\n",
		"var t in nonneg = 1\nminimize log1p(t) + abs(t - 3)\nsubject to\n    c: exp(t) <= 10\n",
		"var x in box(-1, 1)\nminimize x\nsubject to\n    c: x^2 + 1 <= 0\n",
		// the epigraph oracle's forms: a linear program with an equality,
		// maxima of smooth pieces, kinks it cannot lift
		"var x[3] in box(-2, 2)\nminimize sum(j in 1..3) abs(x[j] - j) + max(x[1], x[2] - 1)\nsubject to\n    e: x[1] + x[2] == 1\n    c: pos(x[3] - x[1]) <= 1\n",
		"param n = 5\nvar x[n] = 2\nminimize sum(i in 1..n - 1) max(x[i]^4 + x[i + 1]^2, (2 - x[i])^2 + (2 - x[i + 1])^2, 2 * exp(-x[i] + x[i + 1]))\n",
		"var x in box(-3, 3)\nvar y\nminimize max(k in 1..3) abs(x - k) - abs(y) + norminf([x, y - 1])\nsubject to\n    c: max(x * y, sin(x)) <= 1\n",
	} {
		f.Add(src)
	}
	for _, name := range []string{"check/testdata/bad", "check/testdata/render"} {
		entries, _ := os.ReadDir(name)
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(name, e.Name())); err == nil && len(b) < 4096 {
				f.Add(string(b))
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		m, err := qrc.Parse(filepath.Join(dir, "f.qrc"), src, qrc.WithDataDir(dir))
		if err != nil {
			var e *qrc.Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error %T is not a *qrc.Error: %v", err, err)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		rep, err := m.Solve(ctx, qrc.WithSettings(solve.Settings{TimeLimit: 20 * time.Millisecond}), qrc.WithRestarts(1))
		if err != nil {
			return // an option the model refuses (an oracle), with a message
		}
		known := map[string]bool{}
		for s := solve.Converged; s <= solve.Unbounded; s++ { // every status, the last one included
			known[s.String()] = true
		}
		if !known[rep.Status] {
			t.Fatalf("unknown status %q", rep.Status)
		}
		if len(rep.X()) != m.NumVars() {
			t.Fatalf("the report's point has %d values, the model %d variables", len(rep.X()), m.NumVars())
		}
		if rep.Success && rep.Infeasibility > rep.Settings.Eps && !math.IsNaN(rep.Infeasibility) {
			t.Fatalf("success at infeasibility %g > eps %g (status %s)", rep.Infeasibility, rep.Settings.Eps, rep.Status)
		}
	})
}
