package solve

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The bundle's dual is maximised first by accelerated projected gradient
// ascent, which finds the cuts that carry weight quickly but approaches
// the maximum only at a sublinear rate; the gap the certificate needs for
// a stationarity of 1e-6 is about 1e-13 relative, out of its reach. So
// dualNewton then refines the weights by Newton steps on the face of the
// dual's feasible set where they lie (an active-set method): on that face
// the dual is smooth while the projection onto X keeps its active set, its
// Hessian over the face's weights comes from differences of the gradient
// (one dual evaluation per weight on the face, each costing the cuts times
// the dimension), and each step is kept only when it raises the dual's
// value. Any dual feasible point's value is a lower bound on (7), so the
// refinement can only tighten the bound: when a step fails, the weights
// stay as they were.

const (
	newtonIter   = 40   // Newton steps at most per model solve
	newtonMaxFac = 80   // the most weights a Newton step works on
	newtonHalves = 30   // step halvings at most
	newtonFD     = 1e-7 // relative step of the Hessian's differences
)

// dualNewton raises the dual value D at the dual feasible weights w by
// Newton steps and returns the new value; w is changed only to weights
// with a larger value.
func (s *bundleMethod) dualNewton(xt []float64, mu float64, w []float64, D float64) float64 {
	bs := s.bundle
	K := len(bs.cuts)
	nb := &bs.newton
	g, gp, wt, y := grow(&nb.g, K), grow(&nb.gp, K), grow(&nb.wt, K), grow(&nb.y, s.n)
	// gradE gives the dual's gradient at v (the objective cuts' entries
	// without dualEval's constant q) and its value
	gradE := func(v, gg []float64) float64 {
		val := s.dualEval(xt, mu, v, y, gg)
		q := 0.0
		for j := range y {
			d := y[j] - xt[j]
			q += d * d
		}
		q *= mu / 2
		for k, c := range bs.cuts {
			if c.fn == 0 {
				gg[k] -= q
			}
		}
		return val
	}
	D = math.Max(D, gradE(w, g))
	for range newtonIter {
		face := nb.face[:0]
		level := math.Inf(-1)
		for k, c := range bs.cuts {
			if w[k] > 0 {
				face = append(face, k)
				if c.fn == 0 {
					level = math.Max(level, g[k])
				}
			}
		}
		// the weight outside the face that most wants to enter it
		enter, viol := -1, 1e-13*(1+math.Abs(D))
		for k, c := range bs.cuts {
			if w[k] > 0 {
				continue
			}
			v := g[k]
			if c.fn == 0 {
				v -= level
			}
			if v > viol {
				enter, viol = k, v
			}
		}
		if enter >= 0 {
			face = append(face, enter)
		}
		nb.face = face
		F := len(face)
		if F > newtonMaxFac {
			break
		}
		// the KKT system over the face: the Hessian by forward
		// differences, bordered by the objective weights' sum
		n1 := F + 1
		H := blas64.General{Rows: n1, Cols: n1, Stride: n1, Data: grow(&nb.h, n1*n1)}
		clear(H.Data)
		sol := grow(&nb.sol, n1)
		sol[F] = 0
		hasObj := false
		for a, k := range face {
			h := newtonFD * math.Max(1, w[k])
			copy(wt, w)
			wt[k] += h
			gradE(wt, gp)
			for b, l := range face {
				H.Data[b*n1+a] = (gp[l] - g[l]) / h
			}
			sol[a] = -g[k]
			if bs.cuts[k].fn == 0 {
				H.Data[a*n1+F], H.Data[F*n1+a] = 1, 1
				hasObj = true
			}
		}
		if !hasObj {
			break
		}
		// symmetrise and make it definite: the dual is concave but may
		// be flat along the face
		scale := 0.0
		for a := range F {
			for b := range a {
				v := (H.Data[a*n1+b] + H.Data[b*n1+a]) / 2
				H.Data[a*n1+b], H.Data[b*n1+a] = v, v
			}
			scale = math.Max(scale, math.Abs(H.Data[a*n1+a]))
		}
		for a := range F {
			H.Data[a*n1+a] -= 1e-10*scale + 1e-300
		}
		// LU (lapack64, no condition estimate: that took a quarter of the
		// time); a singular or non-finite system ends the refinement
		nb.ipiv = slices.Grow(nb.ipiv[:0], n1)[:n1]
		if !lapack64.Getrf(H, nb.ipiv) {
			break
		}
		lapack64.Getrs(blas.NoTrans, H, blas64.General{Rows: n1, Cols: 1, Stride: 1, Data: sol}, nb.ipiv)
		if !finite(sol) {
			break
		}
		// the longest step along d that keeps the weights nonnegative
		tmax, hit := 1.0, -1
		for a, k := range face {
			// (a weight entering at 0 with d < 0 is clipped instead)
			if d := sol[a]; d < 0 && w[k] > 0 && w[k]+d < 0 {
				if t := -w[k] / d; t < tmax {
					tmax, hit = t, k
				}
			}
		}
		improved := false
		for t := tmax; !improved && t > 0; t /= 2 {
			copy(wt, w)
			for a, k := range face {
				wt[k] = math.Max(0, w[k]+t*sol[a])
			}
			if t == tmax && hit >= 0 {
				wt[hit] = 0
			}
			if !normaliseObjective(bs.cuts, wt) {
				continue // the step left no weight on the objective
			}
			if Dt := gradE(wt, gp); Dt > D {
				D, improved = Dt, true
				copy(w, wt)
				copy(g, gp)
			}
			if tmax/t > 1<<newtonHalves {
				break
			}
		}
		if !improved {
			break
		}
	}
	return D
}

// normaliseObjective scales the objective cuts' weights in w to sum to
// one. It reports false, and leaves w, when they sum to zero.
func normaliseObjective(cuts []cut, w []float64) bool {
	sum := 0.0
	for k, c := range cuts {
		if c.fn == 0 {
			sum += w[k]
		}
	}
	if sum <= 0 {
		return false
	}
	for k, c := range cuts {
		if c.fn == 0 {
			w[k] /= sum
		}
	}
	return true
}

// newtonBufs is dualNewton's work space, kept from one model solve to
// the next.
type newtonBufs struct {
	g, gp, wt, y, h, sol []float64
	face, ipiv           []int
}

// finite reports whether every element of v is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
	}
	return true
}
