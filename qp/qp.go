// Package qp solves small dense convex quadratic programs
//
//	minimize    ½ xᵀHx + cᵀx
//	subject to  Ax = b, Gx <= h
//
// with H symmetric positive semidefinite, by Mehrotra's primal-dual
// interior-point method on the normal equations of the KKT system, solved
// densely. It is meant for subproblems of at most a few hundred variables
// and constraints (a step of a sequential quadratic programming method),
// not for large or sparse programs.
package qp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Problem is a convex quadratic program. H is n×n (row-major, symmetric);
// A is p×n with len(B) = p; G is m×n with len(Hv) = m. A and G may be
// empty.
type Problem struct {
	H  [][]float64
	C  []float64
	A  [][]float64
	B  []float64
	G  [][]float64
	Hv []float64
}

// Solution is a point and its multipliers: Y for Ax = b (either sign), Z
// >= 0 for Gx <= h, so that Hx + c + AᵀY + GᵀZ = 0 at the optimum.
type Solution struct {
	X, Y, Z []float64
	Iter    int
}

// Settings bound the iterations: Tol is the relative accuracy of the
// residuals and of the complementarity, MaxIter the iterations at most;
// zero means DefaultTol and DefaultMaxIter.
type Settings struct {
	Tol     float64
	MaxIter int
}

// The defaults of Settings.
const (
	DefaultTol     = 1e-10
	DefaultMaxIter = 100
)

// ErrNotSolved says the method did not reach the tolerance within the
// iterations: the program may be infeasible, unbounded or too badly
// conditioned for it.
var ErrNotSolved = errors.New("qp: not solved to the tolerance within the iterations")

// Solve solves p. It returns ErrNotSolved (with the last iterate) when the
// residuals do not reach Settings.Tol, and an error for malformed input.
func Solve(p *Problem, set Settings) (*Solution, error) {
	n, ne, ni := len(p.C), len(p.A), len(p.G)
	if err := p.check(); err != nil {
		return nil, err
	}
	if set.Tol <= 0 {
		set.Tol = DefaultTol
	}
	if set.MaxIter <= 0 {
		set.MaxIter = DefaultMaxIter
	}
	x := make([]float64, n)
	y := make([]float64, ne)
	z := make([]float64, ni)
	sl := make([]float64, ni)
	// start: x = 0, slacks at least 1, multipliers 1
	for i := range sl {
		sl[i] = math.Max(p.Hv[i], 1)
		z[i] = 1
	}
	scaleD := 1.0
	for i, row := range p.H {
		scaleD = math.Max(scaleD, math.Abs(p.C[i]))
		scaleD = math.Max(scaleD, floats.Norm(row, math.Inf(1)))
	}

	rd := make([]float64, n)
	rp := make([]float64, ne)
	ri := make([]float64, ni)
	dx, dy, dz, ds := make([]float64, n), make([]float64, ne), make([]float64, ni), make([]float64, ni)
	ax, ay, az, as := make([]float64, n), make([]float64, ne), make([]float64, ni), make([]float64, ni)
	rc := make([]float64, ni)
	K := mat.NewDense(n+ne, n+ne, nil)
	rhs := mat.NewVecDense(n+ne, nil)
	var lu mat.LU
	sol := &Solution{X: x, Y: y, Z: z}
	for it := 0; it < set.MaxIter; it++ {
		sol.Iter = it
		p.residuals(x, y, z, sl, rd, rp, ri)
		mu := 0.0
		if ni > 0 {
			mu = floats.Dot(sl, z) / float64(ni)
		}
		if p.solved(x, y, z, sl, rd, rp, ri, set.Tol) {
			p.purify(sol, sl)
			return sol, nil
		}
		// the reduced matrix [H + Gᵀ W G, Aᵀ; A, -δI], W = Z/S, factored once
		// for the predictor and the corrector
		K.Zero()
		for i := range n {
			for j := range n {
				K.Set(i, j, p.H[i][j])
			}
		}
		for k := range ni {
			w := z[k] / sl[k]
			g := p.G[k]
			for i := range n {
				if g[i] == 0 {
					continue
				}
				for j := range n {
					K.Set(i, j, K.At(i, j)+w*g[i]*g[j])
				}
			}
		}
		reg := 1e-13 * scaleD
		for i := range n {
			K.Set(i, i, K.At(i, i)+reg)
		}
		for k := range ne {
			for j := range n {
				K.Set(n+k, j, p.A[k][j])
				K.Set(j, n+k, p.A[k][j])
			}
			K.Set(n+k, n+k, -reg)
		}
		lu.Factorize(K)
		if c := lu.Cond(); math.IsInf(c, 1) || math.IsNaN(c) {
			return sol, fmt.Errorf("qp: singular KKT matrix (condition %.3g): dependent equality constraints?", c)
		}
		solveDir := func(rcv []float64, dx, dy, dz, ds []float64) error {
			// rhs x-part: -rd + Gᵀ S⁻¹ (rc - Z ri)... with rc the target
			// complementarity residual s∘z - σμ
			for i := range n {
				rhs.SetVec(i, -rd[i])
			}
			for k := range ni {
				t := (-rcv[k] + z[k]*ri[k]) / sl[k]
				for i, g := range p.G[k] {
					if g != 0 {
						rhs.SetVec(i, rhs.AtVec(i)-g*t)
					}
				}
			}
			for k := range ne {
				rhs.SetVec(n+k, -rp[k])
			}
			var v mat.VecDense
			if err := lu.SolveVecTo(&v, false, rhs); err != nil {
				var c mat.Condition
				if !errors.As(err, &c) {
					return err
				}
			}
			for i := range n {
				dx[i] = v.AtVec(i)
			}
			for k := range ne {
				dy[k] = v.AtVec(n + k)
			}
			for k := range ni {
				ds[k] = -ri[k] - floats.Dot(p.G[k], dx)
				dz[k] = (-rcv[k] - z[k]*ds[k]) / sl[k]
			}
			return nil
		}
		// predictor (affine scaling)
		for k := range ni {
			rc[k] = sl[k] * z[k]
		}
		if err := solveDir(rc, ax, ay, az, as); err != nil {
			return sol, fmt.Errorf("qp: %w", err)
		}
		alpha := math.Min(1, math.Min(maxStep(sl, as), maxStep(z, az)))
		sigma := 0.0
		if ni > 0 {
			muAff := 0.0
			for k := range ni {
				muAff += (sl[k] + alpha*as[k]) * (z[k] + alpha*az[k])
			}
			muAff /= float64(ni)
			sigma = math.Pow(muAff/mu, 3)
		}
		// corrector
		for k := range ni {
			rc[k] = sl[k]*z[k] + as[k]*az[k] - sigma*mu
		}
		if err := solveDir(rc, dx, dy, dz, ds); err != nil {
			return sol, fmt.Errorf("qp: %w", err)
		}
		alpha = math.Min(1, 0.99*math.Min(maxStep(sl, ds), maxStep(z, dz)))
		floats.AddScaled(x, alpha, dx)
		floats.AddScaled(y, alpha, dy)
		floats.AddScaled(z, alpha, dz)
		floats.AddScaled(sl, alpha, ds)
		if !finite(x) || !finite(z) || !finite(y) {
			return sol, ErrNotSolved
		}
	}
	sol.Iter = set.MaxIter
	return sol, ErrNotSolved
}

