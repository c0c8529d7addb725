package npcref

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/data"
)

// randomSet returns n rows of d features in [-1, 1] with labels from label.
func randomSet(rng *rand.Rand, n, d int, label func(i int) float64) *data.Set {
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, 2*rng.Float64()-1)
		}
		y[i] = label(i)
	}
	return &data.Set{X: x, Y: y}
}

// fd returns the central difference of f along coordinate j of x.
func fd(x []float64, j int, f func() float64) float64 {
	h := 1e-6
	v := x[j]
	x[j] = v + h
	p := f()
	x[j] = v - h
	m := f()
	x[j] = v
	return (p - m) / (2 * h)
}

// TestKernelFiniteDifferences checks every loss(k) against its definition
// summed directly with math.Exp, and every gradient against central
// differences, on 1 and 2 cores (more rows than a tile per class).
func TestKernelFiniteDifferences(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(1, 2))
	const K, d, n = 4, 5, 1000
	set := randomSet(rng, n, d, func(int) float64 { return float64(1 + rng.IntN(K)) })
	w := make([]float64, K*d)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	direct := func(k int) float64 {
		sum, m := 0.0, 0
		for i, y := range set.Y {
			if int(y) != k+1 {
				continue
			}
			m++
			row := set.X.RawRowView(i)
			for l := range K {
				if l == k {
					continue
				}
				z := 0.0
				for j := range d {
					z += (w[k*d+j] - w[l*d+j]) * row[j]
				}
				sum += 1 / (1 + math.Exp(z))
			}
		}
		return sum / float64(m)
	}
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		h := New(set, K)
		h.Eval(w)
		for k := range K {
			if got, want := h.Vals[k], direct(k); math.Abs(got-want) > 1e-13 {
				t.Errorf("procs %d: loss(%d) = %.17g, want %.17g", procs, k+1, got, want)
			}
			for j := range w {
				want := fd(w, j, func() float64 { return direct(k) })
				if got := h.Grads[k][j]; math.Abs(got-want) > 1e-8 {
					t.Errorf("procs %d: d loss(%d) / dW[%d] = %g, finite differences %g", procs, k+1, j, got, want)
				}
			}
		}
	}
}

// TestFairFiniteDifferences does the same for Fair.
func TestFairFiniteDifferences(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(3, 4))
	const d, n, beta, r = 4, 900, 0.7, 0.8
	set := randomSet(rng, n, d, func(int) float64 { return float64(2*rng.IntN(2) - 1) })
	group := make([]float64, n)
	for i := range group {
		group[i] = float64(rng.IntN(2))
	}
	x := []float64{0.5, -1, 2, 0.3}
	sig := func(u float64) float64 { return 1 / (1 + math.Exp(-u)) }
	direct := func(f int) float64 {
		var all, g0p, g0m, g1p, g1m float64
		var n0, n1 float64
		for i := range n {
			row := set.X.RawRowView(i)
			z := 0.0
			for j := range d {
				z += x[j] * row[j]
			}
			all += 1 / (1 + math.Exp(set.Y[i]*z))
			if group[i] == 0 {
				n0++
				g0p += sig(z)
				g0m += sig(-z)
			} else {
				n1++
				g1p += sig(z)
				g1m += sig(-z)
			}
		}
		switch f {
		case 0:
			return all / n
		case 1:
			return g0p/n0 + beta*g1m/n1 - r
		}
		return g1p/n1 + beta*g0m/n0 - r
	}
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		h, err := NewFair(set, group, beta, r)
		if err != nil {
			t.Fatal(err)
		}
		h.Eval(x)
		for f := range 3 {
			if got, want := h.Vals[f], direct(f); math.Abs(got-want) > 1e-13 {
				t.Errorf("procs %d: f%d = %.17g, want %.17g", procs, f, got, want)
			}
			for j := range x {
				want := fd(x, j, func() float64 { return direct(f) })
				if got := h.Grads[f][j]; math.Abs(got-want) > 1e-8 {
					t.Errorf("procs %d: d f%d / dx[%d] = %g, finite differences %g", procs, f, j, got, want)
				}
			}
		}
	}
	if _, err := NewFair(set, group[:10], beta, r); err == nil {
		t.Error("NewFair accepted a short group column")
	}
}
