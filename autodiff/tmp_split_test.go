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

func BenchmarkTmpJacParts(b *testing.B) {
	m, p := load(b, "../examples/npc.qrc", check.Options{Data: []check.Assign{{Name: "train", Value: pendigits(b)}}})
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	nf := len(p.Functions())
	vals := make([]float64, nf)
	rows := make([][]float64, nf)
	for f := range rows {
		rows[f] = make([]float64, p.NumVars())
	}
	p.Eval(x, vals)
	p.Jacobian(rows)
	var best [2][3]float64
	for k := range best {
		best[k] = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for b.Loop() {
		for c := range 2 {
			runtime.GOMAXPROCS(c + 1)
			p.Jacobian(rows)
			t0 := time.Now()
			p.markFor(func(int) bool { return true })
			for _, r := range p.outs {
				if !r.konst {
					r.adj[0]++
				}
			}
			p.run(&p.bwd[0], false, nil)
			t1 := time.Now()
			for f, row := range rows {
				p.markFor(func(h int) bool { return h == f })
				clear(row)
				p.g = row
				for i := 1; i < len(p.bwd); i++ {
					p.run(&p.bwd[i], false, nil)
				}
				p.g = nil
			}
			t2 := time.Now()
			best[c][0] = min(best[c][0], t1.Sub(t0).Seconds())
			best[c][1] = min(best[c][1], t2.Sub(t1).Seconds())
		}
	}
	b.ReportMetric(best[0][0]*1e6, "ph0-1-us")
	b.ReportMetric(best[1][0]*1e6, "ph0-2-us")
	b.ReportMetric(best[0][1]*1e6, "tail-1-us")
	b.ReportMetric(best[1][1]*1e6, "tail-2-us")
}