// purify replaces the interior point's solution by the exact solution of
// the equality-constrained program on its active set (the inequalities
// whose multiplier exceeds their slack), when that solution exists and
// keeps every multiplier >= 0 and every inequality, to rounding: the
// interior point leaves each solution component off by about the
// tolerance, the active set's KKT system leaves it off by rounding, which
// a method that takes many small steps from these solutions needs.
func (p *Problem) purify(sol *Solution, sl []float64) {
	n, ne := len(p.C), len(p.A)
	var act []int
	for k := range p.G {
		if sol.Z[k] > sl[k] {
			act = append(act, k)
		}
	}
	na := len(act)
	if ne+na > n {
		return // more active rows than variables: dependent
	}
	dim := n + ne + na
	K := mat.NewDense(dim, dim, nil)
	rhs := mat.NewVecDense(dim, nil)
	for i := range n {
		for j := range n {
			K.Set(i, j, p.H[i][j])
		}
		rhs.SetVec(i, -p.C[i])
	}
	rows := make([][]float64, 0, ne+na)
	rows = append(rows, p.A...)
	for _, k := range act {
		rows = append(rows, p.G[k])
	}
	for r, row := range rows {
		for j := range n {
			K.Set(n+r, j, row[j])
			K.Set(j, n+r, row[j])
		}
		if r < ne {
			rhs.SetVec(n+r, p.B[r])
		} else {
			rhs.SetVec(n+r, p.Hv[act[r-ne]])
		}
	}
	var v mat.VecDense
	if err := v.SolveVec(K, rhs); err != nil {
		return // singular or ill-conditioned: keep the interior point
	}
	x := make([]float64, n)
	for j := range x {
		x[j] = v.AtVec(j)
	}
	if !finite(x) {
		return
	}
	z := make([]float64, len(p.G))
	for a, k := range act {
		z[k] = v.AtVec(n + ne + a)
		if z[k] < 0 {
			return // the active set is wrong
		}
	}
	for k, g := range p.G {
		if d := floats.Dot(g, x) - p.Hv[k]; d > 1e-12*(1+math.Abs(p.Hv[k])+absDot(g, x)) {
			return // an inactive row is violated
		}
	}
	copy(sol.X, x)
	for k := range ne {
		sol.Y[k] = v.AtVec(n + k)
	}
	copy(sol.Z, z)
}

