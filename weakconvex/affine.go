package weakconvex

import (
	"math"
	"slices"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
)

// affine is c0 + sum_k coef[k] x[idx[k]], a function of the flat vector x
// of every decision variable; idx is strictly increasing.
type affine struct {
	idx  []int32
	coef []float64
	c0   float64
}

func (a *affine) norm() float64 {
	s := 0.0
	for _, c := range a.coef {
		s += c * c
	}
	return math.Sqrt(s)
}

func (a *affine) norm2() float64 {
	s := 0.0
	for _, c := range a.coef {
		s += c * c
	}
	return s
}

// combine is wa*a + wb*b.
func combine(a *affine, wa float64, b *affine, wb float64) *affine {
	out := &affine{c0: wa*a.c0 + wb*b.c0, idx: make([]int32, 0, len(a.idx)+len(b.idx)), coef: make([]float64, 0, len(a.idx)+len(b.idx))}
	i, j := 0, 0
	for i < len(a.idx) || j < len(b.idx) {
		switch {
		case j == len(b.idx) || i < len(a.idx) && a.idx[i] < b.idx[j]:
			out.idx, out.coef = append(out.idx, a.idx[i]), append(out.coef, wa*a.coef[i])
			i++
		case i == len(a.idx) || b.idx[j] < a.idx[i]:
			out.idx, out.coef = append(out.idx, b.idx[j]), append(out.coef, wb*b.coef[j])
			j++
		default:
			out.idx, out.coef = append(out.idx, a.idx[i]), append(out.coef, wa*a.coef[i]+wb*b.coef[j])
			i++
			j++
		}
	}
	return out
}

// lincomb is sum_i w[i] a[i] + c, computed with a scratch map when there
// are many terms.
func lincomb(as []*affine, w []float64) *affine {
	acc := map[int32]float64{}
	c0 := 0.0
	for i, a := range as {
		if w[i] == 0 {
			continue
		}
		c0 += w[i] * a.c0
		for k, j := range a.idx {
			acc[j] += w[i] * a.coef[k]
		}
	}
	out := &affine{c0: c0, idx: make([]int32, 0, len(acc))}
	for j := range acc {
		out.idx = append(out.idx, j)
	}
	slices.Sort(out.idx)
	out.coef = make([]float64, len(out.idx))
	for k, j := range out.idx {
		out.coef[k] = acc[j]
	}
	return out
}

// space is the product X of the variables' domains.
type space struct {
	vars  []*check.Var // by offset
	owner []int32      // flat index -> position in vars
}

func newSpace(m *check.Model) *space {
	s := &space{vars: slices.Clone(m.Vars), owner: make([]int32, m.NumScalars)}
	slices.SortFunc(s.vars, func(a, b *check.Var) int { return a.Offset - b.Offset })
	for k, v := range s.vars {
		for i := v.Offset; i < v.Offset+v.Size && i < len(s.owner); i++ {
			s.owner[i] = int32(k)
		}
	}
	return s
}

// rangeOf is the exact range of the affine a over X (its support function
// in both directions), rounded outward. A domain kind it does not know
// gives the whole line wherever a depends on it.
func (s *space) rangeOf(a *affine) Interval {
	lo, hi := a.c0, a.c0
	for k := 0; k < len(a.idx); {
		v := s.vars[s.owner[a.idx[k]]]
		e := k
		for e < len(a.idx) && int(a.idx[e]) < v.Offset+v.Size {
			e++
		}
		r := support(v, a.idx[k:e], a.coef[k:e])
		lo += r.Lo
		hi += r.Hi
		k = e
	}
	return widen(Interval{lo, hi})
}

// support is the range of sum coef[k] x[idx[k]] over v's domain.
func support(v *check.Var, idx []int32, coef []float64) Interval {
	d := v.Domain
	nz := false
	for _, c := range coef {
		nz = nz || c != 0
	}
	if !nz {
		return point(0)
	}
	if d == nil {
		return whole
	}
	switch d.Kind {
	case domain.Box:
		lo, hi := 0.0, 0.0
		for k, j := range idx {
			i := int(j) - v.Offset
			c := coef[k]
			if c == 0 {
				continue
			}
			a, b := mulf(c, d.Lo[i]), mulf(c, d.Hi[i])
			lo += math.Min(a, b)
			hi += math.Max(a, b)
		}
		return Interval{lo, hi}
	case domain.Ball:
		r := d.Radius * math.Sqrt(sumsq(coef))
		return Interval{-r, r}
	case domain.RowBalls:
		t := 0.0
		for k := 0; k < len(idx); {
			row := (int(idx[k]) - v.Offset) / d.Cols
			e := k
			for e < len(idx) && (int(idx[e])-v.Offset)/d.Cols == row {
				e++
			}
			t += math.Sqrt(sumsq(coef[k:e]))
			k = e
		}
		r := d.Radius * t
		return Interval{-r, r}
	case domain.Simplex:
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, c := range coef {
			lo, hi = math.Min(lo, c), math.Max(hi, c)
		}
		if len(idx) < v.Size { // an element with coefficient 0
			lo, hi = math.Min(lo, 0), math.Max(hi, 0)
		}
		return Interval{d.Radius * lo, d.Radius * hi}
	case domain.L1Ball:
		// the l1 ball's support function is r times the dual (max) norm
		m := 0.0
		for _, c := range coef {
			m = math.Max(m, math.Abs(c))
		}
		return Interval{-d.Radius * m, d.Radius * m}
	}
	return whole
}

func sumsq(v []float64) float64 {
	s := 0.0
	for _, c := range v {
		s += c * c
	}
	return s
}

// Diameter is the largest distance between two points of the product of
// the variables' domains (+Inf when one is unbounded, or of a kind this
// package does not know).
func Diameter(m *check.Model) float64 {
	s := 0.0
	for _, v := range m.Vars {
		d := v.Domain
		var dv float64
		switch {
		case d == nil:
			dv = math.Inf(1)
		case d.Kind == domain.Box:
			for i := range d.Lo {
				w := d.Hi[i] - d.Lo[i]
				dv += w * w
			}
			dv = math.Sqrt(dv)
		case d.Kind == domain.Ball:
			dv = 2 * d.Radius
		case d.Kind == domain.RowBalls:
			dv = 2 * d.Radius * math.Sqrt(float64(v.Size/max(d.Cols, 1)))
		case d.Kind == domain.Simplex:
			dv = d.Radius * math.Sqrt2
			if v.Size == 1 {
				dv = 0
			}
		case d.Kind == domain.L1Ball:
			// ||x - y||_2 <= ||x - y||_1 <= 2r, attained at ±r e_1
			dv = 2 * d.Radius
		default:
			dv = math.Inf(1)
		}
		s += dv * dv
	}
	return up(math.Sqrt(s))
}
