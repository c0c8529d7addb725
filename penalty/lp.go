package penalty

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Subproblem is the linear model of the exact penalty function at a point
// x, to be minimised over the trust region:
//
//	minimize  l(s) = G0·s + P * sum_i max(0, F[i] + G[i]·s)   over ||s||_inf <= Delta
//
// The constant f0(x) is left out of l. With G0 nil (zero) and P = 1 it is
// the linearised infeasibility, which the steering rule minimises.
type Subproblem struct {
	G0    []float64   // a subgradient of f0 at x, or nil for zero
	F     []float64   // the constraint values fi(x), i = 1..m
	G     [][]float64 // G[i] is a subgradient of fi at x (all of length N)
	P     float64     // the penalty parameter, >= 0
	Delta float64     // the trust-region radius, > 0
}

// N returns the number of variables.
func (sp *Subproblem) N() int {
	if sp.G0 != nil {
		return len(sp.G0)
	}
	if len(sp.G) > 0 {
		return len(sp.G[0])
	}
	return 0
}

// Model returns l(s).
func (sp *Subproblem) Model(s []float64) float64 {
	v := 0.0
	if sp.G0 != nil {
		v = dot(sp.G0, s)
	}
	return v + sp.P*sp.Violation(s)
}

// Violation returns the linearised infeasibility sum_i max(0, F[i] + G[i]·s).
func (sp *Subproblem) Violation(s []float64) float64 {
	v := 0.0
	for i, fi := range sp.F {
		v += math.Max(0, fi+dot(sp.G[i], s))
	}
	return v
}

// Solve returns a minimiser s of l over the trust region and the number of
// simplex pivots it took.
//
// The problem is the linear program
//
//	minimize  G0·s + P sum_i t_i
//	subject to  G s - t + q = -F,   -Delta <= s <= Delta,   t, q >= 0
//
// (t_i >= max(0, F[i] + G[i]·s) at the optimum, q the slacks). It is solved
// by a primal simplex method with bounded variables, so the box on s needs
// no rows: the basis has only m rows, one per constraint, and a pivot costs
// O(m·N + m²). The start is the vertex s_j = -Delta·sign(G0_j) with the
// basis of t or q slacks; Dantzig's rule picks the entering variable, and
// Bland's rule takes over after a run of degenerate pivots, which rules out
// cycling. See docs/penalty.md for why this is not gonum's lp.Simplex.
func (sp *Subproblem) Solve() (s []float64, pivots int, err error) {
	n, m := sp.N(), len(sp.F)
	switch {
	case n == 0:
		return nil, 0, errors.New("penalty: subproblem with no variables")
	case len(sp.G) != m:
		return nil, 0, fmt.Errorf("penalty: subproblem has %d constraint values but %d subgradients", m, len(sp.G))
	case !(sp.Delta > 0) || math.IsInf(sp.Delta, 0):
		return nil, 0, fmt.Errorf("penalty: trust-region radius %v; it must be positive and finite", sp.Delta)
	case !(sp.P >= 0) || math.IsInf(sp.P, 0):
		return nil, 0, fmt.Errorf("penalty: penalty parameter %v; it must be nonnegative and finite", sp.P)
	}
	for i, g := range sp.G {
		if len(g) != n {
			return nil, 0, fmt.Errorf("penalty: subgradient %d has %d elements, want %d", i+1, len(g), n)
		}
	}
	lp := newBoundedLP(sp)
	pivots, err = lp.solve()
	if err != nil {
		return nil, pivots, err
	}
	s = make([]float64, n)
	for j := range s {
		s[j] = math.Max(-sp.Delta, math.Min(sp.Delta, lp.x[j]))
	}
	return s, pivots, nil
}

// boundedLP is min c·x subject to A x = b, lo <= x <= hi, for the columns
// of a Subproblem: x = (s, t, q), A = [G, -I, I], b = -F.
type boundedLP struct {
	sp     *Subproblem
	n, m   int
	c      []float64
	lo, hi []float64
	x      []float64
	basis  []int     // the basic variable of each row
	pos    []int     // the row of a basic variable, -1 for nonbasic
	binv   []float64 // the inverse of the basis matrix, m×m row-major
	y      []float64 // simplex multipliers
	alpha  []float64 // binv times the entering column
}