// solved reports whether every residual is within tol of the size of the
// terms it sums, row by row (so that a badly scaled row is judged on its
// own scale): each dual row against |c_i| + Σ|H_ij x_j| + Σ|A_ki y_k| +
// Σ|G_ki z_k|, each constraint row against |b_k| + Σ|A_kj x_j|, and each
// inequality's complementarity s_k z_k against its row's size times the
// largest multiplier.
func (p *Problem) solved(x, y, z, sl, rd, rp, ri []float64, tol float64) bool {
	zmax := 1.0
	for _, v := range z {
		zmax = math.Max(zmax, v)
	}
	for i := range rd {
		size := math.Abs(p.C[i])
		for j, h := range p.H[i] {
			size += math.Abs(h * x[j])
		}
		for k, a := range p.A {
			size += math.Abs(a[i] * y[k])
		}
		for k, g := range p.G {
			size += math.Abs(g[i] * z[k])
		}
		if math.Abs(rd[i]) > tol*math.Max(size, tol) {
			return false
		}
	}
	for k, a := range p.A {
		if math.Abs(rp[k]) > tol*(1+math.Abs(p.B[k])+absDot(a, x)) {
			return false
		}
	}
	for k, g := range p.G {
		size := 1 + math.Abs(p.Hv[k]) + absDot(g, x)
		if math.Abs(ri[k]) > tol*size || sl[k]*z[k] > tol*size*zmax {
			return false
		}
	}
	return true
}

func absDot(a, x []float64) float64 {
	v := 0.0
	for i := range a {
		v += math.Abs(a[i] * x[i])
	}
	return v
}

// residuals stores the dual residual Hx + c + Aᵀy + Gᵀz, the equalities'
// Ax - b and the inequalities' Gx + s - h.
func (p *Problem) residuals(x, y, z, sl, rd, rp, ri []float64) {
	for i := range rd {
		rd[i] = p.C[i] + floats.Dot(p.H[i], x)
	}
	for k, a := range p.A {
		floats.AddScaled(rd, y[k], a)
		rp[k] = floats.Dot(a, x) - p.B[k]
	}
	for k, g := range p.G {
		floats.AddScaled(rd, z[k], g)
		ri[k] = floats.Dot(g, x) + sl[k] - p.Hv[k]
	}
}

func (p *Problem) check() error {
	n := len(p.C)
	if n == 0 {
		return errors.New("qp: no variables")
	}
	if len(p.H) != n {
		return fmt.Errorf("qp: H has %d rows for %d variables", len(p.H), n)
	}
	for i, row := range p.H {
		if len(row) != n {
			return fmt.Errorf("qp: H row %d has %d entries for %d variables", i, len(row), n)
		}
	}
	if len(p.A) != len(p.B) {
		return fmt.Errorf("qp: %d equality rows for %d right-hand sides", len(p.A), len(p.B))
	}
	if len(p.G) != len(p.Hv) {
		return fmt.Errorf("qp: %d inequality rows for %d right-hand sides", len(p.G), len(p.Hv))
	}
	for _, rows := range [][][]float64{p.A, p.G} {
		for i, row := range rows {
			if len(row) != n {
				return fmt.Errorf("qp: constraint row %d has %d entries for %d variables", i, len(row), n)
			}
		}
	}
	for _, v := range [][]float64{p.C, p.B, p.Hv} {
		if !finite(v) {
			return errors.New("qp: a coefficient is not finite")
		}
	}
	for _, rows := range [][][]float64{p.H, p.A, p.G} {
		for _, row := range rows {
			if !finite(row) {
				return errors.New("qp: a coefficient is not finite")
			}
		}
	}
	return nil
}

// maxStep is the largest a <= 1/0.99 with v + a·dv >= 0 (v > 0), so that
// 0.99·a, the step taken, is at most 1.
func maxStep(v, dv []float64) float64 {
	a := math.Inf(1)
	for i := range v {
		if dv[i] < 0 {
			a = math.Min(a, -v[i]/dv[i])
		}
	}
	return math.Min(a, 1/0.99)
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
