package solve

import "math"

// fn is one function of a test problem: its value and a subgradient.
type fn struct {
	f func(x []float64) float64
	g func(x, out []float64) // out = a subgradient at x
}

// build makes a Problem from f0 and the constraints; Grad uses the x of
// the last Eval, as the contract says.
func build(n int, fs []fn, project func([]float64)) *Problem {
	var last []float64
	tmp := make([]float64, n)
	return &Problem{
		N: n, M: len(fs) - 1,
		Eval: func(x, vals []float64) error {
			last = append(last[:0], x...)
			for i, f := range fs {
				vals[i] = f.f(x)
			}
			return nil
		},
		Grad: func(w, g []float64) error {
			clear(g)
			for i, f := range fs {
				if w[i] != 0 {
					f.g(last, tmp)
					for j := range g {
						g[j] += w[i] * tmp[j]
					}
				}
			}
			return nil
		},
		Project: project,
	}
}

func sqDist(c []float64) fn { // ||x - c||^2
	return fn{
		f: func(x []float64) float64 {
			s := 0.0
			for i := range x {
				s += (x[i] - c[i]) * (x[i] - c[i])
			}
			return s
		},
		g: func(x, out []float64) {
			for i := range x {
				out[i] = 2 * (x[i] - c[i])
			}
		},
	}
}

// sqNorm is a||x||^2 + b.
func sqNorm(a, b float64) fn {
	return fn{
		f: func(x []float64) float64 {
			s := 0.0
			for _, v := range x {
				s += v * v
			}
			return a*s + b
		},
		g: func(x, out []float64) {
			for i := range x {
				out[i] = 2 * a * x[i]
			}
		},
	}
}

// weightedL1 is sum_i a_i |x_i - c_i|.
func weightedL1(a, c []float64) fn {
	return fn{
		f: func(x []float64) float64 {
			s := 0.0
			for i := range x {
				s += a[i] * math.Abs(x[i]-c[i])
			}
			return s
		},
		g: func(x, out []float64) {
			for i := range x {
				switch {
				case x[i] > c[i]:
					out[i] = a[i]
				case x[i] < c[i]:
					out[i] = -a[i]
				default:
					out[i] = 0
				}
			}
		},
	}
}

// sumMinus is sum(x) - b.
func sumMinus(b float64) fn {
	return fn{
		f: func(x []float64) float64 {
			s := 0.0
			for _, v := range x {
				s += v
			}
			return s - b
		},
		g: func(x, out []float64) {
			for i := range out {
				out[i] = 1
			}
		},
	}
}

func box(lo, hi float64) func([]float64) {
	return func(x []float64) {
		for i := range x {
			x[i] = math.Min(math.Max(x[i], lo), hi)
		}
	}
}
