package sparseqp

import "math"

// primalCertificate tests y (a row multiplier of the scaled program, e.g. the step of the
// iterates' y, along which they grow without bound when the program is
// infeasible) as a Farkas certificate: y is given the multipliers' sign
// pattern (an entry of the sign of an infinite bound is set to 0), z is
// the best of that pattern for y, z_j = −(Aᵀy)_j where its sign is
// allowed and 0 elsewhere, and (y, z) is scaled to largest entry 1. It is
// accepted, into the Solver's certificate buffers, when
// ‖Aᵀy + z‖∞ <= InfTol and the support is below −InfTol (see
// Certificate).
func (sv *Solver) primalCertificate(p *Problem, y []float64) (Certificate, bool) {
	st := &sv.state
	sc := &sv.sc
	cy, cz, w := st.cy, st.cz, st.cw
	for i, v := range y {
		v *= sc.e[i] // back to p's rows
		switch {
		case v > 0 && math.IsInf(p.U[i], 1), v < 0 && math.IsInf(p.L[i], -1), st.kind[i] == rowFree:
			v = 0
		}
		cy[i] = v
	}
	mulTransVec(p.A, w, cy)
	for j, v := range w {
		zj := -v
		if zj > 0 && !st.hasUB[j] || zj < 0 && !st.hasLB[j] {
			zj = 0
		}
		cz[j] = zj
	}
	scale := math.Max(normInf(cy), normInf(cz))
	if !(scale > 0) || math.IsInf(scale, 0) {
		return Certificate{}, false
	}
	var c Certificate
	for i := range cy {
		cy[i] /= scale
		if v := cy[i]; v > 0 {
			c.Support += p.U[i] * v
		} else if v < 0 {
			c.Support += p.L[i] * v
		}
	}
	for j := range cz {
		cz[j] /= scale
		if v := cz[j]; v > 0 {
			c.Support += sc.oub[j] * v
		} else if v < 0 {
			c.Support += sc.olb[j] * v
		}
	}
	mulTransVec(p.A, w, cy)
	for j := range w {
		c.Residual = math.Max(c.Residual, math.Abs(w[j]+cz[j]))
	}
	tol := sv.set.InfTol
	ok := c.Residual <= tol && c.Support < -tol
	return c, ok
}

// dualCertificate tests d (the scaled program's step of x, or x, along which the iterates
// run off when the dual is infeasible) as a direction of unbounded
// descent: d is moved into the recession cone of the variables' bounds
// (d_j >= 0 where LB_j is finite, <= 0 where UB_j is), scaled to largest
// entry 1, and accepted, into the certificate buffer cd, when ‖Pd‖∞ <=
// InfTol, Ad leaves the rows' recession cone by at most InfTol, and
// qᵀd < −InfTol.
func (sv *Solver) dualCertificate(p *Problem, d []float64) (Certificate, bool) {
	st := &sv.state
	cd := st.cd
	for j, v := range d {
		v *= sv.sc.d[j] // back to p's variables
		if st.hasLB[j] && v < 0 || st.hasUB[j] && v > 0 {
			v = 0
		}
		cd[j] = v
	}
	scale := normInf(cd)
	if !(scale > 0) || math.IsInf(scale, 0) {
		return Certificate{}, false
	}
	var c Certificate
	for j := range cd {
		cd[j] /= scale
		c.Support += p.Q[j] * cd[j]
	}
	tol := sv.set.InfTol
	if !(c.Support < -tol) {
		return c, false
	}
	symMulVec(p.P, st.cw, cd)
	c.Residual = normInf(st.cw)
	mulVec(p.A, st.cr, cd)
	for i, v := range st.cr {
		k := st.kind[i]
		if k.hasU() || k == rowEqual {
			c.RowViolation = math.Max(c.RowViolation, v)
		}
		if k.hasL() || k == rowEqual {
			c.RowViolation = math.Max(c.RowViolation, -v)
		}
	}
	ok := c.Residual <= tol && c.RowViolation <= tol
	return c, ok
}

// infeasible fills res for a certificate found (in cy, cz for
// PrimalInfeasible, in cd for DualInfeasible), with the last measures of
// the iterate.
func (sv *Solver) infeasible(res *Result, status Status, c Certificate, m measures) *Result {
	st := &sv.state
	res.Status = status
	res.Certificate = c
	res.Objective, res.DualObjective, res.Gap = m.obj, m.dobj, m.gap
	res.PrimalResidual, res.DualResidual = m.prim, m.dual
	if status == PrimalInfeasible {
		res.X = append([]float64(nil), st.xc...)
		res.Y = append([]float64(nil), st.cy...)
		res.Z = append([]float64(nil), st.cz...)
	} else {
		res.X = append([]float64(nil), st.cd...)
		res.Y = append([]float64(nil), sv.sc.uy...)
		res.Z = append([]float64(nil), sv.sc.uz...)
	}
	return res
}