func newBoundedLP(sp *Subproblem) *boundedLP {
	n, m := sp.N(), len(sp.F)
	nv := n + 2*m
	lp := &boundedLP{sp: sp, n: n, m: m,
		c: make([]float64, nv), lo: make([]float64, nv), hi: make([]float64, nv), x: make([]float64, nv),
		basis: make([]int, m), pos: make([]int, nv), binv: make([]float64, m*m),
		y: make([]float64, m), alpha: make([]float64, m)}
	for j := 0; j < n; j++ {
		lp.lo[j], lp.hi[j] = -sp.Delta, sp.Delta
		if sp.G0 != nil {
			lp.c[j] = sp.G0[j]
		}
		// start at the bound that lowers G0·s; with no objective, at the
		// bound that lowers the violated constraints
		dir := lp.c[j]
		if dir == 0 {
			for i, g := range sp.G {
				if sp.F[i] > 0 {
					dir += g[j]
				}
			}
		}
		if dir > 0 {
			lp.x[j] = -sp.Delta
		} else {
			lp.x[j] = sp.Delta
		}
		lp.pos[j] = -1
	}
	for i := 0; i < m; i++ {
		t, q := n+i, n+m+i
		lp.c[t] = sp.P
		lp.hi[t], lp.hi[q] = math.Inf(1), math.Inf(1)
		r := -sp.F[i] - dot(sp.G[i], lp.x[:n])
		if r >= 0 { // q_i = r basic (column +e_i)
			lp.basis[i], lp.x[q], lp.pos[q], lp.pos[t] = q, r, i, -1
			lp.binv[i*m+i] = 1
		} else { // t_i = -r basic (column -e_i)
			lp.basis[i], lp.x[t], lp.pos[t], lp.pos[q] = t, -r, i, -1
			lp.binv[i*m+i] = -1
		}
	}
	return lp
}

// column returns entry i of column j of A.
func (lp *boundedLP) column(j, i int) float64 {
	switch {
	case j < lp.n:
		return lp.sp.G[i][j]
	case j < lp.n+lp.m:
		if j-lp.n == i {
			return -1
		}
	default:
		if j-lp.n-lp.m == i {
			return 1
		}
	}
	return 0
}

// reducedCost is c_j - y·A_j.
func (lp *boundedLP) reducedCost(j int) float64 {
	switch {
	case j < lp.n:
		d := lp.c[j]
		for i, g := range lp.sp.G {
			d -= lp.y[i] * g[j]
		}
		return d
	case j < lp.n+lp.m:
		return lp.c[j] + lp.y[j-lp.n]
	default:
		return lp.c[j] - lp.y[j-lp.n-lp.m]
	}
}

