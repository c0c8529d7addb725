package autodiff

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/qrc-lang/qrc/check"
)

func BenchmarkTmpSplit(b *testing.B) {
	m, p := load(b, "../examples/npc.qrc", check.Options{Data: []check.Assign{{Name: "train", Value: pendigits(b)}}})
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	nf := len(p.Functions())
	vals := make([]float64, nf)
	rows := make([][]float64, nf)
	for f := range rows {
		rows[f] = make([]float64, p.NumVars())
	}
	var best [2][2]float64
	for k := range best {
		best[k] = [2]float64{math.Inf(1), math.Inf(1)}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for b.Loop() {
		for c := range 2 {
			runtime.GOMAXPROCS(c + 1)
			p.Eval(x, vals)
			p.Jacobian(rows)
			t0 := time.Now()
			p.Eval(x, vals)
			t1 := time.Now()
			p.Jacobian(rows)
			t2 := time.Now()
			best[0][c] = min(best[0][c], t1.Sub(t0).Seconds())
			best[1][c] = min(best[1][c], t2.Sub(t1).Seconds())
		}
	}
	b.ReportMetric(best[0][0]*1e6, "eval1-us")
	b.ReportMetric(best[0][1]*1e6, "eval2-us")
	b.ReportMetric(best[1][0]*1e6, "jac1-us")
	b.ReportMetric(best[1][1]*1e6, "jac2-us")
}

func BenchmarkTmpJac(b *testing.B) {
	m, p := load(b, "../examples/npc.qrc", check.Options{Data: []check.Assign{{Name: "train", Value: pendigits(b)}}})
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	nf := len(p.Functions())
	vals := make([]float64, nf)
	rows := make([][]float64, nf)
	for f := range rows {
		rows[f] = make([]float64, p.NumVars())
	}
	p.Eval(x, vals)
	for b.Loop() {
		p.Jacobian(rows)
	}
}