// solve runs the simplex method from the starting vertex.
func (lp *boundedLP) solve() (int, error) {
	n, m := lp.n, lp.m
	if m == 0 {
		return 0, nil // the start minimises G0·s over the box
	}
	scale := 1.0
	for _, cj := range lp.c {
		scale = math.Max(scale, math.Abs(cj))
	}
	dualTol := 1e-11 * scale
	maxPivots := 50*(n+2*m) + 1000
	bland, degenerate := false, 0
	for pivots := 0; pivots < maxPivots; pivots++ {
		if pivots > 0 && pivots%100 == 0 {
			if err := lp.refactor(); err != nil {
				return pivots, err
			}
		}
		// multipliers y = B^-T c_B
		clear(lp.y)
		for k, v := range lp.basis {
			if cb := lp.c[v]; cb != 0 {
				row := lp.binv[k*m : (k+1)*m]
				for i, bi := range row {
					lp.y[i] += cb * bi
				}
			}
		}
		// entering variable: a nonbasic one whose move off its bound
		// lowers the objective
		enter, dir, best := -1, 0.0, 0.0
		for j := range lp.x {
			if lp.pos[j] >= 0 {
				continue
			}
			d := lp.reducedCost(j)
			var gain, dj float64
			switch {
			case d < -dualTol && lp.x[j] < lp.hi[j]:
				gain, dj = -d, 1
			case d > dualTol && lp.x[j] > lp.lo[j]:
				gain, dj = d, -1
			default:
				continue
			}
			if bland {
				enter, dir = j, dj
				break
			}
			if gain > best {
				enter, dir, best = j, dj, gain
			}
		}
		if enter < 0 {
			return pivots, nil // optimal
		}
		// alpha = B^-1 A_enter; basic variables move by -theta*dir*alpha
		clear(lp.alpha)
		amax := 0.0
		for i := 0; i < m; i++ {
			if a := lp.column(enter, i); a != 0 {
				for k := 0; k < m; k++ {
					lp.alpha[k] += lp.binv[k*m+i] * a
				}
			}
		}
		for _, a := range lp.alpha {
			amax = math.Max(amax, math.Abs(a))
		}
		pivTol := 1e-11 * math.Max(1, amax)
		theta, leave := lp.hi[enter]-lp.lo[enter], -1 // a bound flip of the entering variable
		for k, v := range lp.basis {
			rate := -dir * lp.alpha[k]
			var lim float64
			switch {
			case rate < -pivTol:
				lim = (lp.x[v] - lp.lo[v]) / -rate
			case rate > pivTol && !math.IsInf(lp.hi[v], 1):
				lim = (lp.hi[v] - lp.x[v]) / rate
			default:
				continue
			}
			lim = math.Max(lim, 0)
			better := lim < theta
			if lim == theta && leave >= 0 {
				if bland {
					better = v < lp.basis[leave]
				} else {
					better = math.Abs(lp.alpha[k]) > math.Abs(lp.alpha[leave])
				}
			}
			if better {
				theta, leave = lim, k
			}
		}
		if math.IsInf(theta, 1) {
			return pivots, errors.New("penalty: the LP subproblem is unbounded (a subgradient is not finite?)")
		}
		if theta <= 1e-14*math.Max(1, lp.sp.Delta) {
			degenerate++
			if degenerate > 2*m+10 {
				bland = true
			}
		} else {
			degenerate = 0
		}
		lp.x[enter] += dir * theta
		for k, v := range lp.basis {
			lp.x[v] -= theta * dir * lp.alpha[k]
		}
		if leave < 0 { // bound flip
			if dir > 0 {
				lp.x[enter] = lp.hi[enter]
			} else {
				lp.x[enter] = lp.lo[enter]
			}
			continue
		}
		out := lp.basis[leave]
		if -dir*lp.alpha[leave] < 0 {
			lp.x[out] = lp.lo[out]
		} else {
			lp.x[out] = lp.hi[out]
		}
		lp.basis[leave], lp.pos[enter], lp.pos[out] = enter, leave, -1
		// update B^-1: pivot on alpha[leave]
		pr := lp.binv[leave*m : (leave+1)*m]
		a := lp.alpha[leave]
		for i := range pr {
			pr[i] /= a
		}
		for k := 0; k < m; k++ {
			if k == leave || lp.alpha[k] == 0 {
				continue
			}
			f := lp.alpha[k]
			row := lp.binv[k*m : (k+1)*m]
			for i := range row {
				row[i] -= f * pr[i]
			}
		}
	}
	return maxPivots, fmt.Errorf("penalty: the LP subproblem did not reach an optimum in %d pivots", maxPivots)
}

// refactor recomputes B^-1 from the basis and the basic variables from the
// nonbasic ones, to shed the rounding the updates accumulate.
func (lp *boundedLP) refactor() error {
	m := lp.m
	B := mat.NewDense(m, m, nil)
	for k, v := range lp.basis {
		for i := 0; i < m; i++ {
			B.Set(i, k, lp.column(v, i))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(B); err != nil {
		return fmt.Errorf("penalty: the LP basis became singular: %v", err)
	}
	for k := 0; k < m; k++ {
		for i := 0; i < m; i++ {
			lp.binv[k*m+i] = inv.At(k, i)
		}
	}
	// x_B = B^-1 (b - N x_N), b = -F
	r := make([]float64, m)
	for i := range r {
		r[i] = -lp.sp.F[i]
	}
	for j, xj := range lp.x {
		if lp.pos[j] >= 0 || xj == 0 {
			continue
		}
		for i := 0; i < m; i++ {
			r[i] -= lp.column(j, i) * xj
		}
	}
	for k, v := range lp.basis {
		xv := 0.0
		for i, ri := range r {
			xv += lp.binv[k*m+i] * ri
		}
		lp.x[v] = xv
	}
	return nil
}

func dot(a, b []float64) float64 { return floats.Dot(a, b) }
